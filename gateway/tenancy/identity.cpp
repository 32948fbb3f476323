#include "identity.hpp"

#include "tenancy/directory.hpp"

namespace signet::identity {

json::Object whoami(RequestContext& ctx, const json::Object&) {
  // The organization the credential belongs to, which may be the target's parent.
  const Caller& c = ctx.caller();
  auto org = directory::requireOrganization(ctx.db(), c.organizationId);
  json::Object out = json::object();
  out->set("organizationId", org.id);
  out->set("organizationName", org.name);
  out->set("userId", c.userId);
  out->set("username", c.userName);
  return out;
}

json::Object getUser(RequestContext& ctx, const json::Object& body) {
  std::string userId = json::requireString(body, "userId", "");
  auto user = directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  json::Object out = json::object();
  out->set("user", userJson(ctx.db(), user));
  return out;
}

}  // namespace signet::identity
