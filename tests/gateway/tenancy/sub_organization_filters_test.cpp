// list_suborgs and list_verified_suborgs find a parent's sub-organizations by a filter (email,
// username, name, phone number, public key, credential, OAuth identity, wallet address). The auth
// proxy's account and login look-ups, which anyone may call, run them for strangers. So each must
// go through an index, on both stores, however many sub-organizations the parent holds (an app's
// one parent may hold one a user): a whole table read would hold a worker for as long as the
// store is large.
#include <set>

#include "support/query_plans.hpp"
#include "support/test_gateway.hpp"
#include "tenancy/oauth_providers.hpp"
#include "tenancy/sub_organizations.hpp"

namespace signet::test {
namespace {

class SubOrganizationFiltersTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SubOrganizationFiltersTest);

TEST_P(SubOrganizationFiltersTest, EveryFilterFindsItsMatchesThroughAnIndex) {
  TestGateway gw(GetParam(), {"signing"});
  // Each filter's condition, as list_suborgs would run it for a value.
  std::vector<std::pair<std::string, std::pair<std::string, SqlParams>>> conditions;
  for (const auto& [module, filter] : gw.gateway().catalog().services().subOrganizationFilters)
    conditions.push_back({filter.filterType, filter.condition("value-1")});
  for (const char* type : {"EMAIL", "PHONE_NUMBER"})
    conditions.push_back(
        {std::string("verified ") + type, sub_organizations::verifiedCondition(type, "value-1")});
  OidcIdentity token;
  token.issuer = "https://issuer.example";
  token.subject = "subject-1";
  token.audiences = {"client-1", "client-2"};
  conditions.push_back({"OIDC_TOKEN", oauth_providers::subOrganizationCondition(token)});

  std::set<std::string> checked;
  gw.gateway().database().read([&](Db& db) {
    for (const auto& [type, condition] : conditions) {
      std::vector<std::string> values{"parent-1"};
      for (const auto& v : condition.second) values.push_back(std::get<std::string>(v));
      const std::string sql = sub_organizations::filteredListSql(condition.first) +
                              " ORDER BY created_at_ms ASC, id ASC LIMIT 10";
      const auto plan = planOf(db, sql, values);
      EXPECT_EQ(fullScans(db, plan), std::vector<std::string>{}) << type << ": " << sql;
      // Nor through the parent's index, which reads every sub-organization of the parent.
      for (const auto& step : plan)
        EXPECT_EQ(step.find("organizations_parent"), std::string::npos) << type << ": " << step;
      checked.insert(type);
    }
  });
  // Every filter the gateway serves was checked: the core's, and the signing plugin's.
  for (const char* type :
       {"NAME", "USERNAME", "EMAIL", "PHONE_NUMBER", "CREDENTIAL_ID", "PUBLIC_KEY",
        "WALLET_ACCOUNT_ADDRESS", "verified EMAIL", "verified PHONE_NUMBER", "OIDC_TOKEN"})
    EXPECT_TRUE(checked.count(type)) << type;
}

}  // namespace
}  // namespace signet::test
