// The policy engine through a real gateway: the examples of Turnkey's policy documentation
// (tkhq/docs features/policies) that core activities can express (the others read signing and chain
// facts, which come with the signing plugin), policy CRUD and its errors, consensus votes and
// stored evaluations.
#include <set>
#include <thread>

#include "policy/evaluator.hpp"
#include "policy/policies.hpp"
#include "policy/policy_set.hpp"
#include "store/database.hpp"
#include "support/lock_waits.hpp"
#include "support/software_authenticator.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class PolicyEngineTest : public BackendTest {};
SIGNET_BACKEND_SUITE(PolicyEngineTest);

// A condition on resource and action and a consensus on one user (on users rather than
// wallets, which need the signing plugin).
TEST_P(PolicyEngineTest, Case3ResourceAndAction) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u1 = o.user("U1");
  o.policy("user creation by U1", "EFFECT_ALLOW",
           "activity.resource == 'USER' && activity.action == 'CREATE'",
           "approvers.any(user, user.id == '" + u1 + "')");
  EXPECT_EQ(status(o.createUsers(u1)), kCompleted);
  auto victim = o.user("victim");
  EXPECT_EQ(status(o.deleteUsers(u1, {victim})), kFailed);
}

// A tagged approver is needed; an untagged submitter waits for one.
TEST_P(PolicyEngineTest, Case4TaggedApprover) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto tag = o.tag("approvers");
  auto tagged = o.user("tagged", {tag});
  auto plain = o.user("plain");
  o.policy("tagged approval", "EFFECT_ALLOW",
           "activity.resource == 'USER' && activity.action == 'CREATE'",
           "approvers.any(user, user.tags.contains('" + tag + "'))");
  auto a = o.createUsers(plain);
  EXPECT_EQ(status(a), kConsensus);
  EXPECT_TRUE(a->getValue<bool>("canApprove") == false);  // the submitter has voted
  EXPECT_EQ(status(o.vote(tagged, a)), kCompleted);
}

// Two tagged approvals; an untagged approval changes nothing.
TEST_P(PolicyEngineTest, Case5TwoTaggedApprovers) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto tag = o.tag("security");
  auto u1 = o.user("U1", {tag}), u2 = o.user("U2", {tag}), u3 = o.user("U3");
  o.policy("two security approvals", "EFFECT_ALLOW",
           "activity.resource == 'POLICY' && activity.action == 'CREATE'",
           "approvers.filter(user, user.tags.contains('" + tag + "')).count() >= 2");
  auto a = o.createPolicyAs(u1, "needs two");
  EXPECT_EQ(status(a), kConsensus);
  EXPECT_EQ(status(o.vote(u3, a)), kConsensus);
  auto done = o.vote(u2, a);
  EXPECT_EQ(status(done), kCompleted);
  EXPECT_TRUE(done->getObject("result")->getObject("createPolicyResult")->has("policyId"));
  EXPECT_EQ(done->getArray("votes")->size(), 3u);
}

// A per-tag minimum.
TEST_P(PolicyEngineTest, Case6PerTagMinimum) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto sec = o.tag("SEC"), ops = o.tag("OPS");
  auto both = o.user("sec+ops", {sec, ops}), opsOnly = o.user("ops", {ops});
  o.policy("sec and two ops", "EFFECT_ALLOW", "activity.resource == 'USER'",
           "approvers.any(user, user.tags.contains('" + sec + "') || user.tags.contains('" + ops +
               "')) && (approvers.filter(user, user.tags.contains('" + sec +
               "')).count() >= 1 && approvers.filter(user, user.tags.contains('" + ops +
               "')).count() >= 2)");
  auto a = o.createUsers(both);
  EXPECT_EQ(status(a), kConsensus);
  EXPECT_EQ(status(o.vote(opsOnly, a)), kCompleted);
}

// A tag-based DENY wins over an ALLOW.
TEST_P(PolicyEngineTest, Case7TagDenyWins) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto tag = o.tag("restricted");
  auto restricted = o.user("restricted", {tag}), free = o.user("free");
  auto victim1 = o.user("v1"), victim2 = o.user("v2");
  o.policy("allow deletes", "EFFECT_ALLOW", "activity.action == 'DELETE'");
  std::string deny =
      o.policy("no deletes by restricted users", "EFFECT_DENY", "activity.action == 'DELETE'",
               "approvers.any(user, user.tags.contains('" + tag + "'))");
  auto denied = o.deleteUsers(restricted, {victim1});
  EXPECT_EQ(status(denied), kFailed);
  std::string message = denied->getObject("failure")->getValue<std::string>("message");
  EXPECT_NE(message.find("no deletes by restricted users"), std::string::npos) << message;
  EXPECT_NE(message.find(deny), std::string::npos) << message;
  EXPECT_EQ(status(o.deleteUsers(free, {victim2})), kCompleted);
}

