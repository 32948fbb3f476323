#include "signet/parameter_shape.hpp"

#include <Poco/Exception.h>

#include <algorithm>

#include "signet/encoding.hpp"

namespace signet {

namespace {

const char* describe(ParamType type) {
  switch (type) {
    case ParamType::kString:
      return "a string";
    case ParamType::kBool:
      return "a boolean";
    case ParamType::kInteger:
      return "an integer";
    case ParamType::kObject:
      return "an object";
    case ParamType::kArray:
      return "an array";
    case ParamType::kUuid:
      return "a UUID string";
    case ParamType::kDecimal:
      return "a decimal integer string";
  }
  return "a value";
}

bool matches(ParamType type, const Poco::Dynamic::Var& v) {
  switch (type) {
    case ParamType::kString:
      return v.isString();
    case ParamType::kBool:
      return v.isBoolean();
    case ParamType::kInteger:
      return json::isWholeNumber(v);
    case ParamType::kObject:
      return v.type() == typeid(Poco::JSON::Object::Ptr);
    case ParamType::kArray:
      return v.type() == typeid(Poco::JSON::Array::Ptr);
    case ParamType::kUuid:
      return v.isString() && json::isUuid(v.extract<std::string>());
    case ParamType::kDecimal:
      return json::isWholeNumber(v) || v.isString();  // the string's digits: decimalOf
  }
  return false;
}

// A name as a message shows it: as sent when it is short printable ASCII without a quote or a
// backslash; otherwise quoted, every other byte as \xNN and cut at 100 bytes (marked "..."), so
// that a stranger's bytes can neither forge a line of a log nor pass for another name.
std::string shownName(const std::string& name) {
  auto plainByte = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; };
  if (name.size() <= 100 && std::all_of(name.begin(), name.end(), plainByte)) return name;
  return "\"" + escapeBytes(std::string_view(name).substr(0, 100), plainByte) +
         (name.size() > 100 ? "...\"" : "\"");
}

}  // namespace

void checkParameter(const ParamSpec& p, const Poco::Dynamic::Var& v, const std::string& field) {
  // Null is absent, as the json:: helpers a handler reads with take it: an optional field a
  // client sends as null is accepted, and a required one is missing.
  if (v.isEmpty()) {
    if (p.required) throw invalidArgument("missing required field " + field);
    return;
  }
  if (!matches(p.type, v))
    throw invalidArgument("invalid field " + field + ": expected " + describe(p.type) + ", got " +
                          json::kindOf(v));
  if (v.isString()) {
    const auto& text = v.extract<std::string>();
    if (p.maxLength && (text.empty() || text.size() > p.maxLength))
      throw invalidArgument("invalid field " + field + ": must be 1 to " +
                            std::to_string(p.maxLength) + " bytes, got " +
                            std::to_string(text.size()));
    if (p.displayName) json::requireNoControls(text, field);
    if (p.type == ParamType::kDecimal) json::decimalOf(text, field);
  } else if (p.type == ParamType::kInteger || p.type == ParamType::kDecimal) {
    // A JSON number past int64 (2^63 to 2^64 - 1) is an integer to Poco, but no handler can
    // read it.
    try {
      v.convert<int64_t>();
    } catch (const Poco::RangeException&) {
      throw invalidArgument("invalid field " + field + ": " + v.toString() +
                            " is out of range for a 64-bit integer");
    }
  }
  if (p.type == ParamType::kObject) {
    const auto& object = v.extract<Poco::JSON::Object::Ptr>();
    checkParameterShapes(p.fields, object, field);
    if (p.closed) checkNoOtherFields(p.fields, object, field);
  } else if (p.type == ParamType::kArray && (p.elements || !p.fields.empty())) {
    // Each element is checked as a required field of the element's type, with the array's
    // length bound and, for objects, its fields.
    ParamSpec element{.name = p.name,
                      .type = p.fields.empty() ? *p.elements : ParamType::kObject,
                      .maxLength = p.maxLength,
                      .displayName = p.displayName,
                      .fields = p.fields,
                      .closed = p.closed};
    const auto& items = *v.extract<Poco::JSON::Array::Ptr>();
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string at = field + "[" + std::to_string(i) + "]";
      const auto& item = items.get(i);
      if (item.isEmpty())  // an element is not optional: a null in a list is of the wrong type
        throw invalidArgument("invalid field " + at + ": expected " + describe(element.type) +
                              ", got null");
      checkParameter(element, item, at);
    }
  }
}

void checkParameterShapes(const std::vector<ParamSpec>& shapes, const json::Object& parameters,
                          const std::string& path) {
  for (const auto& p : shapes)
    checkParameter(p, parameters->has(p.name) ? parameters->get(p.name) : Poco::Dynamic::Var(),
                   path + "." + p.name);
}

void checkNoOtherFields(const std::vector<ParamSpec>& shapes, const json::Object& parameters,
                        const std::string& path) {
  for (const auto& name : parameters->getNames()) {
    bool declared = false;
    for (const auto& p : shapes) declared |= p.name == name;
    if (declared) continue;
    std::string names;
    for (const auto& p : shapes) names += (names.empty() ? "" : ", ") + p.name;
    throw invalidArgument("invalid field " + path + "." + shownName(name) +
                          ": no such field; the fields are " + names);
  }
}

}  // namespace signet
