#include "activity/operator_activity.hpp"

#include "activity/activity_events.hpp"
#include "activity/activity_store.hpp"
#include "activity/handler_context.hpp"
#include "tenancy/directory.hpp"

namespace signet {

namespace {
Caller operatorCaller() {
  Caller c;
  c.userName = "operator (signet CLI)";
  c.scheme = "OPERATOR";
  c.inRootQuorum = true;
  return c;
}
}  // namespace

json::Object runAsOperator(Gateway& gateway, const std::string& type,
                           const std::string& organizationId, const json::Object& parameters) {
  const ActivitySpec* spec = gateway.catalog().activityOfType(type);
  if (!spec)
    throw failedPrecondition("no enabled module serves " + type +
                             "; enable the plugin that provides it (signet plugins enable)");
  Caller who = operatorCaller();
  json::Object result;
  gateway.database().transaction([&](Db& db) {
    directory::requireOrganization(db, organizationId);
    // One reading of the clock for the record: its id begins with its creation time, as an
    // activity submitted through the API does.
    const int64_t now = gateway.nowMs();
    ActivityRecord record;
    record.id = crypto::uuidV7(now);
    HandlerContext ctx(gateway, db, who, organizationId, record.id, type);
    std::vector<HandlerContext::AfterCommit> afterCommit;
    ctx.collectAfterCommit(&afterCommit);
    result = spec->handler(ctx, parameters);
    if (!afterCommit.empty())
      throw failedPrecondition(type +
                               " makes network calls after it commits; run it through "
                               "the API instead");
    record.organizationId = organizationId;
    record.type = type;
    record.status = kStatusCompleted;
    record.fingerprint = "operator:" + record.id;
    record.intent = json::object();
    record.intent->set(spec->intentKey, parameters);
    record.result = json::object();
    record.result->set(spec->resultKey, result);
    record.votes = json::array();
    json::Object vote = json::object();
    vote->set("id", crypto::uuidV7(now));
    vote->set("userId", "");
    vote->set("activityId", record.id);
    vote->set("selection", "VOTE_SELECTION_APPROVED");
    vote->set("message", "run by the operator with signet from the data directory");
    vote->set("publicKey", "");
    vote->set("signature", "");
    vote->set("scheme", "OPERATOR");
    vote->set("createdAt", json::timestamp(now));
    record.votes->add(vote);
    record.createdAtMs = record.updatedAtMs = now;
    EventInterest interest = askEventInterest(gateway, db, record, "");
    activities::insert(db, record);
    recordActivityEvent(gateway, db, record, interest);
  });
  return result;
}

json::Object queryAsOperator(Gateway& gateway, const std::string& path,
                             const std::string& organizationId) {
  const QuerySpec* spec = gateway.catalog().query(path);
  if (!spec) throw gateway.catalog().unservedPath("query", path);
  Caller who = operatorCaller();
  json::Object body = json::object();
  body->set("organizationId", organizationId);
  json::Object result;
  gateway.database().read([&](Db& db) {
    directory::requireOrganization(db, organizationId);
    HandlerContext ctx(gateway, db, who, organizationId);
    result = spec->handler(ctx, body);
  });
  return result;
}

}  // namespace signet