// Kind is version-agnostic, type is exact.
TEST_P(PolicyEngineTest, Case8KindVersusType) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U");
  o.policy("by kind", "EFFECT_ALLOW", "activity.kind == 'CREATE_USERS'");
  EXPECT_EQ(status(o.createUsers(u, "ACTIVITY_TYPE_CREATE_USERS_V3")), kCompleted);
  EXPECT_EQ(status(o.createUsers(u, "ACTIVITY_TYPE_CREATE_USERS_V4")), kCompleted);
  TestGateway gw2(GetParam());
  Org o2(gw2);
  auto u2 = o2.user("U");
  o2.policy("by type", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'");
  EXPECT_EQ(status(o2.createUsers(u2, "ACTIVITY_TYPE_CREATE_USERS_V4")), kCompleted);
  EXPECT_EQ(status(o2.createUsers(u2, "ACTIVITY_TYPE_CREATE_USERS_V3")), kFailed);
}

// `in` over lists of strings.
TEST_P(PolicyEngineTest, Case9In) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U");
  o.policy("user writes", "EFFECT_ALLOW",
           "activity.resource in ['USER', 'OTP'] && activity.action in ['CREATE','VERIFY']");
  EXPECT_EQ(status(o.createUsers(u)), kCompleted);
  EXPECT_EQ(status(o.createPolicyAs(u, "not covered")), kFailed);
}

// Only a passkey's approval satisfies the consensus; an API-key submission waits.
TEST_P(PolicyEngineTest, Case10PasskeyOnly) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U");
  o.policy(
      "passkey only", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'",
      "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')");
  auto a = o.createUsers(u);
  EXPECT_EQ(status(a), kConsensus);
  // A second user approves with a passkey.
  auto approver = o.user("passkey holder");
  auto passkey = std::make_shared<SoftwareAuthenticator>();
  gw.write([&](Db& db) { directory::insertAuthenticator(db, passkey->record(o.org(), approver)); });
  json::Object p = json::object();
  p->set("fingerprint", a->getValue<std::string>("fingerprint"));
  auto done = gw.clientWith(passkey).submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY",
                                            o.org(), p);
  EXPECT_EQ(status(done), kCompleted);
}

// Reading a fact the activity does not have is an error, which fails closed.
TEST_P(PolicyEngineTest, Case12ErrorsFailClosed) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U");
  std::string id =
      o.policy("wallet only", "EFFECT_ALLOW", "activity.action == 'CREATE' && wallet.id == 'W1'");
  auto a = o.createUsers(u);
  EXPECT_EQ(status(a), kFailed);
  EXPECT_NE(a->getObject("failure")->getValue<std::string>("message").find("errored"),
            std::string::npos);
  json::Object q = orgBody(o.org());
  q->set("activityId", a->getValue<std::string>("id"));
  auto evaluations = o.root().query("get_policy_evaluations", q)->getArray("policyEvaluations");
  ASSERT_EQ(evaluations->size(), 1u);
  auto outcome = evaluations->getObject(0)->getArray("policyEvaluations")->getObject(0);
  EXPECT_EQ(outcome->getValue<std::string>("policyId"), id);
  EXPECT_EQ(outcome->getValue<std::string>("outcome"), "OUTCOME_ERROR");
}

