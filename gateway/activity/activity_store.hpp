// The activity record: stored once per fingerprint, rendered as the v1Activity shape.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "activity/vote_users.hpp"
#include "mfa/mfa_store.hpp"
#include "signet/pagination.hpp"
#include "signet/plugin.hpp"

namespace signet {

inline constexpr const char* kStatusCompleted = "ACTIVITY_STATUS_COMPLETED";
// Executed and committed, waiting for its network calls (ActivityContext::afterCommit).
inline constexpr const char* kStatusPending = "ACTIVITY_STATUS_PENDING";
inline constexpr const char* kStatusFailed = "ACTIVITY_STATUS_FAILED";
inline constexpr const char* kStatusConsensusNeeded = "ACTIVITY_STATUS_CONSENSUS_NEEDED";
inline constexpr const char* kStatusRejected = "ACTIVITY_STATUS_REJECTED";
inline constexpr const char* kStatusAuthenticatorsNeeded = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED";

// One vote's evaluation of the policies, for get_policy_evaluations.
struct StoredEvaluation {
  std::string id;
  std::string voteId;
  json::Array evaluations;  // [{policyId, outcome}], as the decision made them
  int64_t createdAtMs = 0;
};

// An activity is one row (core migration 23): besides its votes, it carries each vote's policy
// evaluation and what each vote's stamp presented for MFA. A signature writes that row and
// nothing else of its own.
struct ActivityRecord {
  std::string id;
  std::string organizationId;
  std::string type;
  std::string status;
  std::string fingerprint;  // "sha256:" + hex of the request body
  json::Object intent;      // {<intentKey>: parameters}
  json::Object result;      // {<resultKey>: {...}} or {} when there is none
  json::Array votes;
  json::Object failure;  // {code, message, details} or null
  bool generateAppProofs = false;
  json::Array appProofs;  // v1AppProof[], or null
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
  std::vector<StoredEvaluation> evaluations;     // one a decision, oldest first
  std::vector<mfa::Presentation> presentations;  // one an approving vote, oldest first
  // Whether the two above were read with it (findByFingerprint), or are its own (a new
  // record): only then does update() write them.
  bool decisionLoaded = false;
};

// What list() gathers at most for one page, in characters of stored activity: past it the page
// ends early (with at least one activity) and the client's cursor continues from its last.
// A page of 100 activities of a megabyte each would otherwise be built whole in memory.
inline constexpr size_t kListPageCharacters = 2 << 20;

struct ActivityFilter {
  std::vector<std::string> statuses;
  std::vector<std::string> types;
  Pagination page;
  size_t maxCharacters = kListPageCharacters;
};

namespace activities {

std::string fingerprintOf(std::string_view body);
std::optional<ActivityRecord> findByFingerprint(Db& db, const std::string& fingerprint);
// The same, read to be changed by this transaction: on PostgreSQL the row is locked until it
// commits, so that another gateway's (or write lane's) vote on the activity waits and then
// reads this one's instead of writing over it. SQLite has one writer: a plain read.
std::optional<ActivityRecord> findByFingerprintToChange(Db& db, const std::string& fingerprint);
std::optional<ActivityRecord> find(Db& db, const std::string& organizationId,
                                   const std::string& id);
void insert(Db& db, const ActivityRecord& record);
// The texts a new activity's row is written with: its JSON made into text, and its votes as
// stored (their users apart). Made once from the record; the read-only way makes them on the
// request's thread, so that the committing thread, whose batches set the rate of writes, only
// binds them (docs/performance.md, the ninth measure).
struct RowTexts {
  std::string intent;
  std::optional<std::string> result, failure, appProofs;  // none where the record holds none
  vote_users::StoredVotes votes;
  std::string evaluations, presentations;
  // What the row's write hands the triggers its insert fires (store/given_texts.hpp): the
  // activity log's leaf, where the caller made it (ActivityPipeline::textsAhead).
  std::vector<std::pair<std::string, std::string>> given;
};
RowTexts rowTexts(const ActivityRecord& record);
// Inserts the activity, written with `texts` (the record's), unless one with its fingerprint is
// already stored (an identical request committed first): then it writes nothing and returns
// false. The unique index on fingerprints decides, so no read comes before the write.
bool insertUnlessStored(Db& db, const ActivityRecord& record, const RowTexts& texts);
// The same, sent without waiting for its answer (Db::queryAhead): on PostgreSQL it goes with
// whatever the connection sends next. The answer holds one row when the activity was inserted,
// none when its fingerprint was stored already. Only for a row nothing needs to follow until
// that answer is read (GroupCommit::afterWrites).
std::shared_ptr<RowsAhead> sendUnlessStored(Db& db, const ActivityRecord& record,
                                            const RowTexts& texts);
// The stored status of an activity ("" when there is none).
std::string storedStatus(Db& db, const std::string& id);
// Writes status, result, votes, failure and updated_at of an existing activity.
void update(Db& db, const ActivityRecord& record);
// Whether the organization has an activity with this id.
bool exists(Db& db, const std::string& organizationId, const std::string& id);
// Record in the activity, to be stored with it, the policies' evaluation of its vote `voteId`
// and what a vote's stamp presented for MFA. Each replaces what the record holds for the same
// vote, so that a write run again (a retried transaction, a batch) records each vote once.
void recordEvaluation(ActivityRecord& record, const std::string& voteId,
                      const json::Array& evaluations, int64_t nowMs);
void recordPresentation(ActivityRecord& record, const mfa::Presentation& presented);
// An activity's recorded evaluations, oldest first (none when it has no such activity).
std::vector<StoredEvaluation> evaluationsOf(Db& db, const std::string& organizationId,
                                            const std::string& activityId);
// Newest first. `after` continues past a cursor (older), `before` returns those in front of it
// (newer), both still newest first.
std::vector<ActivityRecord> list(Db& db, const std::string& organizationId,
                                 const ActivityFilter& filter);
// v1Activity; canApprove/canReject are computed for `viewer`.
json::Object toJson(const ActivityRecord& record, const Caller& viewer);
json::Object failureJson(Code code, const std::string& message);

}  // namespace activities
}  // namespace signet
