#include "pipeline.hpp"

#include <Poco/Logger.h>

#include "activity/activity_events.hpp"
#include "activity/handler_context.hpp"
#include "activity/secret_parameters.hpp"
#include "activity/secret_results.hpp"
#include "auth/attested_stamp.hpp"
#include "log/activity_log.hpp"
#include "mfa/mfa_store.hpp"
#include "mfa/presentation.hpp"
#include "plugins/plugin_guard.hpp"
#include "signet/metrics.hpp"
#include "signet/parameter_shape.hpp"
#include "store/sql_connection.hpp"
#include "tenancy/contacts.hpp"
#include "tenancy/directory.hpp"

namespace signet {

namespace {

// Thrown out of a new activity's run when an identical request (another write lane's, another
// gateway's) stored the same body first: the run's writes roll back, and that activity answers.
struct LostToIdentical {};
// `directory` reads the voter as the vote shows them: through the cache on a snapshot, from the
// store inside a write transaction.
json::Object voteJson(DirectoryView& directory, const Caller& caller, const std::string& activityId,
                      const std::string& selection, std::string_view body, int64_t nowMs) {
  json::Object vote = json::object();
  vote->set("id", crypto::uuidV7(nowMs));
  vote->set("userId", caller.userId);
  vote->set("user", directory.userJson(caller.organizationId, caller.userId));
  vote->set("activityId", activityId);
  vote->set("selection", selection);
  vote->set("message", std::string(body));
  vote->set("publicKey", caller.publicKey);
  vote->set("signature", caller.signature);
  vote->set("scheme", caller.scheme);
  vote->set("createdAt", json::timestamp(nowMs));
  return vote;
}

std::string lastVoteId(const ActivityRecord& r) {
  return r.votes->getObject(static_cast<unsigned>(r.votes->size() - 1))
      ->getValue<std::string>("id");
}

// One policy decision for signet_policy_outcomes_total, counted once the activity it decided is
// committed: a run rolled back (lost to an identical request, refused as bad input) decided
// nothing that is kept.
void countOutcome(const Decision& d) {
  static const char* const names[] = {"ALLOW", "DENY", "CONSENSUS_NEEDED", "AUTHENTICATORS_NEEDED"};
  Metrics::global().count("signet_policy_outcomes_total",
                          {{"outcome", names[static_cast<int>(d.kind)]}});
}

// Records in the activity what the last vote's stamp presented (mfa::presentedBy), for the
// voter's MFA policies; `directory` reads the credential.
void recordPresentation(DirectoryView& directory, ActivityRecord& r, const Caller& caller) {
  activities::recordPresentation(
      r, {lastVoteId(r), caller.userId, mfa::presentedBy(directory, caller)});
}

// Whether the user's MFA on this activity still waits for factors, as last evaluated.
bool mfaPending(Db& db, const ActivityRecord& r, const std::string& userId) {
  auto statuses = mfa::statusesOf(db, r.organizationId, r.id, userId);
  return statuses->size() > 0 && !statuses->getObject(0)->getValue<bool>("satisfied");
}

bool presentedBefore(const ActivityRecord& r, const Caller& caller) {
  for (size_t i = 0; i < r.votes->size(); ++i) {
    auto v = r.votes->getObject(static_cast<unsigned>(i));
    if (v->getValue<std::string>("userId") == caller.userId &&
        v->getValue<std::string>("publicKey") == caller.publicKey)
      return true;
  }
  return false;
}

bool hasVoted(const ActivityRecord& r, const std::string& userId) {
  for (size_t i = 0; i < r.votes->size(); ++i)
    if (r.votes->getObject(static_cast<unsigned>(i))->getValue<std::string>("userId") == userId)
      return true;
  return false;
}

// The submitter, as the first vote recorded them, for running the handler after approval.
Caller submitterOf(Db& db, const ActivityRecord& r) {
  auto first = r.votes->getObject(0);
  Caller c;
  c.userId = first->getValue<std::string>("userId");
  c.publicKey = first->getValue<std::string>("publicKey");
  c.scheme = first->getValue<std::string>("scheme");
  c.signature = first->getValue<std::string>("signature");
  // The submitter belongs to the activity's organization, or to its parent (a login).
  auto user = directory::findUser(db, r.organizationId, c.userId);
  if (!user)
    if (auto org = directory::findOrganization(db, r.organizationId); org && org->parentId)
      user = directory::findUser(db, *org->parentId, c.userId);
  if (user) {
    c.organizationId = user->organizationId;
    c.userName = user->name;
  }
  return c;
}
// A new activity's record, before it is decided.
ActivityRecord newRecord(const ActivitySpec& spec, const Envelope& env,
                         const std::string& fingerprint, int64_t now) {
  ActivityRecord record;
  // Time-ordered, so that the activity's rows land at the end of their indexes (uuidV7).
  record.id = crypto::uuidV7(now);
  record.organizationId = env.organizationId;
  record.type = spec.type;
  record.fingerprint = fingerprint;
  record.intent = json::object();
  record.intent->set(spec.intentKey, env.parameters);
  // Some SDKs put generateAppProofs among the parameters rather than beside them.
  record.generateAppProofs =
      env.generateAppProofs ||
      json::optionalBool(env.parameters, "generateAppProofs", "parameters", false);
  record.result = json::object();
  record.createdAtMs = record.updatedAtMs = now;
  record.decisionLoaded = true;  // its evaluations and presentations are its own, from here
  return record;
}
}  // namespace

const Shape<VoteParameters> kVote = {field("fingerprint", &VoteParameters::fingerprint)};

json::Object votesAreRunByThePipeline(ActivityContext&, const json::Object&) {
  throw internalError(
      "approve_activity and reject_activity are run by the pipeline, not a handler");
}

Envelope parseEnvelope(std::string_view body) {
  auto o = json::parseObject(body, "request body");
  Envelope e;
  e.type = json::requireString(o, "type", "");
  e.organizationId = json::requireUuid(o, "organizationId", "");
  auto ts = json::optionalInt64String(o, "timestampMs", "");
  if (!ts) throw invalidArgument("missing required field timestampMs");
  e.timestampMs = *ts;
  e.parameters = json::requireObject(o, "parameters", "");
  e.generateAppProofs = json::optionalBool(o, "generateAppProofs", "", false);
  return e;
}

const ActivitySpec& ActivityPipeline::specFor(const std::string& path,
                                              const std::string& type) const {
  auto specs = gateway_.catalog().activitiesAt(path);
  if (specs.empty()) throw gateway_.catalog().unservedPath("submit", path);
  std::string accepted;
  for (const auto* s : specs) {
    if (s->type == type) return *s;
    accepted += (accepted.empty() ? "" : ", ") + s->type;
  }
  throw invalidArgument("invalid field type: unknown activity type \"" + type +
                        "\" for /public/v1/submit/" + path + " (accepted: " + accepted + ")");
}

ActivityPipeline::Started ActivityPipeline::start(const std::string& path,
                                                  const PresentedStamp& stamp) {
  Submission s = parse(path, stamp);
  // Authenticated, admitted, decided and executed on one snapshot.
  if (s.onSnapshot) return runReadOnly(s);
  gateway_.database().read([&](Db& db) {
    DirectoryView directory(&gateway_.directoryCache(), db);
    authenticate(s, directory);
    admit(s, directory, /*lookUpBody=*/true);
  });
  ActivityRecord record;
  if (s.isVote) {
    record = vote(s.envelope, s.caller, s.stamp.body());
  } else if (s.existing) {
    record = answerAgain(s, std::move(*s.existing));
  } else {
    // Network calls the handler needs (an issuer's keys), before any lock is taken.
    if (s.spec.prepare)
      runPreparer(s.spec, s.caller, s.envelope.organizationId, s.envelope.parameters);
    // Decided and executed on a snapshot when the handler only reads, else in the write batch.
    if (s.spec.readOnly) return runReadOnly(s);
    record = settleNew(s);
  }
  return respond(s.caller, std::move(s.responseHeaders), record);
}

ActivityPipeline::Submission ActivityPipeline::parse(const std::string& path,
                                                     const PresentedStamp& stamp) const {
  const std::string_view body = stamp.body();
  Envelope env = parseEnvelope(body);
  const ActivitySpec& spec = specFor(path, env.type);
  int64_t now = gateway_.nowMs();
  if (env.timestampMs < now - kMaxStampAgeMs)
    throw invalidArgument("invalid field timestampMs: " + std::to_string(env.timestampMs) +
                          " is more than 1 hour old (gateway time " + std::to_string(now) + ")");
  if (env.timestampMs > now + kMaxStampSkewMs)
    throw invalidArgument("invalid field timestampMs: " + std::to_string(env.timestampMs) +
                          " is more than 5 minutes in the future (gateway time " +
                          std::to_string(now) + ")");
  const bool isVote = spec.type == kApproveActivity || spec.type == kRejectActivity;
  // A read-only activity without network calls to prepare is admitted on the snapshot it is
  // decided and executed on: one read transaction, and one read of the directory's generation.
  // Only with an API key's stamp: a passkey's assertion advances its stored counter, and an
  // attested stamp may spend what it presents, which are writes a snapshot refuses.
  const bool onSnapshot = spec.readOnly && !spec.prepare && !isVote && stamp.apiKey().has_value();
  return Submission{spec, std::move(env), stamp,     activities::fingerprintOf(body),
                    now,  isVote,         onSnapshot};
}

void ActivityPipeline::authenticate(Submission& s, DirectoryView& directory) {
  auto who = authenticator_.resolve(directory, s.stamp, s.envelope.organizationId, s.now);
  s.caller = who.caller;
  // A passkey found in a sub-organization of the named one acts there, and the activity
  // reports that sub-organization.
  s.envelope.organizationId = who.organizationId;
}

void ActivityPipeline::admit(Submission& s, DirectoryView& directory, bool lookUpBody) {
  // Whether this version is open to the organization: refused before anything is stored.
  s.responseHeaders = rollout_.admit(directory.db(), s.spec, s.envelope.organizationId);
  // On the snapshot the body is not looked up: its row is inserted unless the fingerprint is
  // stored, and a body that is stored answers with that activity then (runReadOnly). So the
  // lookup, a statement every signature paid, is paid only by a body sent again.
  if (lookUpBody) s.existing = activities::findByFingerprint(directory.db(), s.fingerprint);
  // Authenticated, and before any policy runs: a malformed intent is refused, nothing stored.
  checkParameterShapes(s.spec.parameters, s.envelope.parameters);
}

ActivityRecord ActivityPipeline::answerAgain(const Submission& s, ActivityRecord stored) {
  // Identical bodies are one activity: Rust re-POSTs while pending and Go retries 5xx.
  if (activities::hasSecretResults(s.spec))  // the submitter may read what it made
    gateway_.database().read([&](Db& db) {
      DbKeyring keyring(db, gateway_.masterKey());
      activities::openResults(db, keyring, std::span(&stored, 1));
    });
  return stored;
}

ActivityRecord ActivityPipeline::settleNew(const Submission& s) {
  // The general way's first step in the write transaction: the submitter's vote, and the
  // presentation of an attested submission (stamp_login), whose OTP factor counts without
  // spending the token: the handler spends it when the activity runs.
  auto prepareNew = [&](Db& db, ActivityRecord& r) {
    // A concurrent identical request may have won the race for this fingerprint.
    if (auto raced = activities::findByFingerprint(db, s.fingerprint)) {
      r = *raced;
      return Prepared::kSettled;
    }
    DirectoryView directory(nullptr, db);
    // From nothing, each time: the transaction may run this again.
    r.votes = json::array();
    r.presentations.clear();
    r.evaluations.clear();
    r.votes->add(voteJson(directory, s.caller, r.id, "VOTE_SELECTION_APPROVED", s.stamp.body(),
                          r.createdAtMs));
    recordPresentation(directory, r, s.caller);
    return Prepared::kDecide;
  };
  ActivityRecord fresh = newRecord(s.spec, s.envelope, s.fingerprint, s.now);
  const std::string id = fresh.id;
  ActivityRecord record = settle(s.spec, std::move(fresh), s.caller, true, prepareNew);
  // An identical request stored this body first (found when preparing, or when the row was
  // written): its activity answers, as it does a body sent again.
  if (record.id != id) return answerAgain(s, std::move(record));
  return record;
}

ActivityPipeline::Submitted ActivityPipeline::respond(const Caller& caller, ResponseHeaders headers,
                                                      const ActivityRecord& record) {
  json::Object response = json::object();
  response->set("activity", activities::toJson(record, caller));
  return {response, std::move(headers)};
}

void ActivityPipeline::runPreparer(const ActivitySpec& spec, const Caller& caller,
                                   const std::string& organizationId,
                                   const json::Object& parameters) {
  // On a read-only snapshot: what the preparer reads is consistent, and it cannot write.
  gateway_.database().snapshot([&](Db& db) {
    HandlerContext ctx(gateway_, db, caller, organizationId);
    spec.prepare(ctx, parameters);
  });
}

ActivityRecord ActivityPipeline::vote(const Envelope& env, const Caller& caller,
                                      std::string_view body) {
  const std::string fingerprint = kVote.read(env.parameters).fingerprint;
  bool approve = env.type == kApproveActivity;
  std::optional<ActivityRecord> target;
  gateway_.database().read(
      [&](Db& db) { target = activities::findByFingerprint(db, fingerprint); });
  if (!target || target->organizationId != env.organizationId)
    throw notFound("No activity found with fingerprint " + fingerprint + " in organization " +
                   env.organizationId);
  const ActivitySpec* spec = gateway_.catalog().activityOfType(target->type);
  if (!spec)
    throw failedPrecondition("activity " + target->id + " is a " + target->type +
                             ", which no enabled module serves any more");
  Caller submitter;
  gateway_.database().read([&](Db& db) {
    submitter = submitterOf(db, *target);
    DbKeyring keyring(db, gateway_.masterKey());
    activities::openParameters(keyring, *spec, *target);  // its preparer reads them
  });
  int64_t now = gateway_.nowMs();
  // This vote may run the activity: warm what its handler reads, as at submission. A failure
  // here is the handler's to report (it fails the activity), not a reason to refuse the vote.
  if (approve && spec->prepare) try {
      runPreparer(*spec, caller, target->organizationId,
                  target->intent->getObject(spec->intentKey));
    } catch (const std::exception&) {
    }

  return settle(*spec, *target, submitter, false, [&](Db& db, ActivityRecord& r) {
    // Re-read inside the transaction, and held until it ends: another vote may have landed
    // since, and one that lands meanwhile waits for this one and then reads it.
    auto stored = activities::findByFingerprintToChange(db, fingerprint);
    if (!stored)  // its organization deleted since it was read
      throw notFound("No activity found with fingerprint " + fingerprint + " in organization " +
                     env.organizationId);
    r = std::move(*stored);
    DbKeyring keyring(db, gateway_.masterKey());
    activities::openParameters(keyring, *spec, r);  // sealed while it waited
    if (hasVoted(r, caller.userId)) {
      // The same vote again changes nothing. A voter whose MFA waits for factors approves
      // again with another credential to present one (the public docs' "Satisfying MFA").
      if (!approve || presentedBefore(r, caller) || !mfaPending(db, r, caller.userId))
        return Prepared::kSettled;
    }
    if (r.status != kStatusConsensusNeeded && r.status != kStatusAuthenticatorsNeeded)
      throw failedPrecondition("activity " + r.id + " is " + r.status +
                               "; only activities awaiting consensus or MFA factors take votes");
    if (now - r.createdAtMs > kApprovalWindowMs)
      throw failedPrecondition("the 24-hour approval window of activity " + r.id + " has closed");
    if (caller.organizationId != r.organizationId)
      throw permissionDenied("user " + caller.userId + " of organization " + caller.organizationId +
                             " cannot vote on activity " + r.id + " of organization " +
                             r.organizationId);
    DirectoryView directory(nullptr, db);
    r.votes->add(voteJson(directory, caller, r.id,
                          approve ? "VOTE_SELECTION_APPROVED" : "VOTE_SELECTION_REJECTED", body,
                          now));
    r.updatedAtMs = now;
    if (approve) {
      // An OTP factor proven by an attested stamp is used up by the approval it proves.
      if (caller.scheme == kAttestedTokenScheme) {
        HandlerContext ctx(gateway_, db, caller, r.organizationId);
        auto org = directory::requireOrganization(db, r.organizationId);
        contacts::spendVerificationToken(ctx, caller.attestation, org.id, org.parentId,
                                         "X-Stamp-Attested");
      }
      recordPresentation(directory, r, caller);
      return Prepared::kDecide;
    }
    std::string before = r.status;
    r.status = kStatusRejected;
    if (activities::redactSecrets(*spec, r)) activities::storeIntent(db, r);
    writeRow(db, *spec, r, RowWrite::kUpdate, before);
    return Prepared::kSettled;
  });
}

Decision ActivityPipeline::decide(DirectoryView& directory, const ActivitySpec& spec,
                                  const ActivityRecord& record, const Caller& submitter,
                                  RequestCache& cache) {
  const std::string& org = record.organizationId;
  json::Object params = record.intent->getObject(spec.intentKey);
  // A parent organization's credentials reach into a sub-organization only for the activities
  // that say so (logins); everything else is the sub-organization's own.
  if (submitter.organizationId != org && !spec.allowParentOrganization) {
    Decision denied;
    denied.kind = Decision::Kind::kDeny;
    denied.reason = "user " + submitter.userId + " of parent organization " +
                    submitter.organizationId + " cannot run " + spec.type +
                    " in sub-organization " + org + "; only its own users can";
    return denied;
  }
  // A parent acting in its sub-organization (logins, OTP, email auth) is governed by the
  // parent's own root quorum and policies: it is the parent's credential that acts.
  return authorizer_.decide(directory.db(), {&spec, submitter.organizationId, params, record.votes,
                                             &record.presentations, &cache, &directory});
}

bool ActivityPipeline::applyDecision(ActivityRecord& record, const Decision& decision) {
  switch (decision.kind) {
    case Decision::Kind::kDeny:
      record.status = kStatusFailed;
      record.failure = activities::failureJson(Code::kPermissionDenied, decision.reason);
      return false;
    case Decision::Kind::kConsensusNeeded:
      record.status = kStatusConsensusNeeded;
      return false;
    case Decision::Kind::kAuthenticatorsNeeded:
      record.status = kStatusAuthenticatorsNeeded;
      return false;
    case Decision::Kind::kAllow:
      return true;
  }
  return false;
}

void ActivityPipeline::execute(Db& db, const ActivitySpec& spec, ActivityRecord& record,
                               const Caller& submitter, RequestCache& cache,
                               std::vector<std::function<void(Db&)>>& failureWrites,
                               std::vector<HandlerContext::AfterCommit>& calls) {
  HandlerContext ctx(gateway_, db, submitter, record.organizationId, record.id, spec.type, &cache);
  ctx.collectFailureWrites(&failureWrites);
  ctx.collectAfterCommit(&calls);
  json::Array proofs = json::array();
  if (record.generateAppProofs) ctx.collectAppProofs(proofs);
  json::Object result = spec.handler(ctx, record.intent->getObject(spec.intentKey));
  record.result = json::object();
  record.result->set(spec.resultKey, result ? result : json::object());
  record.status = calls.empty() ? kStatusCompleted : kStatusPending;
  if (proofs->size() > 0) record.appProofs = proofs;
  record.updatedAtMs = gateway_.nowMs();
}

void ActivityPipeline::runAfterCommit(const ActivitySpec& spec, ActivityRecord& record,
                                      const std::vector<HandlerContext::AfterCommit>& calls) {
  std::optional<Error> failure;
  for (const auto& entry : calls) {
    try {
      entry.call();
    } catch (...) {
      failure = executionFailure(spec, record);
      break;
    }
  }
  bool keeps = false;
  for (const auto& entry : calls) keeps |= static_cast<bool>(entry.keep);
  gateway_.database().transaction([&](Db& db) {
    if (failure || keeps) {
      Caller submitter = submitterOf(db, record);
      HandlerContext ctx(gateway_, db, submitter, record.organizationId, record.id, spec.type);
      if (failure)
        for (const auto& entry : calls)
          if (entry.undo) entry.undo(ctx);
      for (const auto& entry : calls)
        if (entry.keep) entry.keep(ctx);
    }
    if (failure) {
      fail(record, *failure);
    } else {
      record.status = kStatusCompleted;
    }
    record.updatedAtMs = gateway_.nowMs();
    writeRow(db, spec, record, RowWrite::kUpdate, kStatusPending);
  });
}

Error ActivityPipeline::executionFailure(const ActivitySpec& spec, const ActivityRecord& record) {
  try {
    throw;
  } catch (const Error& e) {
    return e;
  } catch (const StoreUnavailable&) {
    throw;  // not the activity's failure: the request fails (503) and the client retries
  } catch (const std::exception& e) {
    Poco::Logger::get("signet.activity")
        .error("activity %s (%s) failed: %s", record.id, spec.type, std::string(e.what()));
    return internalError("internal error executing " + spec.type + " (activity " + record.id + ")");
  }
}

std::optional<ActivityRecord> ActivityPipeline::storedActivity(const std::string& fingerprint) {
  std::optional<ActivityRecord> stored;
  gateway_.database().read(
      [&](Db& db) { stored = activities::findByFingerprint(db, fingerprint); });
  return stored;
}

bool ActivityPipeline::persist(Db& db, const ActivitySpec& spec, ActivityRecord& record,
                               RowWrite row, const Decision& decision,
                               const std::optional<std::string>& parent,
                               const std::function<void(Db&)>& lost,
                               const activities::RowTexts* texts) {
  const bool isNew = row != RowWrite::kUpdate;
  // MFA statuses are stored only with a stored row: with any to store, the row waits.
  if (row == RowWrite::kSendUnlessStored && decision.mfaStatuses &&
      decision.mfaStatuses->size() > 0)
    row = RowWrite::kInsertUnlessStored;
  // Made ahead, the texts are of a record that has no secret and holds its decision.
  bool redacted = !texts && activities::redactSecrets(spec, record);
  // The status it had, for the event outbox (read only when a module subscribes).
  std::string before = isNew || gateway_.catalog().services().activityEventSubscribers.empty()
                           ? std::string()
                           : activities::storedStatus(db, record.id);
  // The decision is stored in the activity's own row, with the vote it decided.
  if (!texts)
    activities::recordEvaluation(record, lastVoteId(record), decision.evaluations,
                                 gateway_.nowMs());
  if (!writeRow(db, spec, record, row, before, parent, lost, texts)) return false;
  if (redacted && !isNew) activities::storeIntent(db, record);
  // A new activity has no statuses to replace: without any to store, nothing to write.
  if (decision.mfaStatuses && (!isNew || decision.mfaStatuses->size() > 0))
    mfa::storeStatuses(db, record.id, record.organizationId, decision.mfaStatuses);
  return true;
}

bool ActivityPipeline::writeRow(Db& db, const ActivitySpec& spec, const ActivityRecord& record,
                                RowWrite row, const std::string& before,
                                const std::optional<std::string>& parent,
                                const std::function<void(Db&)>& lost,
                                const activities::RowTexts* texts) {
  // Bearer credentials are never stored in clear: in the result they are redacted and sealed
  // (secret_results.hpp), and so are secret parameters while the activity may still run
  // (secret_parameters.hpp). The record in hand keeps them for the answer.
  const bool results = activities::hasSecretResults(spec);
  const bool parameters =
      activities::hasSecretParameters(spec) && !activities::isTerminal(record.status);
  std::optional<ActivityRecord> redacted;
  std::optional<DbKeyring> keyring;
  if (results || parameters || (row == RowWrite::kUpdate && activities::hasSecretParameters(spec)))
    keyring.emplace(db, gateway_.masterKey());
  if (parameters) redacted = activities::withParametersRedacted(spec, record);
  if (results) redacted = activities::withResultsRedacted(spec, redacted ? *redacted : record);
  const ActivityRecord& stored = redacted ? *redacted : record;
  // A new row's texts: those made ahead are the record's, so a redacted copy makes its own.
  std::optional<activities::RowTexts> made;
  auto newRowTexts = [&]() -> const activities::RowTexts& {
    if (texts && !redacted) return *texts;
    return made.emplace(activities::rowTexts(stored));
  };
  // Asked before the row's write, so that on PostgreSQL the question goes with it.
  EventInterest interest = askEventInterest(gateway_, db, stored, before, parent);
  if (row == RowWrite::kSendUnlessStored && !keyring && lost) {
    // Nothing but the event needs the row's answer, so both wait for the batch's other writes:
    // on PostgreSQL the batch's rows then go in one round trip, not one each. Without secrets,
    // `stored` is the caller's record, which outlives the batch's writes.
    auto inserted = activities::sendUnlessStored(db, stored, newRowTexts());
    // A step reads and inserts fresh keys only: it changes no activity and waits for no lock
    // (GroupCommit::afterWrites; the activity log has taken the batch's notes by then).
    Database::afterWrites([this, inserted, &stored, interest, lost](Db& db) {
      if (inserted->rows().empty()) return lost(db);
      recordActivityEvent(gateway_, db, stored, interest);
    });
    return true;
  }
  if (row != RowWrite::kUpdate) {
    if (!activities::insertUnlessStored(db, stored, newRowTexts())) return false;
  } else {
    activities::update(db, stored);
    // A stored activity that is done now: what was sealed while it waited goes.
    if (!parameters && activities::hasSecretParameters(spec))
      activities::eraseSealedParameters(*keyring, spec, record);
  }
  if (parameters) activities::sealParameters(*keyring, spec, record);
  if (results) activities::sealResults(*keyring, spec, record);
  recordActivityEvent(gateway_, db, stored, interest);
  return true;
}

void ActivityPipeline::runFailureWrites(const std::vector<std::function<void(Db&)>>& writes) {
  gateway_.database().transaction([&](Db& db) {
    for (const auto& write : writes) write(db);
  });
}

void ActivityPipeline::fail(ActivityRecord& record, const Error& failure) {
  record.status = kStatusFailed;
  record.result = json::object();
  record.failure = activities::failureJson(failure.code(), failure.what());
}

// What a read-only activity's snapshot decided and ran, kept for its write batch.
struct ActivityPipeline::ReadOnlyRun {
  ActivityRecord record;
  Decision decision;
  std::optional<Error> failure;
  std::vector<std::function<void(Db&)>> failureWrites;
  std::vector<HandlerContext::AfterCommit> calls;
  std::optional<std::string> parent;
  bool decided = false;  // `decision` was made (a plugin's failing facts make none)
  bool raced = false;    // an identical request stored its activity first: record is that one
  std::optional<Error> lostWinner;            // raced, and that activity is gone since: the answer
  std::optional<activities::RowTexts> texts;  // the row's, when made ahead (textsAhead)
  void answerable() const {
    if (lostWinner) throw *lostWinner;
  }
};

ActivityPipeline::Started ActivityPipeline::runReadOnly(Submission& s) {
  auto run = std::make_shared<ReadOnlyRun>();
  if (!decideOnSnapshot(s, *run))
    return respond(s.caller, std::move(s.responseHeaders), run->record);
  if (run->failure) fail(run->record, *run->failure);
  const ActivitySpec& spec = s.spec;
  textsAhead(spec, *run);
  auto write = [this, &spec, run](Db& db) { storeReadOnly(db, spec, *run); };
  if (run->record.status == kStatusPending) {
    // Calls to make once it is committed: they go out from this thread, after the commit.
    gateway_.database().transaction(write);
    run->answerable();
    // The winner's calls are the winner's to make; this request's were never committed.
    if (!run->raced) {
      if (run->decided) countOutcome(run->decision);
      runAfterCommit(spec, run->record, run->calls);
    }
    return respond(s.caller, std::move(s.responseHeaders), run->record);
  }
  return Deferred{std::move(write),
                  [run, caller = s.caller, headers = std::move(s.responseHeaders)] {
                    run->answerable();
                    if (run->decided && !run->raced) countOutcome(run->decision);
                    return respond(caller, headers, run->record);
                  }};
}

void ActivityPipeline::sendReadsAhead(Db& db, const Submission& s, RequestCache& cache) {
  // On SQLite a read is a call into the library, with no round trip to save: there the facts and
  // the handler read when they need to, after the caller is known.
  if (!s.spec.readAhead || !db.isPostgres()) return;
  // Before the caller is known, so only for a key the directory cache has seen in this
  // organization: a stranger's request costs no read beyond its authentication, and its timing
  // says nothing of what the organization holds.
  const auto& key = s.stamp.apiKey();
  if (!key || !gateway_.directoryCache().mayHoldApiKey(key->publicKey, s.envelope.organizationId))
    return;
  // The plugin only sends reads, whose answers its facts and handler take from `cache` once the
  // decision is made. A plugin's failure or refusal (an Error; a PluginFailure is logged and
  // counted by its guard) costs only the early start. The store's (a DatabaseError) may have
  // ended the snapshot's transaction, and fails the request as any read of it would.
  const Caller nobody;
  HandlerContext ctx(gateway_, db, nobody, s.envelope.organizationId, {}, s.spec.type, &cache);
  try {
    s.spec.readAhead(ctx, s.envelope.parameters);
  } catch (const Error&) {
  }
}

bool ActivityPipeline::decideOnSnapshot(Submission& s, ReadOnlyRun& run) {
  const ActivitySpec& spec = s.spec;
  const Caller& submitter = s.caller;
  // Decide and execute on one snapshot, beside other requests; only the outcome is written, in
  // the write batch. The decision counts what the submission's own stamp presents (its MFA
  // factor) as the write batch would once it recorded it, so whatever it decides (an allow, a
  // denial, a quorum to wait for, factors to wait for) is final: nothing is decided twice. A
  // read-only handler writes nothing, so a failure has nothing to roll back.
  std::exception_ptr refused;
  ActivityRecord& record = run.record;
  gateway_.database().snapshot([&](Db& db) {
    RequestCache cache;
    sendReadsAhead(db, s, cache);
    DirectoryView directory(&gateway_.directoryCache(), db);
    // Admitted on this same snapshot, unless it was admitted before (off the snapshot).
    if (s.onSnapshot) {
      authenticate(s, directory);
      admit(s, directory, /*lookUpBody=*/false);
    }
    record = newRecord(spec, s.envelope, s.fingerprint, s.now);
    record.votes = json::array();
    record.votes->add(voteJson(directory, submitter, record.id, "VOTE_SELECTION_APPROVED",
                               s.stamp.body(), record.createdAtMs));
    // What the stamp presents, read on the snapshot the decision is made on: the write
    // transaction stores it with the record without reading the credential again.
    recordPresentation(directory, record, submitter);
    try {
      run.decision = decide(directory, spec, record, submitter, cache);
    } catch (const PluginFailure& e) {
      run.failure = e;  // a plugin's policy facts failed: the activity fails, as in settle
      return;
    }
    run.decided = true;
    // The organization's parent, for its event when a module takes events: the decision read
    // the organization through the cache, so this is a hit, and the write batch need not read
    // it again.
    if (!gateway_.catalog().services().activityEventSubscribers.empty())
      if (auto org = directory.organization(record.organizationId))
        run.parent = org->parentId.value_or("");
    if (!applyDecision(record, run.decision)) return;
    try {
      execute(db, spec, record, submitter, cache, run.failureWrites, run.calls);
    } catch (const Error& e) {
      if (e.code() == Code::kInvalidArgument)
        refused = std::current_exception();  // bad input: refused, no activity stored
      else
        run.failure = e;
    } catch (const std::exception&) {
      run.failure = executionFailure(spec, record);
    }
  });
  if (!refused) return true;
  // A body stored before is that activity, whatever running it again now refuses (its key
  // deleted since, say), as it was when the body was looked up before it ran.
  std::optional<ActivityRecord> stored = storedActivity(record.fingerprint);
  if (stored) {
    record = std::move(*stored);
    return false;
  }
  if (!run.failureWrites.empty()) runFailureWrites(run.failureWrites);
  std::rethrow_exception(refused);
}

void ActivityPipeline::textsAhead(const ActivitySpec& spec, ReadOnlyRun& run) {
  // With secrets the row is a copy, redacted in the batch with the keyring (writeRow).
  if (activities::hasSecretResults(spec) || activities::hasSecretParameters(spec)) return;
  // What persist records in the batch otherwise: the evaluation's time is the decision's.
  activities::recordEvaluation(run.record, lastVoteId(run.record), run.decision.evaluations,
                               gateway_.nowMs());
  run.texts = activities::rowTexts(run.record);
  // The activity log's leaf of the row, and its hash, for SQLite's trigger to take
  // (activity_log::givenLeaf); PostgreSQL's trigger makes its own in the server.
  if (gateway_.database().backend() != Backend::kSqlite || activity_log::switchedOff()) return;
  const ActivityRecord& r = run.record;
  const activities::RowTexts& t = *run.texts;
  auto text = [](const std::optional<std::string>& held) { return held ? &*held : nullptr; };
  run.texts->given = activity_log::givenLeaf(
      r.id, activity_log::leafOf({r.id, r.organizationId, r.type, r.status, r.fingerprint,
                                  &t.intent, text(t.result), &t.votes.text, text(t.failure),
                                  r.createdAtMs, r.updatedAtMs}));
}

void ActivityPipeline::storeReadOnly(Db& db, const ActivitySpec& spec, ReadOnlyRun& run) {
  // Should a concurrent identical request have stored this fingerprint since the snapshot,
  // nothing of this one is written and the winner answers. Found once the batch's writes are
  // sent, this must not throw: that would fail the whole batch. A step, it only reads.
  auto lost = [&run](Db& db) {
    run.raced = true;
    if (auto winner = activities::findByFingerprint(db, run.record.fingerprint))
      run.record = std::move(*winner);
    else
      run.lostWinner = Error(Code::kUnavailable,
                             "an identical request stored this body, and its "
                             "activity was deleted since; retry");
  };
  // What the handler asked to keep on failure goes only with the activity's row, so that row
  // waits for its answer then.
  const bool keepsOnFailure = run.failure && !run.failureWrites.empty();
  if (!persist(db, spec, run.record,
               keepsOnFailure ? RowWrite::kInsertUnlessStored : RowWrite::kSendUnlessStored,
               run.decision, run.parent, lost, run.texts ? &*run.texts : nullptr)) {
    lost(db);
    return;
  }
  if (keepsOnFailure)
    for (const auto& write : run.failureWrites) write(db);
}

ActivityRecord ActivityPipeline::settle(
    const ActivitySpec& spec, ActivityRecord record, const Caller& submitter, bool isNew,
    const std::function<Prepared(Db&, ActivityRecord&)>& prepare) {
  const ActivityRecord given = record;
  std::optional<Error> failure;
  Decision decision;
  bool decided = false;
  std::vector<std::function<void(Db&)>> failureWrites;
  std::vector<HandlerContext::AfterCommit> calls;
  auto run = [&](Db& db) {
    decided = false;
    if (prepare(db, record) == Prepared::kSettled) return;
    RequestCache cache;
    DirectoryView directory(nullptr, db);
    try {
      decision = decide(directory, spec, record, submitter, cache);
      decided = true;
    } catch (const PluginFailure& e) {
      failure = e;  // a plugin's policy facts or profile lookup failed: the activity fails
      throw;
    }
    if (applyDecision(record, decision)) {
      try {
        execute(db, spec, record, submitter, cache, failureWrites, calls);
      } catch (const Error& e) {
        // Bad input of a new request is refused with nothing stored; once an activity waited
        // for votes it exists, so any error fails it.
        if (isNew && e.code() == Code::kInvalidArgument) throw;
        failure = e;
        throw;  // roll back the handler's writes; the failure is stored below
      } catch (const std::exception&) {
        failure = executionFailure(spec, record);
        throw;
      }
    }
    // On PostgreSQL an identical request may have passed prepare too, on another lane or
    // gateway: its row's key makes this insert wait for its commit and then do nothing.
    if (!persist(db, spec, record, isNew ? RowWrite::kInsertUnlessStored : RowWrite::kUpdate,
                 decision))
      throw LostToIdentical{};
  };
  try {
    gateway_.database().transaction(run);
  } catch (const LostToIdentical&) {
    // Nothing of this run is kept, what it would keep on failure included: the winner's run
    // counted what this one would, as on the read-only way.
    if (auto stored = storedActivity(record.fingerprint)) return std::move(*stored);
    // Deleted since (its organization with it): sent again, the body runs afresh.
    throw Error(Code::kUnavailable, "an identical request stored this body, and its activity " +
                                        record.fingerprint + " was deleted since; retry");
  } catch (...) {
    if (!failure) {
      // Refused bad input stores no activity, but what the handler asked to keep on failure
      // (a wrong OTP's attempt count) is kept all the same.
      if (!failureWrites.empty()) runFailureWrites(failureWrites);
      throw;
    }
    // The run was rolled back, its record with it: a vote that committed since is in the store,
    // not in `record`. So the failure is written on the activity prepared again from the
    // store, locked as the run had it, and an activity another request has settled since is
    // left as that request left it. Should preparing again refuse (the activity settled, the
    // approval's token used meanwhile), no failure is written, and the vote is answered with
    // the refusal: the activity is as the store has it.
    bool failureStored = false;
    try {
      gateway_.database().transaction([&](Db& db) {
        ActivityRecord again = given;
        // The activity's row first, then the handler's rows, in the order the run took them.
        const bool settled = prepare(db, again) == Prepared::kSettled;
        bool stored = !settled || !isNew;
        if (!settled) {
          fail(again, *failure);
          // An identical new request may have stored its fingerprint meanwhile: it answers.
          stored = persist(db, spec, again,
                           isNew ? RowWrite::kInsertUnlessStored : RowWrite::kUpdate, decision);
          if (!stored) again = activities::findByFingerprint(db, again.fingerprint).value();
          failureStored = stored;
        }
        // A new request that lost to an identical one keeps nothing: the winner's run counted
        // what this one would (an OTP attempt), as on the read-only way.
        if (stored)
          for (const auto& write : failureWrites) write(db);
        record = std::move(again);
      });
    } catch (...) {
      // What the handler asked to keep on failure is kept all the same.
      if (!failureWrites.empty()) runFailureWrites(failureWrites);
      throw;
    }
    if (decided && failureStored) countOutcome(decision);
    return record;
  }
  if (decided) countOutcome(decision);
  if (record.status == kStatusPending && !calls.empty()) runAfterCommit(spec, record, calls);
  return record;
}

}  // namespace signet
