// What MFA keeps (deleted with their user or organization by tenancy/directory.cpp): each
// user's MFA policies and each activity's latest MFA status per voter for get_mfa_status. What
// every vote's stamp presented (classified when the vote was cast, since keys expire and
// sessions end) is a Presentation, kept in the activity's own row (activity/activity_store.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mfa/methods.hpp"
#include "signet/db.hpp"

namespace signet::mfa {

struct MfaPolicyRecord {
  std::string id;
  std::string organizationId;
  std::string userId;
  std::string name;
  std::string condition;
  std::vector<Step> steps;
  int64_t order = 0;
  std::string notes;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

// A user's policies in evaluation order: lowest `order` first, then oldest.
std::vector<MfaPolicyRecord> policiesOfUser(Db& db, const std::string& userId);
std::optional<MfaPolicyRecord> findPolicy(Db& db, const std::string& organizationId,
                                          const std::string& userId, const std::string& id);
void insertPolicy(Db& db, const MfaPolicyRecord& p);
void updatePolicy(Db& db, const MfaPolicyRecord& p);
void deletePolicy(Db& db, const std::string& id);
json::Object policyJson(const MfaPolicyRecord& p);

struct Presentation {
  std::string voteId;
  std::string userId;
  Method method;
};

// Replaces the activity's stored statuses (v1MfaStatus objects, one per voter an MFA policy
// applies to).
void storeStatuses(Db& db, const std::string& activityId, const std::string& organizationId,
                   const json::Array& statuses);
json::Array statusesOf(Db& db, const std::string& organizationId, const std::string& activityId,
                       const std::optional<std::string>& userId);

}  // namespace signet::mfa
