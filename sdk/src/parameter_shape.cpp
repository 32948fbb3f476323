#include "signet/parameter_shape.hpp"

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
  }
  return "a value";
}

std::string kindOf(const Poco::Dynamic::Var& v) {
  if (v.isEmpty()) return "null";
  if (v.isString()) return "a string";
  if (v.isBoolean()) return "a boolean";
  if (v.isNumeric()) return "a number";
  if (v.type() == typeid(Poco::JSON::Array::Ptr)) return "an array";
  if (v.type() == typeid(Poco::JSON::Object::Ptr)) return "an object";
  return "another type";
}

bool matches(ParamType type, const Poco::Dynamic::Var& v) {
  switch (type) {
    case ParamType::kString:
      return v.isString();
    case ParamType::kBool:
      return v.isBoolean();
    case ParamType::kInteger:
      return v.isInteger();
    case ParamType::kObject:
      return v.type() == typeid(Poco::JSON::Object::Ptr);
    case ParamType::kArray:
      return v.type() == typeid(Poco::JSON::Array::Ptr);
    case ParamType::kUuid:
      return v.isString() && json::isUuid(v.extract<std::string>());
  }
  return false;
}

}  // namespace

void checkParameterShapes(const std::vector<ParamSpec>& shapes, const json::Object& parameters) {
  for (const auto& p : shapes) {
    const std::string field = "parameters." + p.name;
    // Null is absent, as the json:: helpers a handler reads with take it: an optional field a
    // client sends as null is accepted, and a required one is missing.
    auto v = parameters->has(p.name) ? parameters->get(p.name) : Poco::Dynamic::Var();
    if (v.isEmpty()) {
      if (p.required) throw invalidArgument("missing required field " + field);
      continue;
    }
    if (!matches(p.type, v))
      throw invalidArgument("invalid field " + field + ": expected " + describe(p.type) + ", got " +
                            kindOf(v));
    if (p.maxLength && v.isString()) {
      size_t size = v.extract<std::string>().size();
      if (size == 0 || size > p.maxLength)
        throw invalidArgument("invalid field " + field + ": must be 1 to " +
                              std::to_string(p.maxLength) + " bytes, got " + std::to_string(size));
    }
  }
}

}  // namespace signet
