#include "identity.hpp"

#include "activity/handler_context.hpp"
#include "tenancy/directory.hpp"

namespace signet::identity {

namespace {
// Through the view the caller was resolved with, when the router passed one: resolving read
// this organization already, so the answer costs no statement.
OrganizationRecord requireOrganization(RequestContext& ctx, const std::string& id) {
  auto* handler = dynamic_cast<HandlerContext*>(&ctx);
  if (!handler || !handler->directory()) return directory::requireOrganization(ctx.db(), id);
  auto org = handler->directory()->organization(id);
  if (!org) throw notFound("organization " + id + " not found");
  return *org;
}
}  // namespace

json::Object whoami(RequestContext& ctx, const json::Object&) {
  // The organization the credential belongs to, which may be the target's parent.
  const Caller& c = ctx.caller();
  auto org = requireOrganization(ctx, c.organizationId);
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
