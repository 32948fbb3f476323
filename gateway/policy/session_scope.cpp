#include "policy/session_scope.hpp"

#include "activity/handler_context.hpp"
#include "policy/evaluator.hpp"
#include "tenancy/directory.hpp"

namespace signet::policy {

std::optional<std::string> sessionScopeRefusal(Gateway& gateway, DirectoryView& directory,
                                               const json::Object& vote,
                                               const std::function<const Fields&()>& facts) {
  if (vote->getValue<std::string>("scheme").rfind("SIGNATURE_SCHEME_TK_API_", 0) != 0)
    return std::nullopt;  // passkeys and attested stamps are not session keys of a profile
  auto key = directory.apiKeyOfUser(vote->getValue<std::string>("userId"),
                                    vote->getValue<std::string>("publicKey"));
  if (!key || !key->sessionProfileId) return std::nullopt;
  const std::string organizationId = key->organizationId, profileId = *key->sessionProfileId;
  const std::string who = "session of profile " + profileId;
  const auto& lookup = gateway.catalog().services().sessionProfileScope;
  if (!lookup) return who + ": no enabled module keeps session profiles to read its scope";
  Caller nobody;
  HandlerContext ctx(gateway, directory.db(), nobody, organizationId);
  auto scope = lookup(ctx, organizationId, profileId);
  if (!scope) return who + ": the profile no longer exists";
  if (scope->empty()) return std::nullopt;  // an empty condition holds for every activity
  try {
    if (evaluateCondition(*parse(*scope), facts())) return std::nullopt;
    return who + ": its scope does not allow this activity";
  } catch (const std::exception& e) {  // an evaluation error, or a scope that does not parse
    return who + ": its scope errored " + e.what();
  }
}

}  // namespace signet::policy
