// Invitations to join an organization (create_invitations, delete_invitation). The core keeps
// them and publishes kEventInvitationCreated in the activity's transaction; the module that
// sends email (sessions) delivers them after the commit.
#pragma once

#include "signet/plugin.hpp"

namespace signet::invitations {

inline constexpr size_t kMaxPerOrganization = 100;

json::Object createInvitations(ActivityContext& ctx, const json::Object& params);
json::Object deleteInvitation(ActivityContext& ctx, const json::Object& params);
bool remove(Db& db, const std::string& organizationId, const std::string& invitationId);

}  // namespace signet::invitations
