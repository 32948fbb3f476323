#include "mfa/methods.hpp"

#include <algorithm>
#include <array>

#include "signet/error.hpp"

namespace signet::mfa {

namespace {
struct Kind {
  const char* type;
  const char* label;
  bool takesId;  // email and SMS OTP have no ids to pin
};
constexpr std::array<Kind, 6> kKinds{{
    {kPasskey, "Passkey", true},
    {kApiKey, "API key", true},
    {kSession, "Session", true},
    {kEmailOtp, "Email OTP", false},
    {kSmsOtp, "SMS OTP", false},
    {kOauth, "OAuth", true},
}};

const Kind* kindOf(const std::string& type) {
  for (const auto& k : kKinds)
    if (type == k.type) return &k;
  return nullptr;
}

std::string expectedTypes() {
  std::string out;
  for (const auto& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.type);
  return out;
}
}  // namespace

const Shape<StepParameters>& stepShape() {
  static const Shape<MethodParameters> method = {field("type", &MethodParameters::type),
                                                 field("id", &MethodParameters::id)};
  static const Shape<StepParameters> step = {field("any", &StepParameters::any, method)};
  return step;
}

std::vector<Step> parseSteps(const std::vector<StepParameters>& steps, const std::string& field) {
  if (steps.empty())
    throw invalidArgument("invalid field " + field + ": must list at least one step");
  if (steps.size() > kMaxSteps)
    throw invalidArgument("invalid field " + field + ": " + std::to_string(steps.size()) +
                          " steps, at most " + std::to_string(kMaxSteps));
  std::vector<Step> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string stepField = field + "[" + std::to_string(i) + "]";
    const auto& any = steps[i].any;
    if (any.empty())
      throw invalidArgument("invalid field " + stepField + ".any: must list at least one method");
    if (any.size() > kMaxMethodsPerStep)
      throw invalidArgument("invalid field " + stepField + ".any: " + std::to_string(any.size()) +
                            " methods, at most " + std::to_string(kMaxMethodsPerStep));
    Step step;
    for (size_t j = 0; j < any.size(); ++j) {
      std::string methodField = stepField + ".any[" + std::to_string(j) + "]";
      Method method{any[j].type, any[j].id.value_or("")};
      const Kind* kind = kindOf(method.type);
      if (!kind)
        throw invalidArgument("invalid field " + methodField + ".type: \"" + method.type +
                              "\" (expected one of " + expectedTypes() + ")");
      if (!method.id.empty() && !kind->takesId)
        throw invalidArgument("invalid field " + methodField + ".id: " + kind->label +
                              " authenticators have no ids to pin, got \"" + method.id + "\"");
      step.push_back(std::move(method));
    }
    out.push_back(std::move(step));
  }
  return out;
}

json::Object methodJson(const Method& method) {
  json::Object o = json::object();
  o->set("type", method.type);
  if (!method.id.empty()) o->set("id", method.id);
  return o;
}

json::Array stepsJson(const std::vector<Step>& steps) {
  json::Array out = json::array();
  for (const auto& step : steps) {
    json::Array any = json::array();
    for (const auto& m : step) any->add(methodJson(m));
    json::Object o = json::object();
    o->set("any", any);
    out->add(o);
  }
  return out;
}

std::vector<Step> stepsFromText(const std::string& text) {
  const std::string field = "stored MFA steps";
  auto stored = json::parseArray(text, field);
  std::vector<StepParameters> steps;
  for (size_t i = 0; i < stored->size(); ++i)
    steps.push_back(
        stepShape().read(json::objectAt(stored, i, field), field + "[" + std::to_string(i) + "]"));
  return parseSteps(steps, field);
}

bool meets(const Method& presented, const Method& required) {
  return presented.type == required.type && (required.id.empty() || presented.id == required.id);
}

bool stepMet(const Step& step, const std::vector<Method>& presented) {
  return std::any_of(step.begin(), step.end(), [&](const Method& required) {
    return std::any_of(presented.begin(), presented.end(),
                       [&](const Method& p) { return meets(p, required); });
  });
}

std::string label(const std::string& type) {
  const Kind* kind = kindOf(type);
  return kind ? kind->label : type;
}

}  // namespace signet::mfa
