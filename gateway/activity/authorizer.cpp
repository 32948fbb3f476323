#include "authorizer.hpp"

namespace signet {

Decision RootQuorumAuthorizer::decide(Db&, const ActivitySpec& spec, const Caller& caller,
                                      const std::string& organizationId, const json::Object&) {
  if (caller.inRootQuorum) return {Decision::Kind::kAllow, "root quorum"};
  return {Decision::Kind::kDeny, "implicit deny: user " + caller.userId + " of organization " +
                                     caller.organizationId +
                                     " is not in the root quorum and no policy allows " +
                                     spec.type + " in organization " + organizationId};
}

}  // namespace signet
