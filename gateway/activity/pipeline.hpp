// The submit pipeline: envelope -> type lookup -> liveness -> caller -> idempotency ->
// authorization (the policy engine) -> handler, with the activity row, the handler's writes
// and the policy evaluation in one transaction. approve_activity and reject_activity vote on
// an activity waiting for consensus, which is re-evaluated and run once allowed.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "activity/activity_store.hpp"
#include "activity/authorizer.hpp"
#include "activity/handler_context.hpp"
#include "activity/rollout.hpp"
#include "auth/authenticator.hpp"
#include "gateway.hpp"
#include "signet/typed_parameters.hpp"

namespace signet {

struct Envelope {
  std::string type;
  int64_t timestampMs = 0;
  std::string organizationId;
  json::Object parameters;
  bool generateAppProofs = false;
};

// Parses the activity request body; keys in any order, null for unset optionals.
Envelope parseEnvelope(std::string_view body);

// Stamps are fresh when at most 1 hour old and at most 5 minutes ahead of the gateway clock.
inline constexpr int64_t kMaxStampAgeMs = 60 * 60 * 1000;
inline constexpr int64_t kMaxStampSkewMs = 5 * 60 * 1000;
// Approvals are taken for 24 hours after the submission (its first vote).
inline constexpr int64_t kApprovalWindowMs = 24 * 60 * 60 * 1000;

inline constexpr const char* kApproveActivity = "ACTIVITY_TYPE_APPROVE_ACTIVITY";
inline constexpr const char* kRejectActivity = "ACTIVITY_TYPE_REJECT_ACTIVITY";

class ActivityPipeline {
 public:
  ActivityPipeline(Gateway& gateway, Authorizer& authorizer, Authenticator& authenticator)
      : gateway_(gateway),
        authorizer_(authorizer),
        authenticator_(authenticator),
        rollout_(gateway) {}

  struct Submitted {
    json::Object response;    // {"activity": {...}}
    ResponseHeaders headers;  // a deprecated version's Deprecation, Sunset and Link
  };
  // Errors before the pipeline throw signet::Error (a version the rollout does not admit for
  // the organization among them); a denial or an execution failure returns a FAILED activity.
  // For approve/reject the activity returned is the one voted on, after the vote.
  // A submission whose only work left is its activity's write (a signature, decided and run on
  // a snapshot): the write, to be committed in a batch, and the answer once it is. Between the
  // two no thread need wait: the server posts the write and answers from its commit.
  struct Deferred {
    std::function<void(Db&)> write;
    std::function<Submitted()> answer;  // once `write` committed
  };
  using Started = std::variant<Submitted, Deferred>;
  // The submission of `stamp`'s request at /public/v1/submit/`path`: its answer, or the write
  // the answer waits for.
  Started start(const std::string& path, const PresentedStamp& stamp);

 private:
  // One submission on its way through the script that start() reads as (README.md walks it):
  // parse, authenticate, admit, then decide, execute and commit on a snapshot or in the write
  // batch, then respond. Each step takes the submission and adds what it found.
  struct Submission {
    // parse
    const ActivitySpec& spec;
    Envelope envelope;
    const PresentedStamp& stamp;
    std::string fingerprint;  // sha256 of the body: identical bodies are one activity
    int64_t now = 0;
    bool isVote = false;      // approve_activity or reject_activity
    bool onSnapshot = false;  // authenticated, admitted and decided on one read snapshot
    // authenticate
    Caller caller = {};
    // admit
    ResponseHeaders responseHeaders = {};
    std::optional<ActivityRecord> existing = {};  // the body was sent before: that activity
  };
  // The envelope, its type at this path, and its freshness; where the rest runs.
  Submission parse(const std::string& path, const PresentedStamp& stamp) const;
  // Who submits: the stamp's credential in the organization named, or (a passkey) below it.
  void authenticate(Submission& s, DirectoryView& directory);
  // Whether the version is open to the organization, whether the body is already an activity
  // (when `lookUpBody`), and the parameters' shapes. Throws what it refuses.
  void admit(Submission& s, DirectoryView& directory, bool lookUpBody);
  // A body sent before: its activity, with what it made for the submitter to read.
  ActivityRecord answerAgain(const Submission& s, ActivityRecord stored);
  // A new activity decided and run in the write batch (settle), its vote recorded first.
  ActivityRecord settleNew(const Submission& s);
  static Submitted respond(const Caller& caller, ResponseHeaders headers,
                           const ActivityRecord& record);