// Time-based policies. A policy outside its time is TIME_INACTIVE: it neither allows
// nor denies. time.now is the gateway's clock, one instant per evaluation.
TEST_P(PolicyEngineTest, Case27TimeBasedPolicies) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U");
  auto timed = [&](const std::string& name, const std::string& effect, const std::string& condition,
                   const std::string& time) {
    json::Object p = json::object();
    p->set("policyName", name);
    p->set("effect", effect);
    p->set("condition", condition);
    p->set("notes", "");
    p->set("time", time);
    return resultOf(o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), p),
                    "createPolicyResult")
        ->getValue<std::string>("policyId");
  };
  auto outcomesOf = [&](const json::Object& activity) {
    json::Object q = orgBody(o.org());
    q->set("activityId", activity->getValue<std::string>("id"));
    std::map<std::string, std::string> out;
    auto evaluations = o.root().query("get_policy_evaluations", q)->getArray("policyEvaluations");
    for (size_t i = 0; i < evaluations->size(); ++i) {
      auto list = evaluations->getObject(i)->getArray("policyEvaluations");
      for (size_t j = 0; j < list->size(); ++j)
        out[list->getObject(j)->getValue<std::string>("policyId")] =
            list->getObject(j)->getValue<std::string>("outcome");
    }
    return out;
  };
  auto at = [](const std::string& utc) { return *policy::parseTimestamp(utc); };

  // A window in March 2026, start-inclusive and end-exclusive.
  std::string march =
      timed("march", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'",
            "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < "
            "Timestamp('2026-04-01T00:00:00Z')");
  gw.setTime(at("2026-03-31T23:59:00Z"));
  auto inside = o.createUsers(u);
  EXPECT_EQ(status(inside), kCompleted);
  EXPECT_EQ(outcomesOf(inside)[march], "OUTCOME_ALLOW");
  gw.setTime(at("2026-04-01T00:00:00Z"));
  auto after = o.createUsers(u);
  EXPECT_EQ(status(after), kFailed);  // inactive: nothing allows it
  EXPECT_EQ(outcomesOf(after)[march], "OUTCOME_TIME_INACTIVE");

  // Business hours in New York: Wednesday 10:00 is inside, Saturday 10:00 is not.
  std::string hours =
      timed("business hours", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
            "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
  gw.setTime(at("2026-03-04T15:00:00Z"));
  EXPECT_EQ(status(o.createPolicyAs(u, "wednesday")), kCompleted);
  gw.setTime(at("2026-03-07T15:00:00Z"));
  auto saturday = o.createPolicyAs(u, "saturday");
  EXPECT_EQ(status(saturday), kFailed);
  EXPECT_EQ(outcomesOf(saturday)[hours], "OUTCOME_TIME_INACTIVE");

  // A time-gated DENY denies only inside its window.
  o.policy("U may delete", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_DELETE_USERS'",
           "approvers.any(user, user.id == '" + u + "')");
  std::string freeze = timed("weekend freeze", "EFFECT_DENY", "activity.action == 'DELETE'",
                             "CronSpan('0 0 * * 6', '2d', 'UTC')");
  gw.setTime(at("2026-03-07T15:00:00Z"));  // Saturday
  auto frozen = o.deleteUsers(u, {o.user("victim 1")});
  EXPECT_EQ(status(frozen), kFailed);
  EXPECT_NE(failureOf(frozen).find("weekend freeze"), std::string::npos) << failureOf(frozen);
  gw.setTime(at("2026-03-09T00:00:00Z"));  // Monday: the window has ended
  auto monday = o.deleteUsers(u, {o.user("victim 2")});
  EXPECT_EQ(status(monday), kCompleted);
  EXPECT_EQ(outcomesOf(monday)[freeze], "OUTCOME_TIME_INACTIVE");

  // The time expression is part of the policy: read back, changed, kept when omitted.
  json::Object q = orgBody(o.org());
  q->set("policyId", hours);
  EXPECT_EQ(o.root().query("get_policy", q)->getObject("policy")->getValue<std::string>("time"),
            "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
  json::Object update = json::object();
  update->set("policyId", hours);
  update->set("policyNotes", "weekdays");
  EXPECT_EQ(
      status(o.root().submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", o.org(), update)),
      kCompleted);
  EXPECT_EQ(o.root().query("get_policy", q)->getObject("policy")->getValue<std::string>("time"),
            "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')");
  update->set("time", "");  // always active from now on
  EXPECT_EQ(
      status(o.root().submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", o.org(), update)),
      kCompleted);
  EXPECT_EQ(status(o.createPolicyAs(u, "saturday again")), kCompleted);
}

// A user may delete only themselves.
TEST_P(PolicyEngineTest, Case14SelfDelete) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u1 = o.user("U1"), u2 = o.user("U2");
  o.policy("self delete", "EFFECT_ALLOW",
           "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 "
           "&& '" +
               u1 + "' in activity.params.user_ids",
           "approvers.any(user, user.id == '" + u1 + "')");
  EXPECT_EQ(status(o.deleteUsers(u1, {u1, u2})), kFailed);
  EXPECT_EQ(status(o.deleteUsers(u1, {u1})), kCompleted);
}

// An agent and a human must both approve; the human can also reject.
TEST_P(PolicyEngineTest, Case24AgentPlusHuman) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto agent = o.user("agent"), human = o.user("human");
  o.policy("agent and human", "EFFECT_ALLOW",
           "activity.resource == 'USER' && activity.action == 'CREATE'",
           "approvers.any(user, user.id == '" + agent + "') && approvers.any(user, user.id == '" +
               human + "')");
  auto a = o.createUsers(agent);
  EXPECT_EQ(status(a), kConsensus);
  EXPECT_EQ(status(o.vote(human, a)), kCompleted);
  auto b = o.createUsers(agent);
  EXPECT_EQ(status(b), kConsensus);
  auto rejected = o.vote(human, b, false);
  EXPECT_EQ(status(rejected), "ACTIVITY_STATUS_REJECTED");
  EXPECT_EQ(rejected->getArray("votes")->getObject(1)->getValue<std::string>("selection"),
            "VOTE_SELECTION_REJECTED");
  // A rejected activity takes no more votes (the agent's own approval again is the same
  // vote, so it changes nothing), and its user was never created.
  auto third = o.user("third");
  EXPECT_THROW(o.vote(third, b), RequestError);
  EXPECT_EQ(status(o.vote(agent, b)), "ACTIVITY_STATUS_REJECTED");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users"), 5);
}

// Any second approval.
TEST_P(PolicyEngineTest, Case25Count) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u1 = o.user("U1"), u2 = o.user("U2");
  o.policy("two approvals", "EFFECT_ALLOW", "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
           "approvers.count() >= 2");
  auto a = o.createPolicyAs(u1, "counted");
  EXPECT_EQ(status(a), kConsensus);
  // The same approval twice is one vote, not two.
  EXPECT_EQ(status(o.vote(u1, a)), kConsensus);
  EXPECT_EQ(status(o.vote(u2, a)), kCompleted);
}

