#include "tenancy/ip_allowlists.hpp"

#include "server/client_address.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet::ip_allowlists {

namespace {

constexpr const char* kColumns = "public_key, enabled, on_evaluation_error, rules";

std::vector<IpAllowlistRule> rulesFrom(const std::string& text) {
  std::vector<IpAllowlistRule> rules;
  auto stored = json::parseObject(text, "stored rules")->getArray("rules");
  for (size_t i = 0; stored && i < stored->size(); ++i) {
    auto r = stored->getObject(i);
    std::string cidr = r->optValue<std::string>("cidr", "");
    rules.push_back({cidr, r->optValue<std::string>("label", ""),
                     r->optValue<int64_t>("createdAtMs", 0), parseCidr(cidr)});
  }
  return rules;
}

std::string rulesText(const std::vector<IpAllowlistRule>& rules) {
  json::Array a = json::array();
  for (const auto& r : rules) {
    json::Object o = json::object();
    o->set("cidr", r.cidr);
    o->set("label", r.label);
    o->set("createdAtMs", r.createdAtMs);
    a->add(o);
  }
  json::Object o = json::object();
  o->set("rules", a);
  return json::stringify(o);
}

// The organization's list for `publicKey` (empty: its own), if any.
std::optional<IpAllowlist> find(Db& db, const std::string& organizationId,
                                const std::string& publicKey) {
  for (auto& list : listsOf(db, organizationId))
    if (list.publicKey == publicKey) return std::move(list);
  return std::nullopt;
}

// The key a list names: an API key of the organization, as it was registered.
std::string keyParam(Db& db, const std::string& organizationId,
                     const std::optional<std::string>& key) {
  if (!key || key->empty()) return "";
  if (!db.queryOne("SELECT 1 FROM api_keys WHERE organization_id = ? AND public_key = ?",
                   {organizationId, *key}))
    throw invalidArgument("invalid field parameters.publicKey: \"" + *key +
                          "\" is not an API key of organization " + organizationId);
  return *key;
}

json::Object allowlistJson(const std::string& organizationId, const std::string& publicKey,
                           const std::optional<IpAllowlist>& list) {
  json::Object o = json::object();
  o->set("organizationId", organizationId);
  json::Array rules = json::array();
  if (list)
    for (const auto& r : list->rules) {
      json::Object rule = json::object();
      rule->set("cidr", r.cidr);
      if (!r.label.empty()) rule->set("label", r.label);
      rule->set("createdAt", std::to_string(r.createdAtMs));
      rules->add(rule);
    }
  o->set("rules", rules);
  if (publicKey.empty())
    o->set("enabled", list ? list->enabled.value_or(false) : false);
  else
    o->set("publicKey", publicKey);
  o->set("onEvaluationError", list ? list->onEvaluationError : std::string("DENY"));
  return o;
}

// Why `list` refuses `client`, or nothing when it lets it through.
std::optional<std::string> refusal(const IpAllowlist& list, const std::string& client) {
  const bool allowOnError = list.onEvaluationError == "ALLOW";
  if (list.unreadable)
    return allowOnError ? std::nullopt
                        : std::optional<std::string>(
                              "its stored rules could not be read, and its "
                              "onEvaluationError is DENY");
  auto address = egress::parseAddress(client);
  if (!address)
    return allowOnError ? std::nullopt
                        : std::optional<std::string>("the client address \"" + client +
                                                     "\" could not be read, and the list's "
                                                     "onEvaluationError is DENY");
  for (const auto& rule : list.rules) {
    if (!rule.network) {
      if (allowOnError) return std::nullopt;
      return "its rule " + rule.cidr + " could not be read, and its onEvaluationError is DENY";
    }
    if (rule.network->contains(*address)) return std::nullopt;
  }
  return "client address " + client + " is in none of its " + std::to_string(list.rules.size()) +
         " rules";
}

}  // namespace

std::vector<IpAllowlist> listsOf(Db& db, const std::string& organizationId) {
  std::vector<IpAllowlist> out;
  for (const auto& row :
       db.query(std::string("SELECT ") + kColumns +
                    " FROM ip_allowlists WHERE organization_id = ? ORDER BY public_key",
                {organizationId})) {
    IpAllowlist list;
    list.organizationId = organizationId;
    list.publicKey = row.str("public_key");
    if (!row.isNull("enabled")) list.enabled = row.i64("enabled") != 0;
    list.onEvaluationError = row.str("on_evaluation_error");
    try {
      list.rules = rulesFrom(row.str("rules"));
    } catch (const std::exception&) {
      list.unreadable = true;  // refusal() lets onEvaluationError decide, not a 400 for all
    }
    out.push_back(std::move(list));
  }
  return out;
}

