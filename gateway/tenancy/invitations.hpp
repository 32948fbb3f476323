// Invitations to join an organization (create_invitations, delete_invitation). The core keeps
// them and publishes kEventInvitationCreated in the activity's transaction; the module that
// sends email (sessions) delivers them after the commit.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::invitations {

inline constexpr size_t kMaxPerOrganization = 100;

struct InvitationParameters {
  std::string receiverUserName, receiverUserEmail, accessType, senderUserId;
  std::vector<std::string> receiverUserTags;
};
struct CreateInvitationsParameters {
  std::vector<InvitationParameters> invitations;
};
struct DeleteInvitationParameters {
  std::string invitationId;
};
extern const Shape<CreateInvitationsParameters> kCreateInvitations;
extern const Shape<DeleteInvitationParameters> kDeleteInvitation;

json::Object createInvitations(ActivityContext& ctx, const CreateInvitationsParameters& params);
json::Object deleteInvitation(ActivityContext& ctx, const DeleteInvitationParameters& params);
bool remove(Db& db, const std::string& organizationId, const std::string& invitationId);

}  // namespace signet::invitations