// The root quorum.
TEST_P(PolicyEngineTest, Case26RootQuorum) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto r2 = o.user("R2"), u1 = o.user("U1");
  // An ALLOW for U1 on a root-quorum-only type changes nothing.
  o.policy("U1 features", "EFFECT_ALLOW",
           "activity.type == 'ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE'",
           "approvers.any(user, user.id == '" + u1 + "')");
  json::Object feature = json::object();
  feature->set("name", "FEATURE_NAME_EMAIL_AUTH");
  feature->set("value", "true");
  EXPECT_EQ(status(o.as(u1).submit("set_organization_feature",
                                   "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", o.org(), feature)),
            kFailed);
  // {[R1, R2], 2}: R1 alone waits; R2's approval completes it.
  json::Object quorum = json::object();
  quorum->set("threshold", 2);
  quorum->set("userIds", json::stringArray({gw.root().userId, r2}));
  EXPECT_EQ(status(o.root().submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
                                   o.org(), quorum)),
            kCompleted);
  auto a = o.root().submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                           o.org(), feature);
  EXPECT_EQ(status(a), kConsensus);
  EXPECT_TRUE(o.as(r2)
                  .query("get_activity",
                         [&] {
                           auto q = orgBody(o.org());
                           q->set("activityId", a->getValue<std::string>("id"));
                           return q;
                         }())
                  ->getObject("activity")
                  ->getValue<bool>("canApprove"));
  EXPECT_EQ(status(o.vote(r2, a)), kCompleted);
  // 2 of 2 plus an ALLOW for R1: R1 acts alone on what the policy covers. Creating that
  // policy is itself an activity R1 cannot complete alone any more.
  json::Object policy = json::object();
  policy->set("policyName", "R1 alone");
  policy->set("effect", "EFFECT_ALLOW");
  policy->set("condition", "activity.resource == 'USER'");
  policy->set("consensus", "approvers.any(user, user.id == '" + gw.root().userId + "')");
  policy->set("notes", "");
  auto create = o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), policy);
  EXPECT_EQ(status(create), kConsensus) << json::stringify(create);
  EXPECT_EQ(status(o.vote(r2, create)), kCompleted);
  // U1 matches the condition but not the consensus: the request waits for R1.
  EXPECT_EQ(status(o.createUsers(u1)), kConsensus);
  // R1 alone, covered by the policy.
  EXPECT_EQ(status(o.createUsers(gw.root().userId)), kCompleted);
}

// Undocumented choices (gateway/policy/README.md): an erroring DENY denies; a DENY wins over a root
// vote below the threshold.
TEST_P(PolicyEngineTest, ErroringDenyDeniesAndDenyBeatsAPartialRootQuorum) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u = o.user("U"), r2 = o.user("R2");
  o.policy("allow user writes", "EFFECT_ALLOW", "activity.resource == 'USER'");
  std::string broken =
      o.policy("broken deny", "EFFECT_DENY", "activity.action == 'DELETE' && wallet.id == 'W'");
  auto denied = o.deleteUsers(u, {r2});
  EXPECT_EQ(status(denied), kFailed);
  std::string message = denied->getObject("failure")->getValue<std::string>("message");
  EXPECT_NE(message.find("broken deny"), std::string::npos) << message;
  EXPECT_NE(message.find("errored"), std::string::npos) << message;

  json::Object quorum = json::object();
  quorum->set("threshold", 2);
  quorum->set("userIds", json::stringArray({gw.root().userId, r2}));
  EXPECT_EQ(status(o.root().submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
                                   o.org(), quorum)),
            kCompleted);
  // R1 alone is one of two root votes; a matching DENY fails it rather than leaving it waiting.
  auto r1Delete = o.deleteUsers(gw.root().userId, {u});
  EXPECT_EQ(status(r1Delete), kFailed);
}

