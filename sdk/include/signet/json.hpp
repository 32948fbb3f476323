// JSON helpers over Poco::JSON that turn a wrong shape into an InvalidArgument error naming
// the field path and what was found, so handlers never repeat that wording.
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace signet::json {

using Object = Poco::JSON::Object::Ptr;
using Array = Poco::JSON::Array::Ptr;

// Parses a JSON object; a syntax error or a non-object is InvalidArgument naming `what`.
Object parseObject(std::string_view text, std::string_view what);
// Parses a JSON array (a stored list); a syntax error or a non-array is InvalidArgument naming
// `what`.
Array parseArray(std::string_view text, std::string_view what);
// The compact JSON text of a value, byte for byte what Poco's Stringifier::condense writes
// (json_stringify.cpp says why it is not Poco's). An object's members come in key order, as
// in every object that object() makes or parseObject reads; the insertion order an object
// made with Poco's JSON_PRESERVE_KEY_ORDER keeps is not followed.
std::string stringify(const Poco::Dynamic::Var& value);
// The path of the first string (or key) in a JSON text that holds a NUL character
// ("parameters.walletName"), or nullopt when none does or the text does not parse. Neither
// store keeps such text whole (PostgreSQL refuses it, SQLite's readers stop at it), so the API
// refuses it. Costs one scan of the text when there is no NUL.
std::optional<std::string> fieldHoldingNul(std::string_view text);
inline Object object() {
  return new Poco::JSON::Object();
}
inline Array array() {
  return new Poco::JSON::Array();
}

// What a value is, for messages: "a string", "an object", "null", ...
std::string kindOf(const Poco::Dynamic::Var& v);
// A JSON integer. Poco counts a boolean as one (numeric_limits<bool>::is_integer); JSON does not.
inline bool isWholeNumber(const Poco::Dynamic::Var& v) {
  return v.isInteger() && !v.isBoolean();
}
// A name's rule (requireName below): refuses a control character, naming `field`, the character
// and its byte; returns `text`.
const std::string& requireNoControls(const std::string& text, const std::string& field);

// Field accessors. `path` is the dotted prefix used in messages ("parameters").
// Absent and null are the same for optional fields: clients send null for unset optionals.
std::string requireString(const Object& o, const std::string& key, const std::string& path);
// A name (of a user, wallet, key, tag, policy, ...): a string without control characters
// (U+0000 to U+001F, U+007F), which would be stored but shown or compared otherwise than sent.
std::string requireName(const Object& o, const std::string& key, const std::string& path);
std::optional<std::string> optionalName(const Object& o, const std::string& key,
                                        const std::string& path);
std::optional<std::string> optionalString(const Object& o, const std::string& key,
                                          const std::string& path);
bool optionalBool(const Object& o, const std::string& key, const std::string& path, bool fallback);
Object requireObject(const Object& o, const std::string& key, const std::string& path);
Object optionalObject(const Object& o, const std::string& key, const std::string& path);
Array requireArray(const Object& o, const std::string& key, const std::string& path);
Array optionalArray(const Object& o, const std::string& key, const std::string& path);
std::vector<std::string> requireStringArray(const Object& o, const std::string& key,
                                            const std::string& path);
std::vector<std::string> optionalStringArray(const Object& o, const std::string& key,
                                             const std::string& path);
// An array's elements, each a string (InvalidArgument naming `field`[i] otherwise); none for a
// null array.
std::vector<std::string> stringsOf(const Array& a, const std::string& field);
Object objectAt(const Array& a, size_t index, const std::string& path);
// int32 values travel as JSON numbers.
int requireInt(const Object& o, const std::string& key, const std::string& path);
// An optional int32 (a setting): `fallback` when absent; InvalidArgument naming the field and
// the range when outside [low, high].
int optionalIntInRange(const Object& o, const std::string& key, const std::string& path,
                       int fallback, int low, int high);
// int64 values travel as decimal strings; a JSON number is accepted too.
std::optional<int64_t> optionalInt64String(const Object& o, const std::string& key,
                                           const std::string& path);
// A decimal integer written in a string, as the API writes 64-bit numbers; InvalidArgument
// naming `field` and the text otherwise.
int64_t decimalOf(const std::string& text, const std::string& field);
// A UUID string (the form every Signet identifier takes).
std::string requireUuid(const Object& o, const std::string& key, const std::string& path);
bool isUuid(std::string_view s);

// {"seconds":"…","nanos":"…"} from epoch milliseconds.
Object timestamp(int64_t epochMs);
Array stringArray(const std::vector<std::string>& values);

}  // namespace signet::json
