// For every activity type and query the gateway serves (core and enabled plugins, read from
// the catalog so that new ones are covered without editing this file): a key of another
// tenant is refused and nothing changes; a sub-organization's key never reaches its parent;
// a parent's key runs no activity in a sub-organization unless the type allows it.
#include "support/store_fingerprint.hpp"
#include "support/test_gateway.hpp"
#include "tenancy/bootstrap.hpp"
#include "tenancy/directory.hpp"

namespace signet::test {
namespace {

class CrossTenantTest : public BackendTest {};
SIGNET_BACKEND_SUITE(CrossTenantTest);

TEST_P(CrossTenantTest, EveryOperationRefusesAnotherTenantsKeyAndChangesNothing) {
  TestGateway gw(GetParam(), {"memo", "sessions", "signing"});
  auto [other, otherStamper] = gw.createOrganization("Intruder Org");
  auto intruder = gw.clientWith(otherStamper);
  const std::string target = gw.root().organizationId;
  auto before = fingerprintOfStore(gw);
  size_t activities = 0, queries = 0;
  for (const auto& module : gw.gateway().catalog().modules()) {
    if (!module->enabled) continue;
    for (const auto& spec : module->activities) {
      ++activities;
      try {
        intruder.submitRaw(spec.path, activityBody(spec.type, target, json::object()));
        ADD_FAILURE() << spec.type << " accepted another tenant's key";
      } catch (const RequestError& e) {
        EXPECT_EQ(e.httpStatus(), 401) << spec.type << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(other.organizationId), std::string::npos) << e.what();
      }
    }
    for (const auto& q : module->queries) {
      ++queries;
      try {
        intruder.query(q.path, orgBody(target));
        ADD_FAILURE() << q.path << " answered another tenant's key";
      } catch (const RequestError& e) {
        EXPECT_EQ(e.httpStatus(), 401) << q.path << ": " << e.what();
      }
    }
  }
  EXPECT_GE(activities, 25u);
  EXPECT_GE(queries, 14u);
  EXPECT_EQ(changedTables(before, fingerprintOfStore(gw)), "");
}

TEST_P(CrossTenantTest, SubOrganizationKeysStayInsideAndParentKeysRunNoSubOrganizationActivity) {
  TestGateway gw(GetParam(), {"memo", "sessions", "signing"});
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  std::string subId = crypto::uuidV4(), userId = crypto::uuidV4();
  int64_t now = systemNowMs();
  gw.write([&](Db& db) {
    directory::insertOrganization(db, {subId, "child", gw.root().organizationId, 1, now, now});
    directory::insertUser(db, {userId, subId, "child root", std::nullopt, std::nullopt, now, now});
    directory::addRootQuorumMember(db, subId, userId);
    directory::insertApiKey(db, {crypto::uuidV4(), subId, userId, "k", pub, "API_KEY_CURVE_P256",
                                 "CREDENTIAL_TYPE_API_KEY_P256", std::nullopt, now, now});
  });
  auto child =
      gw.clientWith(std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256));
  auto parent = gw.rootClient();
  // The refused activities are recorded (for audit): counted below.
  const auto& attempts = kActivityRecordTables;
  auto before = fingerprintOfStore(gw, attempts);
  int64_t activitiesBefore = gw.count("SELECT COUNT(*) FROM activities");
  size_t parentAttempts = 0;
  for (const auto& module : gw.gateway().catalog().modules()) {
    if (!module->enabled) continue;
    for (const auto& spec : module->activities) {
      try {
        child.submitRaw(spec.path,
                        activityBody(spec.type, gw.root().organizationId, json::object()));
        ADD_FAILURE() << spec.type << ": a sub-organization's key reached its parent";
      } catch (const RequestError& e) {
        EXPECT_EQ(e.httpStatus(), 401) << spec.type;
      }
      if (spec.allowParentOrganization) continue;
      if (spec.type == "ACTIVITY_TYPE_APPROVE_ACTIVITY" ||
          spec.type == "ACTIVITY_TYPE_REJECT_ACTIVITY") {
        // Votes create no activity of their own: a parent's vote is refused outright.
        EXPECT_THROW(parent.submitRaw(spec.path, activityBody(spec.type, subId, json::object())),
                     RequestError);
        continue;
      }
      if (spec.rollout.state != RolloutState::kGeneral) {
        // A version not yet open (memo's canary V2) is refused before anything is stored.
        EXPECT_THROW(parent.submitRaw(spec.path, activityBody(spec.type, subId, json::object())),
                     RequestError)
            << spec.type;
        continue;
      }
      ++parentAttempts;
      auto a = parent.submitRaw(spec.path, activityBody(spec.type, subId, wellShaped(spec)));
      EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED") << spec.type;
      EXPECT_NE(
          a->getObject("failure")->getValue<std::string>("message").find("only its own users"),
          std::string::npos)
          << spec.type;
    }
    for (const auto& q : module->queries) {
      if (q.path == "whoami") {
        // whoami resolves downward by design: it tells the caller who they are, in the
        // sub-organization that holds the key, and reveals nothing of the parent.
        EXPECT_EQ(child.query("whoami", orgBody(gw.root().organizationId))
                      ->getValue<std::string>("organizationId"),
                  subId);
        continue;
      }
      try {
        child.query(q.path, orgBody(gw.root().organizationId));
        ADD_FAILURE() << q.path << ": a sub-organization's key read its parent";
      } catch (const RequestError& e) {
        EXPECT_EQ(e.httpStatus(), 401) << q.path;
      }
    }
  }
  // Only the refused activities were recorded (for audit); nothing else moved.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"),
            activitiesBefore + static_cast<int64_t>(parentAttempts));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE organization_id = ? AND status <> "
                     "'ACTIVITY_STATUS_FAILED'",
                     {subId}),
            0);
  EXPECT_EQ(changedTables(before, fingerprintOfStore(gw, attempts)), "");
}

}  // namespace
}  // namespace signet::test