TEST_P(PolicyEngineTest, PolicyCrudAndRefusals) {
  TestGateway gw(GetParam());
  Org o(gw);
  std::string id =
      o.policy("first", "EFFECT_ALLOW", "activity.action == 'CREATE'", "approvers.count() >= 1");
  json::Object bad = json::object();
  bad->set("policyName", "broken");
  bad->set("effect", "EFFECT_ALLOW");
  bad->set("condition", "activity.action == ");
  bad->set("notes", "");
  try {
    o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), bad);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("invalid policy condition: syntax error at position 19"),
              std::string::npos)
        << e.what();
  }
  bad->set("condition", "approvers.count() > 1");  // a consensus keyword in a condition
  EXPECT_THROW(o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), bad),
               RequestError);
  // Time expressions: checked when written, down to the cron, duration and zone.
  bad->set("condition", "true");
  for (const auto& [time, message] : std::vector<std::pair<std::string, std::string>>{
           {"CronSpan('*/5 * * * *', '1h', 'UTC')",
            "invalid field parameters.time: invalid policy time: at position 0: CronSpan(): cron "
            "minute field '*/5'"},
           {"CronSpan('0 9 * *', '1h', 'UTC')", "must have exactly 5 fields"},
           {"CronSpan('0 9 * * 7', '1h', 'UTC')", "'7' is outside 0-6"},
           {"CronSpan('0 9 * * 1', '8d', 'UTC')", "duration '8d' is longer than 7 days"},
           {"CronSpan('0 9 * * 1', '8h', 'Mars/Olympus')", "time zone 'Mars/Olympus'"},
           {"CronSpan('0 9 * * 1', '8h', '../../etc/passwd')", "is not an IANA time zone name"},
           {"time.now >= Timestamp('2026-01-01T00:00:00+01:00')", "at offset zero"},
           {"activity.type == 'X'", "unknown keyword 'activity' (a time reads time)"},
           {"Now() > 1", "unknown function Now()"},
           {"time.now > Timestamp(time.now, 'x')", "Timestamp() takes one RFC 3339 string"},
           {"CronSpan(1, '1h', 'UTC')", "CronSpan() takes strings, got int"},
       }) {
    bad->set("time", time);
    try {
      o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), bad);
      ADD_FAILURE() << time << " was accepted";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  bad->set("time", "");
  bad->set("condition", "CronSpan('0 9 * * 1-5', '8h', 'UTC')");
  EXPECT_THROW(o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), bad),
               RequestError);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM policies"), 1);

  json::Object dup = json::object();
  dup->set("policyName", "first");
  dup->set("effect", "EFFECT_DENY");
  dup->set("notes", "");
  auto a = o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(), dup);
  EXPECT_EQ(status(a), kFailed);
  EXPECT_NE(
      a->getObject("failure")->getValue<std::string>("message").find("policy label must be unique"),
      std::string::npos);

  json::Object update = json::object();
  update->set("policyId", id);
  update->set("policyNotes", "now with notes");
  EXPECT_EQ(
      status(o.root().submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", o.org(), update)),
      kCompleted);
  auto q = orgBody(o.org());
  q->set("policyId", id);
  auto p = o.root().query("get_policy", q)->getObject("policy");
  EXPECT_EQ(p->getValue<std::string>("notes"), "now with notes");
  EXPECT_EQ(p->getValue<std::string>("condition"), "activity.action == 'CREATE'");  // kept
  EXPECT_EQ(p->getValue<std::string>("effect"), "EFFECT_ALLOW");

  json::Object many = json::object();
  json::Array list = json::array();
  for (const char* name : {"second", "third"}) {
    json::Object item = json::object();
    item->set("policyName", name);
    item->set("effect", "EFFECT_DENY");
    item->set("condition", "activity.action == 'EXPORT'");
    item->set("notes", "");
    list->add(item);
  }
  many->set("policies", list);
  auto created = o.root().submit("create_policies", "ACTIVITY_TYPE_CREATE_POLICIES", o.org(), many);
  auto ids = created->getObject("result")->getObject("createPoliciesResult")->getArray("policyIds");
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ(o.root().query("list_policies", orgBody(o.org()))->getArray("policies")->size(), 3u);
  json::Object del = json::object();
  del->set("policyIds",
           json::stringArray({ids->getElement<std::string>(0), ids->getElement<std::string>(1)}));
  EXPECT_EQ(
      status(o.root().submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", o.org(), del)),
      kCompleted);
  json::Object one = json::object();
  one->set("policyId", id);
  EXPECT_EQ(status(o.root().submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", o.org(), one)),
            kCompleted);
  EXPECT_EQ(o.root().query("list_policies", orgBody(o.org()))->getArray("policies")->size(), 0u);
}

TEST_P(PolicyEngineTest, AnOrganizationHoldsAtMostItsLimitOfPolicies) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto policy = [](const std::string& name) {
    json::Object p = json::object();
    p->set("policyName", name);
    p->set("effect", "EFFECT_DENY");
    p->set("condition", "activity.action == 'EXPORT'");
    p->set("notes", "");
    return p;
  };
  json::Object many = json::object();
  json::Array list = json::array();
  for (size_t i = 0; i < policy::kMaxPoliciesPerOrganization; ++i)
    list->add(policy("p" + std::to_string(i)));
  many->set("policies", list);
  EXPECT_EQ(
      status(o.root().submit("create_policies", "ACTIVITY_TYPE_CREATE_POLICIES", o.org(), many)),
      kCompleted);
  // One more is refused, names the limit, and stores nothing; another organization is not
  // counted against it.
  auto refused = o.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", o.org(),
                                 policy("one too many"));
  EXPECT_EQ(status(refused), kFailed);
  EXPECT_NE(refused->getObject("failure")->getValue<std::string>("message").find(
                "already has 100 policies, the limit"),
            std::string::npos)
      << refused->getObject("failure")->getValue<std::string>("message");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM policies WHERE name = 'one too many'"), 0);
  auto [other, stamper] = gw.createOrganization("Other Org");
  EXPECT_EQ(status(gw.clientWith(stamper).submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3",
                                                 other.organizationId, policy("p0"))),
            kCompleted);
}

