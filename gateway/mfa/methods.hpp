// Authentication methods of MFA policies: the ordered steps a policy requires, each met by any
// one of its methods, and what a method pinned by id accepts. Which stamp presents which method
// is presentation.hpp's business.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "signet/typed_parameters.hpp"

namespace signet::mfa {

inline constexpr const char* kPasskey = "AUTHENTICATION_TYPE_PASSKEY";
inline constexpr const char* kApiKey = "AUTHENTICATION_TYPE_API_KEY";
inline constexpr const char* kSession = "AUTHENTICATION_TYPE_SESSION";
inline constexpr const char* kEmailOtp = "AUTHENTICATION_TYPE_EMAIL_OTP";
inline constexpr const char* kSmsOtp = "AUTHENTICATION_TYPE_SMS_OTP";
inline constexpr const char* kOauth = "AUTHENTICATION_TYPE_OAUTH";

// Credentials of these types present API_KEY; every other key (logins, sessions) presents
// SESSION. One prefix, read by the SQL that checks a user has one and by the classifier.
inline constexpr std::string_view kApiKeyCredentialPrefix = "CREDENTIAL_TYPE_API_KEY_";
inline bool isApiKeyType(std::string_view credentialType) {
  return credentialType.substr(0, kApiKeyCredentialPrefix.size()) == kApiKeyCredentialPrefix;
}

// The session a login without a session profile issues, as MFA policies name it.
inline constexpr const char* kDefaultSessionProfileId = "00000000-0000-0000-0000-000000000000";

inline constexpr size_t kMaxSteps = 10;
inline constexpr size_t kMaxMethodsPerStep = 10;

struct Method {
  std::string type;  // AUTHENTICATION_TYPE_*
  std::string id;    // empty: any method of the type
  bool operator==(const Method&) const = default;
};
using Step = std::vector<Method>;  // any one of them meets the step

// requiredAuthenticationMethods as sent: [{any: [{type, id?}]}].
struct MethodParameters {
  std::string type;
  std::optional<std::string> id;
};
struct StepParameters {
  std::vector<MethodParameters> any;
};
// Made on first use: the MFA policy shapes nest it (typed_parameters.hpp).
const Shape<StepParameters>& stepShape();

// The steps `steps` lists: checks types, that email and SMS OTP carry no id, and the limits;
// InvalidArgument naming `field` (where the list sits) otherwise.
std::vector<Step> parseSteps(const std::vector<StepParameters>& steps, const std::string& field);
json::Array stepsJson(const std::vector<Step>& steps);
// The stored form is stepsJson's text.
std::vector<Step> stepsFromText(const std::string& text);

json::Object methodJson(const Method& method);
// Whether a presented method meets a required one: the same type and, when the requirement
// pins an id, the same id.
bool meets(const Method& presented, const Method& required);
bool stepMet(const Step& step, const std::vector<Method>& presented);
// The name the refusals use: "Passkey", "API key", ...
std::string label(const std::string& type);

}  // namespace signet::mfa
