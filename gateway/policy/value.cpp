#include "policy/value.hpp"

namespace signet::policy {

namespace {
const Integer& i128Max() {
  static const Integer v = (Integer(1) << 127) - 1;
  return v;
}
const Integer& i128Min() {
  static const Integer v = -(Integer(1) << 127);
  return v;
}
}  // namespace

Value Value::of(bool b) {
  Value v;
  v.kind = Kind::kBool;
  v.boolean = b;
  return v;
}

Value Value::integer(const Integer& i) {
  Value v;
  v.kind = (i > i128Max() || i < i128Min()) ? Kind::kUint : Kind::kInt;
  v.number = i;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind = Kind::kInt;
  v.number = i;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind = Kind::kString;
  v.text = std::move(s);
  return v;
}

Value Value::listOf(List items) {
  Value v;
  v.kind = Kind::kList;
  v.list = std::make_shared<List>(std::move(items));
  return v;
}

Value Value::structOf(Fields f) {
  Value v;
  v.kind = Kind::kStruct;
  v.fields = std::make_shared<Fields>(std::move(f));
  return v;
}

Value Value::mapOf(Fields f) {
  Value v = structOf(std::move(f));
  v.kind = Kind::kMap;
  return v;
}

Value Value::timestamp(int64_t epochMs) {
  Value v;
  v.kind = Kind::kTimestamp;
  v.number = epochMs;
  return v;
}

std::optional<Integer> parseDecimal(const std::string& text) {
  size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
  if (i == text.size() || text.size() - i > 100) return std::nullopt;
  Integer value = 0;
  for (size_t j = i; j < text.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(text[j]))) return std::nullopt;
    value = value * 10 + (text[j] - '0');
  }
  return i ? Integer(-value) : value;
}

const char* kindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kBool:
      return "bool";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kUint:
      return "uint";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kList:
      return "list";
    case Value::Kind::kStruct:
      return "struct";
    case Value::Kind::kMap:
      return "map";
    case Value::Kind::kTimestamp:
      return "timestamp";
  }
  return "?";
}

std::string describe(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kBool:
      return v.boolean ? "true" : "false";
    case Value::Kind::kInt:
    case Value::Kind::kUint:
      return v.number.str();
    case Value::Kind::kString:
      return "'" + v.text + "'";
    case Value::Kind::kTimestamp:
      return "Timestamp(" + v.number.str() + " ms)";
    default:
      return std::string("a ") + kindName(v.kind);
  }
}

Value fromJson(const Poco::Dynamic::Var& j) {
  if (j.isEmpty()) return Value::string("");
  if (j.type() == typeid(json::Object)) {
    auto o = j.extract<json::Object>();
    const char* marker = o->has("$uint") ? "$uint" : "$int";
    if (o->size() == 1 && o->has(marker)) {
      auto n = parseDecimal(o->get(marker).convert<std::string>());
      if (!n) throw std::invalid_argument("a $uint or $int fact is not a decimal integer");
      return Value::integer(*n);
    }
    bool map = o->size() == 1 && o->has("$map");
    json::Object source = map ? o->getObject("$map") : o;
    Fields f;
    for (const auto& [k, v] : *source) f[k] = fromJson(v);
    return map ? Value::mapOf(std::move(f)) : Value::structOf(std::move(f));
  }
  if (j.type() == typeid(json::Array)) {
    auto a = j.extract<json::Array>();
    List items;
    for (size_t i = 0; i < a->size(); ++i)
      items.push_back(fromJson(a->get(static_cast<unsigned>(i))));
    return Value::listOf(std::move(items));
  }
  if (j.isBoolean()) return Value::of(j.extract<bool>());
  if (j.isString()) return Value::string(j.extract<std::string>());
  if (j.isInteger()) return Value::integer(*parseDecimal(j.convert<std::string>()));
  return Value::string(j.convert<std::string>());
}

}  // namespace signet::policy
