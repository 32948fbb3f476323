#include "tenancy/invitations.hpp"

#include "signet/contacts.hpp"
#include "tenancy/directory.hpp"

namespace signet::invitations {

const Shape<InvitationParameters> kInvitation = {
    field("receiverUserName", &InvitationParameters::receiverUserName, {.displayName = true}),
    field("receiverUserEmail", &InvitationParameters::receiverUserEmail),
    field("receiverUserTags", &InvitationParameters::receiverUserTags),
    field("accessType", &InvitationParameters::accessType),
    field("senderUserId", &InvitationParameters::senderUserId)};
const Shape<CreateInvitationsParameters> kCreateInvitations = {
    field("invitations", &CreateInvitationsParameters::invitations, kInvitation)};
const Shape<DeleteInvitationParameters> kDeleteInvitation = {
    field("invitationId", &DeleteInvitationParameters::invitationId)};

json::Object createInvitations(ActivityContext& ctx, const CreateInvitationsParameters& params) {
  const auto& list = params.invitations;
  if (list.empty())
    throw invalidArgument("invalid field parameters.invitations: must not be empty");
  Db& db = ctx.db();
  const std::string& org = ctx.organizationId();
  if (static_cast<size_t>(
          db.queryOne("SELECT COUNT(*) AS n FROM invitations WHERE organization_id = ?", {org})
              ->i64("n")) +
          list.size() >
      kMaxPerOrganization)
    throw resourceExhausted("organization " + org + " would have more than " +
                            std::to_string(kMaxPerOrganization) + " invitations, the limit");
  std::string organizationName = directory::requireOrganization(db, org).name;
  std::vector<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string f = "parameters.invitations[" + std::to_string(i) + "]";
    const InvitationParameters& inv = list[i];
    const std::string& name = inv.receiverUserName;
    if (name.empty()) throw invalidArgument("invalid field " + f + ".receiverUserName: empty");
    std::string email = validateEmail(inv.receiverUserEmail, f + ".receiverUserEmail");
    const auto& tags = inv.receiverUserTags;
    for (size_t t = 0; t < tags.size(); ++t)
      if (!db.queryOne("SELECT 1 FROM user_tags WHERE organization_id = ? AND id = ?",
                       {org, tags[t]}))
        throw notFound("user tag " + tags[t] + " (" + f + ".receiverUserTags[" + std::to_string(t) +
                       "]) not found in organization " + org);
    const std::string& access = inv.accessType;
    if (access != "ACCESS_TYPE_WEB" && access != "ACCESS_TYPE_API" && access != "ACCESS_TYPE_ALL")
      throw invalidArgument("invalid field " + f + ".accessType: \"" + access +
                            "\" (expected ACCESS_TYPE_WEB, ACCESS_TYPE_API or ACCESS_TYPE_ALL)");
    const std::string& senderId = inv.senderUserId;
    auto sender = directory::findUser(db, org, senderId);
    if (!sender)
      throw notFound("user " + senderId + " (" + f + ".senderUserId) not found in organization " +
                     org);
    std::string id = ctx.newId();
    db.exec(
        "INSERT INTO invitations (id, organization_id, sender_user_id, receiver_user_name, "
        "receiver_email, receiver_user_tags, access_type, created_at_ms) VALUES (?, ?, ?, ?, ?, "
        "?, ?, ?)",
        {id, org, senderId, name, email, json::stringify(json::stringArray(tags)), access,
         ctx.nowMs()});
    json::Object event = json::object();
    event->set("invitationId", id);
    event->set("organizationId", org);
    event->set("organizationName", organizationName);
    event->set("senderUserId", senderId);
    event->set("senderUserName", sender->name);
    event->set("receiverUserName", name);
    event->set("receiverUserEmail", email);
    event->set("accessType", access);
    ctx.publish(kEventInvitationCreated, event);
    ids.push_back(id);
  }
  json::Object r = json::object();
  r->set("invitationIds", json::stringArray(ids));
  return r;
}

bool remove(Db& db, const std::string& organizationId, const std::string& invitationId) {
  bool existed = db.queryOne("SELECT 1 FROM invitations WHERE organization_id = ? AND id = ?",
                             {organizationId, invitationId})
                     .has_value();
  db.exec("DELETE FROM invitations WHERE organization_id = ? AND id = ?",
          {organizationId, invitationId});
  return existed;
}

json::Object deleteInvitation(ActivityContext& ctx, const DeleteInvitationParameters& params) {
  const std::string& id = params.invitationId;
  if (!remove(ctx.db(), ctx.organizationId(), id))
    throw notFound("invitation " + id + " not found in organization " + ctx.organizationId());
  json::Object r = json::object();
  r->set("invitationId", id);
  return r;
}

}  // namespace signet::invitations
