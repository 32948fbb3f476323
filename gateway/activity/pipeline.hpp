// The submit pipeline: envelope -> type lookup -> liveness -> caller -> idempotency ->
// authorization -> handler, with the activity row and the handler's writes in one transaction.
#pragma once

#include <string>
#include <string_view>

#include "activity/activity_store.hpp"
#include "activity/authorizer.hpp"
#include "auth/credential_resolver.hpp"
#include "gateway.hpp"

namespace signet {

struct Envelope {
  std::string type;
  int64_t timestampMs = 0;
  std::string organizationId;
  json::Object parameters;
  bool generateAppProofs = false;
};

// Parses the activity request body; keys in any order, null for unset optionals.
Envelope parseEnvelope(std::string_view body);

// Stamps are fresh when at most 1 hour old and at most 5 minutes ahead of the gateway clock.
inline constexpr int64_t kMaxStampAgeMs = 60 * 60 * 1000;
inline constexpr int64_t kMaxStampSkewMs = 5 * 60 * 1000;

class ActivityPipeline {
 public:
  ActivityPipeline(Gateway& gateway, Authorizer& authorizer)
      : gateway_(gateway), authorizer_(authorizer), resolver_(gateway.config()) {}

  // Returns {"activity": {...}}. Errors before the pipeline throw signet::Error; a denial or
  // an execution failure returns a FAILED activity.
  json::Object submit(const std::string& path, std::string_view body, const StampHeaders& headers,
                      const std::optional<VerifiedApiKeyStamp>& apiKey);

 private:
  const ActivitySpec& specFor(const std::string& path, const std::string& type) const;
  ActivityRecord execute(const ActivitySpec& spec, const Envelope& env, const Caller& caller,
                         const std::string& fingerprint, std::string_view body);

  Gateway& gateway_;
  Authorizer& authorizer_;
  CredentialResolver resolver_;
};

}  // namespace signet