TEST_P(PolicyEngineTest, VotesAreCheckedAndTheWindowCloses) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto u1 = o.user("U1"), u2 = o.user("U2");
  o.policy("two approvals", "EFFECT_ALLOW", "activity.resource == 'USER'",
           "approvers.count() >= 2");
  // Unknown fingerprint: 404 naming it.
  json::Object p = json::object();
  p->set("fingerprint", "sha256:" + std::string(64, '0'));
  try {
    o.as(u2).submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", o.org(), p);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404);
    EXPECT_NE(std::string(e.what()).find("No activity found with fingerprint"), std::string::npos);
  }
  // A fingerprint that is not a string: 400 naming it.
  json::Object wrong = json::object();
  wrong->set("fingerprint", 42);
  for (const char* vote : {"approve_activity", "reject_activity"}) {
    std::string type =
        std::string("ACTIVITY_TYPE_") + (vote[0] == 'a' ? "APPROVE" : "REJECT") + "_ACTIVITY";
    try {
      o.as(u2).submit(vote, type, o.org(), wrong);
      ADD_FAILURE() << vote;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400) << e.what();
      EXPECT_NE(std::string(e.what()).find("parameters.fingerprint"), std::string::npos)
          << e.what();
    }
  }
  // Another tenant's user cannot vote.
  auto a = o.createUsers(u1);
  ASSERT_EQ(status(a), kConsensus);
  auto [other, otherStamper] = gw.createOrganization("other");
  p->set("fingerprint", a->getValue<std::string>("fingerprint"));
  EXPECT_THROW(gw.clientWith(otherStamper)
                   .submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", o.org(), p),
               RequestError);
  // After 24 hours the window is closed.
  int64_t later = systemNowMs() + 25 * 3600 * 1000;
  gw.gateway().setClock([later] { return later; });
  json::Object lateBody = json::object();
  lateBody->set("fingerprint", a->getValue<std::string>("fingerprint"));
  try {
    o.as(u2).submitRaw("approve_activity",
                       activityBody("ACTIVITY_TYPE_APPROVE_ACTIVITY", o.org(), lateBody, later));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("24-hour approval window"), std::string::npos) << e.what();
  }
  gw.gateway().setClock(systemNowMs);
  // The evaluations of every vote are kept.
  EXPECT_EQ(status(o.vote(u2, a)), kCompleted);
  auto q = orgBody(o.org());
  q->set("activityId", a->getValue<std::string>("id"));
  auto evaluations = o.root().query("get_policy_evaluations", q)->getArray("policyEvaluations");
  ASSERT_EQ(evaluations->size(), 2u);
  EXPECT_EQ(evaluations->getObject(0)
                ->getArray("policyEvaluations")
                ->getObject(0)
                ->getValue<std::string>("outcome"),
            "OUTCOME_REQUIRES_CONSENSUS");
  EXPECT_EQ(evaluations->getObject(1)
                ->getArray("policyEvaluations")
                ->getObject(0)
                ->getValue<std::string>("outcome"),
            "OUTCOME_ALLOW");
}