  const ActivitySpec& specFor(const std::string& path, const std::string& type) const;
  ActivityRecord vote(const Envelope& env, const Caller& caller, std::string_view body);
  // What settle()'s first step found in the transaction: a record to decide, or one already
  // settled, to be answered as it is (an identical request won the race, the same vote came
  // again, a rejection was just stored).
  enum class Prepared { kDecide, kSettled };
  // Decides `record` and runs its handler when allowed, in one transaction that first calls
  // `prepare`.
  ActivityRecord settle(const ActivitySpec& spec, ActivityRecord record, const Caller& submitter,
                        bool isNew, const std::function<Prepared(Db&, ActivityRecord&)>& prepare);
  // ActivitySpec::prepare, outside the write lock, on a read-only snapshot.
  void runPreparer(const ActivitySpec& spec, const Caller& caller,
                   const std::string& organizationId, const json::Object& parameters);
  // A new activity of a read-only type, decided and executed on a snapshot outside the write
  // lock, then stored in the write batch, whatever the decision. When the submission is
  // `onSnapshot`, it is authenticated and admitted on that same snapshot first.
  // What is stored is its row and what the decision made (ReadOnlyRun): deferred to the
  // caller unless the handler left calls to make once it is committed.
  Started runReadOnly(Submission& s);
  struct ReadOnlyRun;
  // The snapshot's part: false when there is nothing to write (a body stored before, whose
  // activity run.record now is).
  bool decideOnSnapshot(Submission& s, ReadOnlyRun& run);
  // The activity's reads sent ahead on the snapshot, before its first statement
  // (ActivitySpec::readAhead), into the cache its facts and handler share.
  void sendReadsAhead(Db& db, const Submission& s, RequestCache& cache);
  // Before the write batch, on the request's thread: the decision recorded in the record and
  // the row's texts made, when the batch writes the record as it is (no secret to redact or
  // seal), so that the committing thread only binds them.
  void textsAhead(const ActivitySpec& spec, ReadOnlyRun& run);
  // The write batch's part: the row, unless an identical request stored its own meanwhile.
  void storeReadOnly(Db& db, const ActivitySpec& spec, ReadOnlyRun& run);
  // `cache` is what the facts hooks keep for the handler: one per decision and the execution
  // that follows it on the same Db (a new one for each try of a transaction). The decision reads
  // `directory`'s Db, through the directory cache on a snapshot only.
  // The MFA factors counted are the record's presentations, the vote being cast's included.
  Decision decide(DirectoryView& directory, const ActivitySpec& spec, const ActivityRecord& record,
                  const Caller& submitter, RequestCache& cache);
  // Gives the record the status a decision other than an allow means (FAILED with the denial,
  // CONSENSUS_NEEDED, AUTHENTICATORS_NEEDED); true when it allows the handler to run.
  static bool applyDecision(ActivityRecord& record, const Decision& decision);
  // Runs the handler and records its result; throws what the handler threw.
  // An activity with network calls to make is left PENDING for runAfterCommit.
  void execute(Db& db, const ActivitySpec& spec, ActivityRecord& record, const Caller& submitter,
               RequestCache& cache, std::vector<std::function<void(Db&)>>& failureWrites,
               std::vector<HandlerContext::AfterCommit>& calls);
  // Makes a committed PENDING activity's network calls, outside the write lock, and stores it
  // COMPLETED, or FAILED with its undo writes when a call fails; what the calls keep, either way.
  void runAfterCommit(const ActivitySpec& spec, ActivityRecord& record,
                      const std::vector<HandlerContext::AfterCommit>& calls);
  // The failure to store for the exception being handled (an unexpected one is logged). The
  // store's own (StoreUnavailable) is rethrown: the request fails, not the activity.
  static Error executionFailure(const ActivitySpec& spec, const ActivityRecord& record);
  static void fail(ActivityRecord& record, const Error& failure);
  // What handlers asked to keep even though their activity failed (ActivityContext::onFailure).
  void runFailureWrites(const std::vector<std::function<void(Db&)>>& writes);
  // The activity stored with this fingerprint, read afresh: what answers a body an identical
  // request stored first.
  std::optional<ActivityRecord> storedActivity(const std::string& fingerprint);
  // How persist writes the activity's own row.
  enum class RowWrite {
    kInsertUnlessStored,  // a new activity; nothing at all when the fingerprint is stored
    // The same, without waiting for the row's answer where nothing else needs it: its event is
    // written, or `lost` called (the fingerprint was stored), once the batch's writes are sent
    // (Database::afterWrites). Where the row's secrets are sealed it waits, as the first does.
    kSendUnlessStored,
    kUpdate,
  };
  // Writes the record, its policy evaluation and MFA statuses; false when `row` is
  // kInsertUnlessStored (or kSendUnlessStored, waiting) and an activity with the record's
  // fingerprint is already stored. `parent`: the organization's parent, when read already
  // (recordActivityEvent). `lost`: kSendUnlessStored's, which must outlive the batch's writes,
  // as `record` must.
  // `texts`: the row's, made before the write (textsAhead), with the decision recorded in the
  // record already.
  bool persist(Db& db, const ActivitySpec& spec, ActivityRecord& record, RowWrite row,
               const Decision& decision, const std::optional<std::string>& parent = std::nullopt,
               const std::function<void(Db&)>& lost = {},
               const activities::RowTexts* texts = nullptr);
  // The activity's row as stored (with its secret results redacted and sealed) and its event;
  // false as persist says.
  bool writeRow(Db& db, const ActivitySpec& spec, const ActivityRecord& record, RowWrite row,
                const std::string& before, const std::optional<std::string>& parent = std::nullopt,
                const std::function<void(Db&)>& lost = {},
                const activities::RowTexts* texts = nullptr);

  Gateway& gateway_;
  Authorizer& authorizer_;
  Authenticator& authenticator_;
  RolloutGate rollout_;
};

// approve_activity's and reject_activity's parameters: the activity voted on. The pipeline runs
// votes itself, so the core registers kVote's specs and a handler that is never called.
struct VoteParameters {
  std::string fingerprint;
};
extern const Shape<VoteParameters> kVote;
json::Object votesAreRunByThePipeline(ActivityContext&, const json::Object&);

}  // namespace signet
