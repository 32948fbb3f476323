#include "signet/json.hpp"

#include <Poco/JSON/JSONException.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <charconv>
#include <cstdio>
#include <set>

#include "signet/error.hpp"

namespace signet::json {

namespace {
std::string fieldName(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
}  // namespace

std::string kindOf(const Poco::Dynamic::Var& v) {
  if (v.isEmpty()) return "null";
  if (v.type() == typeid(Object)) return "an object";
  if (v.type() == typeid(Array)) return "an array";
  if (v.isString()) return "a string";
  if (v.isBoolean()) return "a boolean";
  if (v.isNumeric()) return "a number";
  return "an unsupported value";
}

namespace {
Error wrongType(const std::string& field, const char* expected, const Poco::Dynamic::Var& v) {
  return invalidArgument("invalid field " + field + ": expected " + expected + ", got " +
                         kindOf(v));
}

// Returns the value when the key is present and not null.
std::optional<Poco::Dynamic::Var> present(const Object& o, const std::string& key) {
  if (!o || !o->has(key)) return std::nullopt;
  Poco::Dynamic::Var v = o->get(key);
  if (v.isEmpty()) return std::nullopt;
  return v;
}
}  // namespace

namespace {
// Poco's handler, refusing a key an object already has: Poco keeps the last, while another
// reader (a proxy, a client library, a policy tool) may keep the first, and the two would
// disagree on what was signed and decided.
class StrictHandler : public Poco::JSON::ParseHandler {
 public:
  void startObject() override {
    keys_.emplace_back();
    ParseHandler::startObject();
  }
  void endObject() override {
    keys_.pop_back();
    ParseHandler::endObject();
  }
  void key(const std::string& k) override {
    if (!keys_.empty() && !keys_.back().insert(k).second)
      throw Poco::JSON::JSONException("duplicate key \"" + k + "\"");
    ParseHandler::key(k);
  }

