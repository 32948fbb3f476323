// Values of the policy language: bool, int (i128), uint (u256), string, list, struct, map
// and timestamp. Integers are arbitrary-precision underneath and range-checked at the
// edges, so that int and uint compare numerically without overflow.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "signet/json.hpp"

namespace signet::policy {

using Integer = boost::multiprecision::cpp_int;

struct Value;
using List = std::vector<Value>;
using Fields = std::map<std::string, Value>;

struct Value {
  enum class Kind { kBool, kInt, kUint, kString, kList, kStruct, kMap, kTimestamp };
  Kind kind = Kind::kBool;
  bool boolean = false;
  Integer number;    // kInt, kUint, kTimestamp (epoch milliseconds)
  std::string text;  // kString
  std::shared_ptr<List> list;
  std::shared_ptr<Fields> fields;  // kStruct, kMap

  static Value of(bool b);
  static Value integer(const Integer& i);  // int, or uint beyond the i128 range
  static Value integer(int64_t i);         // always an int (lengths, counts)
  static Value string(std::string s);
  static Value listOf(List items);
  static Value structOf(Fields f);
  static Value mapOf(Fields f);
  static Value timestamp(int64_t epochMs);

  bool isNumber() const { return kind == Kind::kInt || kind == Kind::kUint; }
};

// A decimal integer from text (an optional '-' and digits). Leading zeros are plain
// decimal: cpp_int's own string constructor would read "09" as (invalid) octal.
std::optional<Integer> parseDecimal(const std::string& text);

const char* kindName(Value::Kind kind);
std::string describe(const Value& v);  // for error messages

// Facts arrive as JSON: objects become structs, arrays lists, numbers ints. Two
// conventions reach what JSON cannot say: {"$uint": "<decimal>"} is a u256 ({"$int": ...} a
// signed one) and {"$map": {...}} is a map (accessed as m['k']).
Value fromJson(const Poco::Dynamic::Var& json);

}  // namespace signet::policy
