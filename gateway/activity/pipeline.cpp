#include "pipeline.hpp"

#include <Poco/Logger.h>

#include "activity/handler_context.hpp"
#include "tenancy/directory.hpp"

namespace signet {

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

json::Object ActivityPipeline::submit(const std::string& path, std::string_view body,
                                      const StampHeaders& headers,
                                      const std::optional<VerifiedApiKeyStamp>& apiKey) {
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

  Caller caller;
  std::string fingerprint = activities::fingerprintOf(body);
  std::optional<ActivityRecord> existing;
  gateway_.database().read([&](Db& db) {
    auto who = resolver_.resolve(db, headers, apiKey, body, env.organizationId, now);
    caller = who.caller;
    // A passkey found in a sub-organization of the named one acts there, and the activity
    // reports that sub-organization.
    env.organizationId = who.organizationId;
    existing = activities::findByFingerprint(db, fingerprint);
  });
  // Identical bodies are one activity: Rust re-POSTs while pending and Go retries 5xx.
  ActivityRecord record = existing ? *existing : execute(spec, env, caller, fingerprint, body);
  json::Object response = json::object();
  response->set("activity", activities::toJson(record, caller));
  return response;
}

ActivityRecord ActivityPipeline::execute(const ActivitySpec& spec, const Envelope& env,
                                         const Caller& caller, const std::string& fingerprint,
                                         std::string_view body) {
  ActivityRecord record;
  record.id = crypto::uuidV4();
  record.organizationId = env.organizationId;
  record.type = spec.type;
  record.fingerprint = fingerprint;
  record.intent = json::object();
  record.intent->set(spec.intentKey, env.parameters);
  record.result = json::object();
  record.createdAtMs = record.updatedAtMs = gateway_.nowMs();

  auto& log = Poco::Logger::get("signet.activity");
  std::optional<Error> failure;
  auto run = [&](Db& db) {
    // A concurrent identical request may have won the race for this fingerprint.
    if (auto raced = activities::findByFingerprint(db, fingerprint)) {
      record = *raced;
      return;
    }
    json::Object voter =
        userJson(db, directory::requireUser(db, caller.organizationId, caller.userId));
    json::Object vote = json::object();
    vote->set("id", crypto::uuidV4());
    vote->set("userId", caller.userId);
    vote->set("user", voter);
    vote->set("activityId", record.id);
    vote->set("selection", "VOTE_SELECTION_APPROVED");
    vote->set("message", std::string(body));
    vote->set("publicKey", caller.publicKey);
    vote->set("signature", caller.signature);
    vote->set("scheme", caller.scheme);
    vote->set("createdAt", json::timestamp(record.createdAtMs));
    record.votes = json::array();
    record.votes->add(vote);

    // A parent organization's credentials reach into a sub-organization only for the
    // activities that say so (logins); everything else is the sub-organization's own.
    Decision decision =
        caller.organizationId != env.organizationId && !spec.allowParentOrganization
            ? Decision{Decision::Kind::kDeny, "user " + caller.userId + " of parent organization " +
                                                  caller.organizationId + " cannot run " +
                                                  spec.type + " in sub-organization " +
                                                  env.organizationId + "; only its own users can"}
            : authorizer_.decide(db, spec, caller, env.organizationId, env.parameters);
    if (decision.kind == Decision::Kind::kDeny) {
      record.status = kStatusFailed;
      record.failure = activities::failureJson(Code::kPermissionDenied, decision.reason);
    } else if (decision.kind == Decision::Kind::kConsensusNeeded) {
      record.status = kStatusConsensusNeeded;
    } else {
      try {
        HandlerContext ctx(gateway_, db, caller, env.organizationId, record.id, spec.type);
        json::Object result = spec.handler(ctx, env.parameters);
        record.result->set(spec.resultKey, result ? result : json::object());
        record.status = kStatusCompleted;
      } catch (const Error& e) {
        if (e.code() == Code::kInvalidArgument) throw;  // bad input: nothing is stored
        failure = e;
        throw;  // roll back the handler's writes; the failure is stored below
      } catch (const std::exception& e) {
        log.error("activity %s (%s) failed: %s", record.id, spec.type, std::string(e.what()));
        failure = internalError("internal error executing " + spec.type + " (activity " +
                                record.id + ")");
        throw;
      }
    }
    activities::insert(db, record);
  };
  try {
    gateway_.database().transaction(run);
  } catch (...) {
    if (!failure) throw;
    // The handler's writes are rolled back; the failed activity itself is kept for audit.
    record.status = kStatusFailed;
    record.result = json::object();
    record.failure = activities::failureJson(failure->code(), failure->what());
    gateway_.database().transaction([&](Db& db) { activities::insert(db, record); });
  }
  return record;
}

}  // namespace signet