void check(DirectoryView& directory, const Caller& caller, bool serviceKey,
           const std::string& client) {
  auto lists = directory.ipAllowlists(caller.organizationId);
  if (lists.empty()) return;
  const IpAllowlist* own = nullptr;
  const IpAllowlist* organization = nullptr;
  for (const auto& list : lists) {
    if (list.publicKey == caller.publicKey) own = &list;
    if (list.publicKey.empty() && list.enabled.value_or(false)) organization = &list;
  }
  const IpAllowlist* deciding = own ? own : serviceKey ? nullptr : organization;
  if (!deciding) return;
  if (auto why = refusal(*deciding, client))
    throw Error(Code::kPermissionDenied,
                "refused by the IP allowlist of " +
                    (own ? "API key " + caller.publicKey + " in organization "
                         : std::string("organization ")) +
                    caller.organizationId + ": " + *why);
}

const Shape<IpAllowlistRuleParameters> kRule = {
    field("cidr", &IpAllowlistRuleParameters::cidr),
    field("label", &IpAllowlistRuleParameters::label, {.displayName = true})};
const Shape<SetIpAllowlistParameters> kSetIpAllowlist = {
    field("publicKey", &SetIpAllowlistParameters::publicKey),
    field("onEvaluationError", &SetIpAllowlistParameters::onEvaluationError),
    field("enabled", &SetIpAllowlistParameters::enabled),
    field("rules", &SetIpAllowlistParameters::rules, kRule)};
const Shape<RemoveIpAllowlistParameters> kRemoveIpAllowlist = {
    field("publicKey", &RemoveIpAllowlistParameters::publicKey)};

json::Object setIpAllowlist(ActivityContext& ctx, const SetIpAllowlistParameters& params) {
  Db& db = ctx.db();
  const std::string& org = ctx.organizationId();
  std::string publicKey = keyParam(db, org, params.publicKey);
  const std::string onError = params.onEvaluationError.value_or("DENY");
  if (onError != "ALLOW" && onError != "DENY")
    throw invalidArgument("invalid field parameters.onEvaluationError: \"" + onError +
                          "\" (expected ALLOW or DENY)");
  // The organization's list is on unless it says otherwise; a key's list is on by being there.
  std::optional<bool> enabled;
  if (publicKey.empty()) enabled = params.enabled.value_or(true);
  auto previous = find(db, org, publicKey);
  std::vector<IpAllowlistRule> rules;
  const auto& given = params.rules;
  for (size_t i = 0; given && i < given->size(); ++i) {
    std::string path = "parameters.rules[" + std::to_string(i) + "]";
    const IpAllowlistRuleParameters& rule = (*given)[i];
    const std::string& cidr = rule.cidr;
    auto network = parseCidr(cidr);
    if (!network)
      throw invalidArgument("invalid field " + path + ".cidr: \"" + cidr +
                            "\" is not a CIDR: an IPv4 or IPv6 network such as 192.168.1.0/24 or "
                            "2001:db8::/32, its host bits clear");
    std::string label = rule.label.value_or("");
    int64_t createdAt = ctx.nowMs();
    if (previous)  // a rule kept from the list before keeps its time
      for (const auto& old : previous->rules)
        if (old.cidr == cidr) createdAt = old.createdAtMs;
    rules.push_back({cidr, label, createdAt, network});
  }
  db.exec("DELETE FROM ip_allowlists WHERE organization_id = ? AND public_key = ?",
          {org, publicKey});
  db.exec(
      "INSERT INTO ip_allowlists (organization_id, public_key, enabled, on_evaluation_error, "
      "rules, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
      {org, publicKey, enabled ? SqlValue(int64_t{*enabled}) : SqlValue(nullptr), onError,
       rulesText(rules), ctx.nowMs()});
  return json::object();
}

json::Object removeIpAllowlist(ActivityContext& ctx, const RemoveIpAllowlistParameters& params) {
  const std::string publicKey = params.publicKey.value_or("");
  if (ctx.db().exec("DELETE FROM ip_allowlists WHERE organization_id = ? AND public_key = ?",
                    {ctx.organizationId(), publicKey}) == 0)
    throw notFound(publicKey.empty()
                       ? "organization " + ctx.organizationId() + " has no IP allowlist"
                       : "API key " + publicKey + " has no IP allowlist in organization " +
                             ctx.organizationId());
  return json::object();
}

json::Object getIpAllowlist(RequestContext& ctx, const json::Object& body) {
  std::string publicKey = json::optionalString(body, "publicKey", "").value_or("");
  json::Object r = json::object();
  r->set("allowlist", allowlistJson(ctx.organizationId(), publicKey,
                                    find(ctx.db(), ctx.organizationId(), publicKey)));
  return r;
}

}  // namespace signet::ip_allowlists