// The engine keeps an organization's parsed policies until its policy version changes. Every
// write replaces the version (through the API or straight into the store, as another gateway
// on the same database would), and a write that rolls back cannot leave a stale set behind.
TEST_P(PolicyEngineTest, ParsedPolicySetsFollowEveryWrite) {
  TestGateway gw(GetParam());
  Org o(gw);
  policy::PolicySetCache cache;
  auto setNow = [&] {
    std::shared_ptr<const policy::PolicySet> set;
    gw.write([&](Db& db) { set = cache.policiesOf(db, o.org()); });
    return set;
  };
  auto empty = setNow();
  EXPECT_EQ(setNow(), empty);  // nothing written: the very same parsed set
  std::string id = o.policy("creators", "EFFECT_ALLOW", "activity.action == 'CREATE'", "");
  auto one = setNow();
  ASSERT_EQ(one->size(), empty->size() + 1);
  ASSERT_TRUE(one->back().condition);
  EXPECT_EQ(one->back().record.id, id);

  json::Object update = json::object();
  update->set("policyId", id);
  update->set("policyCondition", "activity.action == 'DELETE'");
  ASSERT_EQ(
      status(o.root().submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", o.org(), update)),
      kCompleted);
  EXPECT_EQ(setNow()->back().record.condition, "activity.action == 'DELETE'");

  // Read inside a transaction that then rolls back: the cache saw a set that never committed.
  EXPECT_THROW(gw.write([&](Db& db) {
    policy::PolicyRecord r = one->back().record;
    r.id = crypto::uuidV4();
    r.name = "never committed";
    policy::insertPolicy(db, r);
    EXPECT_EQ(cache.policiesOf(db, o.org())->size(), empty->size() + 2);
    throw std::runtime_error("roll back");
  }),
               std::runtime_error);
  EXPECT_EQ(setNow()->size(), empty->size() + 1);

  gw.write([&](Db& db) { policy::deletePolicy(db, o.org(), id); });  // past the API
  EXPECT_EQ(setNow()->size(), empty->size());
}

// A stored clause that no longer parses (written past the API, or by a build whose grammar
// differed) is that policy's OUTCOME_ERROR, recorded like any other: it fails closed without
// taking the activity's evaluation down with it.
TEST_P(PolicyEngineTest, AStoredClauseThatNoLongerParsesIsThatPolicysError) {
  TestGateway gw(GetParam());
  Org o(gw);
  std::string u = o.user("u");
  std::string ok = o.policy("users", "EFFECT_ALLOW", "activity.resource == 'USER'");
  std::string broken = o.policy("broken", "EFFECT_DENY", "activity.action == 'DELETE'");
  gw.write([&](Db& db) {
    db.exec("UPDATE policies SET condition_expr = ? WHERE id = ?",
            {std::string("activity.action =="), broken});
    db.exec("UPDATE organizations SET policy_version = ? WHERE id = ?",
            {crypto::uuidV4(), o.org()});
  });
  auto a = o.createUsers(u);
  EXPECT_NE(failureOf(a).find("policy 'broken' (" + broken + ") errored"), std::string::npos);
  json::Object q = orgBody(o.org());
  q->set("activityId", a->getValue<std::string>("id"));
  auto evaluations = o.root()
                         .query("get_policy_evaluations", q)
                         ->getArray("policyEvaluations")
                         ->getObject(0)
                         ->getArray("policyEvaluations");
  std::map<std::string, std::string> outcomes;
  for (size_t i = 0; i < evaluations->size(); ++i) {
    auto e = evaluations->getObject(static_cast<unsigned>(i));
    outcomes[e->getValue<std::string>("policyId")] = e->getValue<std::string>("outcome");
  }
  EXPECT_EQ(outcomes[broken], "OUTCOME_ERROR");
  EXPECT_EQ(outcomes[ok], "OUTCOME_ALLOW");
}

// `votes` as stored, with one more: the first vote's copy with `userId` as the voter, the vote
// another gateway would have stored for that user.
std::string withVoteOf(const std::string& votes, const std::string& userId) {
  auto list = json::parseArray(votes, "votes");
  json::Object vote = new Poco::JSON::Object(*list->getObject(0));
  vote->set("id", crypto::uuidV4());
  vote->set("userId", userId);
  list->add(vote);
  return json::stringify(list);
}

// `userId`'s approval of `activity`, on a thread of its own (it will wait for a lock the test
// holds): `outcome` gets the activity's status, or the refusal.
std::thread approving(Org& o, const std::string& userId, const json::Object& activity,
                      std::string& outcome) {
  return std::thread([&o, userId, activity, &outcome] {
    json::Object p = json::object();
    p->set("fingerprint", activity->getValue<std::string>("fingerprint"));
    try {
      outcome = status(
          o.as(userId).submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", o.org(), p));
    } catch (const std::exception& e) {
      outcome = e.what();
    }
  });
}

// Two votes on one activity at once, from two gateways (or write lanes) on one PostgreSQL: the
// later one waits for the first and adds to it, instead of writing over it. The first is a
// session of the test's own, holding the activity's row while it adds a third approver's vote.
TEST(PolicyEnginePostgresTest, AVoteWaitsForAConcurrentVoteAndKeepsIt) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  Org o(gw);
  auto u1 = o.user("U1"), u2 = o.user("U2"), u3 = o.user("U3");
  o.policy("three approvals", "EFFECT_ALLOW", "activity.resource == 'USER'",
           "approvers.count() >= 3");
  auto a = o.createUsers(u1);
  ASSERT_EQ(status(a), kConsensus);
  const std::string id = a->getValue<std::string>("id");

  auto other = openConnection(gw.gateway().config().database);
  other->begin();
  const std::string votes = withVoteOf(
      other->queryOne("SELECT votes FROM activities WHERE id = ? FOR UPDATE", {id})->str("votes"),
      u3);

  std::string approved;
  std::thread voting = approving(o, u2, a, approved);
  // Once U2's vote waits for the row, U3's commits.
  EXPECT_TRUE(sessionsWaitForLocks(gw.gateway().config().database))
      << "U2's vote never waited for the held activity";
  other->exec("UPDATE activities SET votes = ? WHERE id = ?", {votes, id});
  other->commit();
  voting.join();

  // U2's vote was the third approval: the activity ran, with all three votes.
  EXPECT_EQ(approved, kCompleted);
  auto read = o.root()
                  .query("get_activity",
                         [&] {
                           json::Object q = orgBody(o.org());
                           q->set("activityId", id);
                           return q;
                         }())
                  ->getObject("activity");
  std::set<std::string> voters;
  for (size_t i = 0; i < read->getArray("votes")->size(); ++i)
    voters.insert(read->getArray("votes")
                      ->getObject(static_cast<unsigned>(i))
                      ->getValue<std::string>("userId"));
  EXPECT_EQ(voters, (std::set<std::string>{u1, u2, u3}));
}

// A vote whose activity then fails to run: the run is rolled back, and the failure is written
// in a transaction of its own. A vote that committed in between (another gateway's; here a
// session of the test's own, queued on the activity's row while the run held it) is kept in
// the failed activity, not written over by the run's copy.
TEST(PolicyEnginePostgresTest, AVoteCommittedWhileAnotherVotesRunFailedIsKept) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  Org o(gw);
  auto u1 = o.user("U1"), u2 = o.user("U2"), u3 = o.user("U3");
  o.policy("two approvals", "EFFECT_ALLOW", "activity.resource == 'USER_TAG'",
           "approvers.count() >= 2");
  json::Object tag = json::object();
  tag->set("userTagName", "contested");
  tag->set("userIds", json::array());
  auto a = o.as(u1).submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", o.org(), tag);
  ASSERT_EQ(status(a), kConsensus);
  const std::string id = a->getValue<std::string>("id");
  const auto& config = gw.gateway().config().database;

  // The tag's name, taken by a transaction that has not committed: U2's approval runs the
  // activity, whose insert waits for it, holding the activity's row meanwhile.
  auto taker = openConnection(config);
  taker->begin();
  taker->exec(
      "INSERT INTO user_tags (id, organization_id, name, created_at_ms, updated_at_ms) VALUES "
      "(?, ?, 'contested', 0, 0)",
      {crypto::uuidV4(), o.org()});
  std::string approved;
  std::thread voting = approving(o, u2, a, approved);
  EXPECT_TRUE(sessionsWaitForLocks(config, 1)) << "U2's approval never waited for the taken name";
  // U3's vote queues on the activity's row; it gets the row once the run is rolled back.
  std::thread other([&] {
    auto db = openConnection(config);
    db->begin();
    auto votes = withVoteOf(
        db->queryOne("SELECT votes FROM activities WHERE id = ? FOR UPDATE", {id})->str("votes"),
        u3);
    db->exec("UPDATE activities SET votes = ? WHERE id = ?", {votes, id});
    db->commit();
  });
  EXPECT_TRUE(sessionsWaitForLocks(config, 2)) << "U3's vote never queued on the activity's row";
  taker->commit();  // the run's insert now fails: the activity fails
  other.join();
  voting.join();

  EXPECT_EQ(approved, "ACTIVITY_STATUS_FAILED");
  std::set<std::string> voters;
  gw.gateway().database().read([&](Db& db) {
    auto votes = json::parseArray(
        db.queryOne("SELECT votes FROM activities WHERE id = ?", {id})->str("votes"), "votes");
    for (size_t i = 0; i < votes->size(); ++i)
      voters.insert(votes->getObject(static_cast<unsigned>(i))->getValue<std::string>("userId"));
  });
  EXPECT_EQ(voters, (std::set<std::string>{u1, u2, u3}));
}

}  // namespace
}  // namespace signet::test
