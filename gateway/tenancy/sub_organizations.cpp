#include "tenancy/sub_organizations.hpp"

#include <cstring>

#include "signet/client_signature.hpp"
#include "signet/jwt.hpp"
#include "signet/pagination.hpp"
#include "tenancy/contacts.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/oauth_providers.hpp"
#include "tenancy/user_params.hpp"

namespace signet::sub_organizations {

namespace {
using P = CreateSubOrganizationParameters;
}  // namespace

const Shape<P> kCreateSubOrganizationV4 = {
    field("subOrganizationName", &P::subOrganizationName, {.displayName = true}),
    field("rootUsers", &P::rootUsers, users::rootUserShape()),
    field("rootQuorumThreshold", &P::rootQuorumThreshold),
    field("wallet", &P::wallet, walletShape()),
    field("disableEmailRecovery", &P::disableEmailRecovery),
    field("disableEmailAuth", &P::disableEmailAuth)};
const Shape<P> kCreateSubOrganizationV7 = {
    field("subOrganizationName", &P::subOrganizationName, {.displayName = true}),
    field("rootUsers", &P::rootUsers, users::rootUserShape()),
    field("rootQuorumThreshold", &P::rootQuorumThreshold),
    field("wallet", &P::wallet, walletShape()),
    field("disableEmailRecovery", &P::disableEmailRecovery),
    field("disableEmailAuth", &P::disableEmailAuth),
    field("disableSmsAuth", &P::disableSmsAuth),
    field("disableOtpEmailAuth", &P::disableOtpEmailAuth),
    field("verificationToken", &P::verificationToken),
    field("clientSignature", &P::clientSignature)};
const Shape<DeleteSubOrganizationParameters> kDeleteSubOrganization = {
    field("deleteWithoutExport", &DeleteSubOrganizationParameters::deleteWithoutExport)};

// A V4 shape leaves the V7 fields unread, so they are absent here below V7.
json::Object createSubOrganization(ActivityContext& ctx, const P& p) {
  Db& db = ctx.db();
  auto parent = directory::requireOrganization(db, ctx.organizationId());
  const std::string& name = p.subOrganizationName;
  if (name.empty())
    throw invalidArgument("invalid field parameters.subOrganizationName: must not be empty");
  const auto& rootUsers = p.rootUsers;
  if (rootUsers.empty())
    throw invalidArgument("invalid field parameters.rootUsers: must not be empty");
  const int64_t threshold = p.rootQuorumThreshold;
  if (threshold < 1 || static_cast<size_t>(threshold) > rootUsers.size())
    throw invalidArgument(
        "invalid field parameters.rootQuorumThreshold: " + std::to_string(threshold) +
        " must be between 1 and the " + std::to_string(rootUsers.size()) + " root users");
  const auto& wallet = p.wallet;
  OrganizationFlags flags;
  flags.disableEmailRecovery = p.disableEmailRecovery.value_or(false);
  flags.disableEmailAuth = p.disableEmailAuth.value_or(false);
  flags.disableSmsAuth = p.disableSmsAuth.value_or(false);
  flags.disableOtpEmailAuth = p.disableOtpEmailAuth.value_or(false);
  if (parent.parentId)
    throw failedPrecondition("organization " + parent.id + " is itself a sub-organization of " +
                             *parent.parentId + "; sub-organizations cannot have their own");
  if (wallet && !ctx.services().createWallet)
    throw Error(Code::kUnimplemented,
                "parameters.wallet: wallets are created by the 'signing' plugin, which is not "
                "enabled in this gateway's config (plugins.enabled); enable it or omit wallet");

  int64_t now = ctx.nowMs();
  OrganizationRecord org{
      crypto::uuidV4(), name, parent.id, static_cast<int>(threshold), now, now, flags};
  directory::insertOrganization(db, org);
  std::vector<std::string> rootUserIds;
  std::vector<UserRecord> created;
  for (size_t i = 0; i < rootUsers.size(); ++i) {
    auto user = users::createFromParams(ctx, org.id, rootUsers[i],
                                        "parameters.rootUsers[" + std::to_string(i) + "]");
    directory::addRootQuorumMember(db, org.id, user.id);
    rootUserIds.push_back(user.id);
    created.push_back(user);
  }
  if (const auto& token = p.verificationToken) {
    auto v = contacts::spendVerificationToken(ctx, *token, org.id, parent.id,
                                              "parameters.verificationToken",
                                              contacts::TokenUse::kSignup);
    if (const auto& sig = p.clientSignature)
      checkClientSignature(*sig, v, "USAGE_TYPE_SIGNUP", "parameters.clientSignature");
    bool matched = false;
    for (auto& u : created) {
      if (u.email && contacts::sameContact(v, "OTP_TYPE_EMAIL", *u.email))
        u.emailVerified = matched = true;
      if (u.phoneNumber && contacts::sameContact(v, "OTP_TYPE_SMS", *u.phoneNumber))
        u.phoneNumberVerified = matched = true;
      directory::updateUser(db, u);
    }
    if (!matched)
      throw invalidArgument("invalid field parameters.verificationToken: it verifies " + v.contact +
                            ", which no root user has");
  }
  json::Object result = json::object();
  result->set("subOrganizationId", org.id);
  result->set("rootUserIds", json::stringArray(rootUserIds));
  if (wallet) result->set("wallet", ctx.services().createWallet(ctx, org.id, *wallet));
  return result;
}

namespace {
// A filter on the users of a sub-organization: the core's USERNAME, EMAIL and PHONE_NUMBER, and
// the verified ones.
std::pair<std::string, SqlParams> usersWhere(const std::string& condition,
                                             const std::string& value) {
  return {"id IN (SELECT organization_id FROM users WHERE " + condition + ")", {value}};
}
}  // namespace

std::string filteredListSql(const std::string& condition) {
  // The filter finds the few that match, through its index, and the parent only checks them:
  // COALESCE keeps any index from serving the parent's column. A planner without statistics
  // (SQLite's) would otherwise read every sub-organization of the parent (an app's one parent
  // may hold millions, one a user) to test each against the filter.
  return "SELECT id FROM organizations WHERE COALESCE(parent_id, '') = ? AND (" + condition + ")";
}

std::pair<std::string, SqlParams> verifiedCondition(const std::string& filterType,
                                                    const std::string& value) {
  if (filterType == "EMAIL")
    return usersWhere("lower(email) = lower(?) AND email_verified = 1", value);
  if (filterType == "PHONE_NUMBER")
    return usersWhere("phone_number = ? AND phone_number_verified = 1", value);
  throw invalidArgument(
      "invalid field filterType: list_verified_suborgs filters by EMAIL or PHONE_NUMBER, not \"" +
      filterType + "\"");
}

namespace {

json::Object list(RequestContext& ctx, const json::Object& body, bool verifiedOnly) {
  auto filterType = json::optionalString(body, "filterType", "").value_or("");
  auto filterValue = json::optionalString(body, "filterValue", "");
  std::string sql = "SELECT id FROM organizations WHERE parent_id = ?";
  SqlParams params{ctx.organizationId()};
  if (!filterType.empty()) {
    if (!filterValue)
      throw invalidArgument("missing required field filterValue (filterType is " + filterType +
                            ")");
    std::pair<std::string, SqlParams> condition;
    if (verifiedOnly) {
      condition = verifiedCondition(filterType, *filterValue);
    } else if (filterType == "OIDC_TOKEN") {
      // Verified first (the issuer's keys may be fetched: a query holds no write lock), then
      // matched on issuer, subject and any of the token's audiences.
      if (!ctx.services().verifyOidcToken)
        throw Error(
            Code::kUnimplemented,
            "filterType OIDC_TOKEN needs OIDC token verification, which the 'sessions' "
            "plugin provides; it is not enabled in this gateway's config (plugins.enabled)");
      condition = oauth_providers::subOrganizationCondition(ctx.services().verifyOidcToken(
          ctx.services(), ctx.db(), *filterValue, "filterValue", ctx.nowMs(), true));
    } else {
      const SubOrganizationFilter* filter = nullptr;
      for (const auto& [module, f] : ctx.services().subOrganizationFilters)
        if (f.filterType == filterType) filter = &f;
      if (!filter) {
        if (filterType == "WALLET_ACCOUNT_ADDRESS")
          throw Error(Code::kUnimplemented,
                      "filterType WALLET_ACCOUNT_ADDRESS is served by the 'signing' plugin, which "
                      "is not enabled in this gateway's config (plugins.enabled)");
        throw invalidArgument("invalid field filterType: \"" + filterType +
                              "\" is not a filter type");
      }
      condition = filter->condition(*filterValue);
    }
    sql = filteredListSql(condition.first);
    params.insert(params.end(), condition.second.begin(), condition.second.end());
  }
  // Oldest first.
  auto rows =
      queryPage(ctx.db(), sql, params, parsePagination(body), /*newestFirst=*/false,
                [&](const std::string& id) {
                  auto row = ctx.db().queryOne(
                      "SELECT created_at_ms FROM organizations WHERE id = ? AND parent_id = ?",
                      {id, ctx.organizationId()});
                  if (!row)
                    throw invalidArgument("invalid field paginationOptions: cursor " + id +
                                          " is not a sub-organization of " + ctx.organizationId());
                  return row->i64("created_at_ms");
                });
  std::vector<std::string> ids;
  for (const auto& row : rows) ids.push_back(row.str("id"));
  json::Object r = json::object();
  r->set("organizationIds", json::stringArray(ids));
  return r;
}
}  // namespace

json::Object deleteSubOrganization(ActivityContext& ctx,
                                   const DeleteSubOrganizationParameters& params) {
  const bool withoutExport = params.deleteWithoutExport.value_or(false);
  auto org = directory::requireOrganization(ctx.db(), ctx.organizationId());
  if (!org.parentId)
    throw failedPrecondition("organization " + org.id +
                             " is not a sub-organization; only "
                             "sub-organizations can be deleted");
  // Modules refuse when something would be lost (the signing plugin: unexported keys) and
  // otherwise remove their own rows of this organization.
  for (const auto& [module, hook] : ctx.services().deletionHooks) hook(ctx, org.id, withoutExport);
  directory::deleteOrganization(ctx.db(), org.id);
  json::Object r = json::object();
  r->set("subOrganizationUuid", org.id);
  return r;
}

json::Object listSubOrganizations(RequestContext& ctx, const json::Object& body) {
  return list(ctx, body, false);
}

json::Object listVerifiedSubOrganizations(RequestContext& ctx, const json::Object& body) {
  return list(ctx, body, true);
}

std::vector<SubOrganizationFilter> coreFilters() {
  return {
      {"NAME",
       [](const std::string& v) { return std::make_pair(std::string("name = ?"), SqlParams{v}); }},
      {"USERNAME", [](const std::string& v) { return usersWhere("name = ?", v); }},
      {"EMAIL", [](const std::string& v) { return usersWhere("lower(email) = lower(?)", v); }},
      {"PHONE_NUMBER", [](const std::string& v) { return usersWhere("phone_number = ?", v); }},
      {"CREDENTIAL_ID",
       [](const std::string& v) {
         auto raw = base64Decode(v);
         return std::make_pair(
             std::string(
                 "id IN (SELECT organization_id FROM authenticators WHERE credential_id = ?)"),
             SqlParams{raw ? base64UrlEncode(*raw) : v});
       }},
      {"PUBLIC_KEY",
       [](const std::string& v) {
         std::string key = asciiLower(v);
         return std::make_pair(
             // One IN over a UNION, not two INs joined by OR: PostgreSQL reads every
             // organization to test an OR of subqueries.
             std::string("id IN (SELECT organization_id FROM api_keys WHERE public_key = ? UNION "
                         "SELECT organization_id FROM authenticators WHERE public_key = ?)"),
             SqlParams{key, key});
       }},
  };
}

}  // namespace signet::sub_organizations
