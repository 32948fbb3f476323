// Who may run an activity. The policy engine will implement this interface; until it lands
// the rule is the placeholder below: root-quorum users are allowed, anyone else is implicitly
// denied, and the denial is stored as a FAILED activity that says why.
#pragma once

#include <string>

#include "signet/plugin.hpp"

namespace signet {

struct Decision {
  enum class Kind { kAllow, kDeny, kConsensusNeeded };
  Kind kind = Kind::kDeny;
  std::string reason;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Decision decide(Db& db, const ActivitySpec& spec, const Caller& caller,
                          const std::string& organizationId, const json::Object& parameters) = 0;
};

class RootQuorumAuthorizer : public Authorizer {
 public:
  Decision decide(Db& db, const ActivitySpec& spec, const Caller& caller,
                  const std::string& organizationId, const json::Object& parameters) override;
};

}  // namespace signet
