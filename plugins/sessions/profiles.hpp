// Session profiles: a named scope and an optional lifetime that logins can ask for
// (create_session_profile, get_session_profile, get_session_profiles). A login with a
// profile lives min(intent, profile) and carries the profile's name, id and scope.
#pragma once

#include <optional>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace sessions {

inline constexpr size_t kMaxProfilesPerOrganization = 100;

struct Profile {
  std::string id;
  std::string name;
  std::string scope;
  std::optional<int64_t> expirationSeconds;
  std::string notes;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

Profile requireProfile(signet::RequestContext& ctx, const std::string& organizationId,
                       const std::string& profileId);
// The plugin's SessionProfileLookup: a profile's scope, or nullopt when there is none.
std::optional<std::string> profileScope(signet::RequestContext& ctx,
                                        const std::string& organizationId,
                                        const std::string& profileId);

struct CreateSessionProfileParameters {
  std::string sessionProfileName, scope;
  std::optional<int64_t> expirationSeconds;
  std::optional<std::string> notes;
};
extern const signet::Shape<CreateSessionProfileParameters> kCreateSessionProfile;

signet::json::Object createSessionProfile(signet::ActivityContext& ctx,
                                          const CreateSessionProfileParameters& params);
signet::json::Object getSessionProfile(signet::RequestContext& ctx,
                                       const signet::json::Object& body);
signet::json::Object getSessionProfiles(signet::RequestContext& ctx,
                                        const signet::json::Object& body);

}  // namespace sessions
