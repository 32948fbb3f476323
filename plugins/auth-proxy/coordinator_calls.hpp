// The proxy's requests to the coordinator: activities and queries through the public API,
// stamped with the configuration's proxy API key. An activity that does not complete becomes
// an error the client can act on; the coordinator's own errors pass through unchanged, since
// clients match on their messages ("Invalid OTP code", "Max number of OTPs have been
// initiated", ...).
#pragma once

#include <string>

#include "config_source.hpp"
#include "signet/client.hpp"

namespace auth_proxy {

class CoordinatorCalls {
 public:
  CoordinatorCalls(const Coordinator& coordinator, const LoadedConfig& config);

  // Submits and returns the COMPLETED activity. A FAILED activity throws its failure's message;
  // CONSENSUS_NEEDED and AUTHENTICATORS_NEEDED throw FailedPrecondition saying what is missing.
  signet::json::Object activity(const std::string& path, const std::string& type,
                                const std::string& organizationId,
                                const signet::json::Object& parameters) const;
  // The activity's result under `resultKey`.
  signet::json::Object result(const std::string& path, const std::string& type,
                              const std::string& organizationId,
                              const signet::json::Object& parameters,
                              const std::string& resultKey) const;
  signet::json::Object query(const std::string& op, const signet::json::Object& body) const;

 private:
  signet::Client client_;
};

}  // namespace auth_proxy
