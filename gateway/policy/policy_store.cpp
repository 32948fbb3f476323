#include "policy/policy_store.hpp"

#include "policy/evaluator.hpp"
#include "policy/syntax.hpp"
#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace signet::policy {

namespace {
const char* kColumns =
    "id, organization_id, name, effect, condition_expr, consensus_expr, time_expr, notes, "
    "created_at_ms, updated_at_ms";
PolicyRecord fromRow(const Row& r) {
  return {r.str("id"),           r.str("organization_id"), r.str("name"),
          r.str("effect"),       r.str("condition_expr"),  r.str("consensus_expr"),
          r.str("time_expr"),    r.str("notes"),           r.i64("created_at_ms"),
          r.i64("updated_at_ms")};
}

// The keywords each expression may read (Turnkey's policy language documentation lists them per
// field).
const std::set<std::string> kConditionKeywords = {
    "activity", "wallet", "wallets", "private_key", "wallet_account", "eth",
    "solana",   "tron",   "bitcoin", "tempo",       "secret"};
const std::set<std::string> kConsensusKeywords = {"approvers", "credentials"};
const std::set<std::string> kTimeKeywords = {"time"};

// Calls are checked now, so that a bad cron or zone is refused when the policy is written
// rather than erroring on every activity. The evaluator itself judges each call once: an
// error at the call's own position (arity, argument types, a bad cron, zone or timestamp)
// fails on every activity and is refused; one inside an argument depends on the activity's
// facts (absent here) and is left for run time.
void checkCalls(const Node& n, const std::string& kind, const std::string& field) {
  for (const auto& c : n.children) checkCalls(*c, kind, field);
  if (n.kind != Node::Kind::kCall) return;
  auto fail = [&](const std::string& why) {
    throw invalidArgument("invalid field " + field + ": invalid policy " + kind + ": " + why);
  };
  if (n.name == "CronSpan" && kind != "time")
    fail("at position " + std::to_string(n.position) +
         ": CronSpan() belongs in a policy's time expression");
  try {
    evaluate(n, timeFacts(0));
  } catch (const EvaluationError& e) {
    if (e.position() == n.position) fail(e.what());
  }
}
}  // namespace

std::vector<PolicyRecord> policiesOf(Db& db, const std::string& organizationId) {
  std::vector<PolicyRecord> out;
  for (const auto& r : db.query(std::string("SELECT ") + kColumns +
                                    " FROM policies WHERE organization_id = ? ORDER BY "
                                    "created_at_ms, id",
                                {organizationId}))
    out.push_back(fromRow(r));
  return out;
}

std::optional<PolicyRecord> findPolicy(Db& db, const std::string& organizationId,
                                       const std::string& id) {
  auto r = db.queryOne(
      std::string("SELECT ") + kColumns + " FROM policies WHERE organization_id = ? AND id = ?",
      {organizationId, id});
  if (!r) return std::nullopt;
  return fromRow(*r);
}

std::optional<std::string> policyIdNamed(Db& db, const std::string& organizationId,
                                         const std::string& name) {
  auto r = db.queryOne("SELECT id FROM policies WHERE organization_id = ? AND name = ?",
                       {organizationId, name});
  return r ? std::optional<std::string>(r->str("id")) : std::nullopt;
}

size_t policyCount(Db& db, const std::string& organizationId) {
  return static_cast<size_t>(
      db.queryOne("SELECT COUNT(*) AS n FROM policies WHERE organization_id = ?", {organizationId})
          ->i64("n"));
}

std::string policyVersion(Db& db, const std::string& organizationId) {
  auto r = db.queryOne("SELECT policy_version FROM organizations WHERE id = ?", {organizationId});
  return r ? r->str("policy_version") : "";
}

// A fresh random token rather than a counter: a counter bumped by a transaction that rolls
// back would be bumped again to the same value by the next write, and a cache filled in
// between would wrongly match it.
void notePoliciesChanged(Db& db, const std::string& organizationId) {
  db.exec("UPDATE organizations SET policy_version = ? WHERE id = ?",
          {crypto::uuidV4(), organizationId});
}

void insertPolicy(Db& db, const PolicyRecord& p) {
  db.exec(
      std::string("INSERT INTO policies (") + kColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {p.id, p.organizationId, p.name, p.effect, p.condition, p.consensus, p.time, p.notes,
       p.createdAtMs, p.updatedAtMs});
  notePoliciesChanged(db, p.organizationId);
}

void updatePolicy(Db& db, const PolicyRecord& p) {
  db.exec(
      "UPDATE policies SET name = ?, effect = ?, condition_expr = ?, consensus_expr = ?, "
      "time_expr = ?, notes = ?, updated_at_ms = ? WHERE organization_id = ? AND id = ?",
      {p.name, p.effect, p.condition, p.consensus, p.time, p.notes, p.updatedAtMs, p.organizationId,
       p.id});
  notePoliciesChanged(db, p.organizationId);
}

size_t deletePolicy(Db& db, const std::string& organizationId, const std::string& id) {
  size_t n =
      db.exec("DELETE FROM policies WHERE organization_id = ? AND id = ?", {organizationId, id});
  if (n) notePoliciesChanged(db, organizationId);
  return n;
}

json::Object policyJson(const PolicyRecord& p) {
  json::Object o = json::object();
  o->set("policyId", p.id);
  o->set("policyName", p.name);
  o->set("effect", p.effect);
  o->set("condition", p.condition);
  o->set("consensus", p.consensus);
  if (!p.time.empty()) o->set("time", p.time);
  o->set("notes", p.notes);
  o->set("createdAt", json::timestamp(p.createdAtMs));
  o->set("updatedAt", json::timestamp(p.updatedAtMs));
  return o;
}

const std::set<std::string>& builtinKeywords() {
  // The language's own keywords. The chain and key keywords of the condition list stay
  // readable whatever is enabled (a policy over eth.tx written before the signing plugin is
  // enabled is not refused; reading an absent fact is an error, which fails closed), and the
  // module that fills them declares them like any other.
  static const std::set<std::string> all = [] {
    std::set<std::string> s = {"activity"};
    s.insert(kConsensusKeywords.begin(), kConsensusKeywords.end());
    s.insert(kTimeKeywords.begin(), kTimeKeywords.end());
    return s;
  }();
  return all;
}

void validateExpression(const std::string& expression, const std::string& kind,
                        const std::string& field, const std::set<std::string>& moduleKeywords) {
  if (expression.empty()) return;
  NodePtr ast;
  try {
    ast = parse(expression);
  } catch (const SyntaxError& e) {
    throw invalidArgument("invalid field " + field + ": invalid policy " + kind + ": " +
                          e.message());
  }
  std::set<std::string> allowed = kind == "consensus" ? kConsensusKeywords
                                  : kind == "time"    ? kTimeKeywords
                                                      : kConditionKeywords;
  if (kind == "condition") allowed.insert(moduleKeywords.begin(), moduleKeywords.end());
  for (const auto& id : freeIdentifiers(*ast))
    if (!allowed.count(id)) {
      std::string list;
      for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
      throw invalidArgument("invalid field " + field + ": invalid policy " + kind +
                            ": unknown keyword '" + id + "' (a " + kind + " reads " + list + ")");
    }
  checkCalls(*ast, kind, field);
}

}  // namespace signet::policy