 private:
  std::vector<std::set<std::string>> keys_;
};
}  // namespace

namespace {
// `text` parsed strictly, as a `T` (an Object or an Array) or refused naming `what`.
template <typename T>
T parseAs(std::string_view text, std::string_view what, const char* kind) {
  Poco::JSON::Parser parser(new StrictHandler);
  Poco::Dynamic::Var v;
  try {
    v = parser.parse(std::string(text));
  } catch (const Poco::Exception& e) {
    throw invalidArgument("malformed JSON in " + std::string(what) + ": " + e.message());
  }
  if (v.type() != typeid(T))
    throw invalidArgument(std::string(what) + " must be a JSON " + kind + ", got " + kindOf(v));
  return v.extract<T>();
}
}  // namespace

Object parseObject(std::string_view text, std::string_view what) {
  return parseAs<Object>(text, what, "object");
}

Array parseArray(std::string_view text, std::string_view what) {
  return parseAs<Array>(text, what, "array");
}

namespace {
std::optional<std::string> nulIn(const Poco::Dynamic::Var& v, const std::string& path) {
  auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  if (v.type() == typeid(Object)) {
    for (const auto& [key, value] : *v.extract<Object>()) {
      if (key.find('\0') != std::string::npos) return child(key);
      if (auto found = nulIn(value, child(key))) return found;
    }
  } else if (v.type() == typeid(Array)) {
    auto list = v.extract<Array>();
    for (size_t i = 0; i < list->size(); ++i)
      if (auto found =
              nulIn(list->get(static_cast<unsigned>(i)), path + "[" + std::to_string(i) + "]"))
        return found;
  } else if (v.isString() && v.extract<std::string>().find('\0') != std::string::npos) {
    return path;
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::string> fieldHoldingNul(std::string_view text) {
  if (text.find("\\u0000") == std::string_view::npos && text.find('\0') == std::string_view::npos)
    return std::nullopt;
  Poco::Dynamic::Var v;
  try {
    v = Poco::JSON::Parser().parse(std::string(text));
  } catch (const Poco::Exception&) {
    return std::nullopt;  // the parse that follows names the syntax error
  }
  return nulIn(v, "");
}

std::string requireString(const Object& o, const std::string& key, const std::string& path) {
  auto v = present(o, key);
  if (!v) throw invalidArgument("missing required field " + fieldName(path, key));
  if (!v->isString()) throw wrongType(fieldName(path, key), "a string", *v);
  return v->extract<std::string>();
}

const std::string& requireNoControls(const std::string& text, const std::string& field) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "%04X", c);
      throw invalidArgument("invalid field " + field + ": it holds the control character U+" +
                            code + " at byte " + std::to_string(i));
    }
  }
  return text;
}

std::string requireName(const Object& o, const std::string& key, const std::string& path) {
  return requireNoControls(requireString(o, key, path), fieldName(path, key));
}

std::optional<std::string> optionalName(const Object& o, const std::string& key,
                                        const std::string& path) {
  auto value = optionalString(o, key, path);
  if (value) requireNoControls(*value, fieldName(path, key));
  return value;
}

std::optional<std::string> optionalString(const Object& o, const std::string& key,
                                          const std::string& path) {
  auto v = present(o, key);
  if (!v) return std::nullopt;
  if (!v->isString()) throw wrongType(fieldName(path, key), "a string", *v);
  return v->extract<std::string>();
}

bool optionalBool(const Object& o, const std::string& key, const std::string& path, bool fallback) {
  auto v = present(o, key);
  if (!v) return fallback;
  if (!v->isBoolean()) throw wrongType(fieldName(path, key), "a boolean", *v);
  return v->extract<bool>();
}

Object requireObject(const Object& o, const std::string& key, const std::string& path) {
  auto r = optionalObject(o, key, path);
  if (!r) throw invalidArgument("missing required field " + fieldName(path, key));
  return r;
}

Object optionalObject(const Object& o, const std::string& key, const std::string& path) {
  auto v = present(o, key);
  if (!v) return nullptr;
  if (v->type() != typeid(Object)) throw wrongType(fieldName(path, key), "an object", *v);
  return v->extract<Object>();
}

Array requireArray(const Object& o, const std::string& key, const std::string& path) {
  auto r = optionalArray(o, key, path);
  if (!r) throw invalidArgument("missing required field " + fieldName(path, key));
  return r;
}

Array optionalArray(const Object& o, const std::string& key, const std::string& path) {
  auto v = present(o, key);
  if (!v) return nullptr;
  if (v->type() != typeid(Array)) throw wrongType(fieldName(path, key), "an array", *v);
  return v->extract<Array>();
}

std::vector<std::string> stringsOf(const Array& a, const std::string& field) {
  std::vector<std::string> out;
  if (!a) return out;
  for (size_t i = 0; i < a->size(); ++i) {
    Poco::Dynamic::Var v = a->get(static_cast<unsigned>(i));
    std::string name = field + "[" + std::to_string(i) + "]";
    if (!v.isString()) throw wrongType(name, "a string", v);
    out.push_back(v.extract<std::string>());
  }
  return out;
}

std::vector<std::string> requireStringArray(const Object& o, const std::string& key,
                                            const std::string& path) {
  return stringsOf(requireArray(o, key, path), fieldName(path, key));
}

std::vector<std::string> optionalStringArray(const Object& o, const std::string& key,
                                             const std::string& path) {
  return stringsOf(optionalArray(o, key, path), fieldName(path, key));
}

Object objectAt(const Array& a, size_t index, const std::string& path) {
  Poco::Dynamic::Var v = a->get(static_cast<unsigned>(index));
  std::string name = path + "[" + std::to_string(index) + "]";
  if (v.type() != typeid(Object)) throw wrongType(name, "an object", v);
  return v.extract<Object>();
}

int requireInt(const Object& o, const std::string& key, const std::string& path) {
  auto v = present(o, key);
  if (!v) throw invalidArgument("missing required field " + fieldName(path, key));
  if (!isWholeNumber(*v)) throw wrongType(fieldName(path, key), "an integer", *v);
  return v->convert<int>();
}

int optionalIntInRange(const Object& o, const std::string& key, const std::string& path,
                       int fallback, int low, int high) {
  if (!present(o, key)) return fallback;
  int v = requireInt(o, key, path);
  if (v < low || v > high)
    throw invalidArgument("invalid field " + fieldName(path, key) + ": " + std::to_string(v) +
                          " is out of range: from " + std::to_string(low) + " to " +
                          std::to_string(high));
  return v;
}

std::optional<int64_t> optionalInt64String(const Object& o, const std::string& key,
                                           const std::string& path) {
  auto v = present(o, key);
  if (!v) return std::nullopt;
  std::string field = fieldName(path, key);
  if (v->isString()) return decimalOf(v->extract<std::string>(), field);
  if (isWholeNumber(*v)) return v->convert<int64_t>();
  throw wrongType(field, "a decimal integer string", *v);
}

int64_t decimalOf(const std::string& s, const std::string& field) {
  int64_t out = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw invalidArgument("invalid field " + field + ": \"" + s + "\" is not a decimal integer");
  return out;
}

bool isUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string requireUuid(const Object& o, const std::string& key, const std::string& path) {
  std::string s = requireString(o, key, path);
  if (!isUuid(s))
    throw invalidArgument("invalid field " + fieldName(path, key) + ": \"" + s +
                          "\" is not a UUID");
  return s;
}

Object timestamp(int64_t epochMs) {
  Object t = object();
  t->set("seconds", std::to_string(epochMs / 1000));
  t->set("nanos", std::to_string((epochMs % 1000) * 1000000));
  return t;
}

Array stringArray(const std::vector<std::string>& values) {
  Array a = array();
  for (const auto& v : values) a->add(v);
  return a;
}

}  // namespace signet::json
