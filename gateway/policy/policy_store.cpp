#include "policy/policy_store.hpp"

#include "policy/cron_span.hpp"
#include "policy/evaluator.hpp"
#include "policy/syntax.hpp"
#include "signet/error.hpp"

namespace signet::policy {

namespace {
const char* kColumns =
    "id, organization_id, name, effect, condition_expr, consensus_expr, time_expr, notes, "
    "created_at_ms, updated_at_ms";
PolicyRecord fromRow(const Row& r) {
  return {r.str(0), r.str(1), r.str(2), r.str(3), r.str(4),
          r.str(5), r.str(6), r.str(7), r.i64(8), r.i64(9)};
}

// The keywords each expression may read (reference/policy.md §1.3).
const std::set<std::string> kConditionKeywords = {
    "activity", "wallet", "wallets", "private_key", "wallet_account", "eth",
    "solana",   "tron",   "bitcoin", "tempo",       "secret"};
const std::set<std::string> kConsensusKeywords = {"approvers", "credentials"};
const std::set<std::string> kTimeKeywords = {"time"};

// Calls with literal arguments are checked now, so that a bad cron or zone is refused when
// the policy is written rather than erroring on every activity.
void checkCalls(const Node& n, const std::string& kind, const std::string& field) {
  for (const auto& c : n.children) checkCalls(*c, kind, field);
  if (n.kind != Node::Kind::kCall) return;
  auto fail = [&](const std::string& why) {
    throw invalidArgument("invalid field " + field + ": invalid policy " + kind + ": at position " +
                          std::to_string(n.position) + ": " + why);
  };
  std::vector<const std::string*> literals;
  for (const auto& a : n.children)
    if (a->kind == Node::Kind::kLiteral && a->value.kind == Value::Kind::kString)
      literals.push_back(&a->value.text);
  if (n.name == "Timestamp") {
    if (n.children.size() != 1) fail("Timestamp() takes one RFC 3339 time");
    if (literals.size() == 1 && !parseTimestamp(*literals[0]))
      fail("Timestamp('" + *literals[0] + "') is not an RFC 3339 time at offset zero");
  } else if (n.name == "CronSpan") {
    if (kind != "time") fail("CronSpan() belongs in a policy's time expression");
    if (n.children.size() != 3) fail("CronSpan() takes a cron expression, a duration and a zone");
    if (literals.size() == 3) try {
        CronSpan(*literals[0], *literals[1], *literals[2]);
      } catch (const std::invalid_argument& e) {
        fail(std::string("CronSpan(): ") + e.what());
      }
  } else {
    fail("unknown function " + n.name + "() (functions are Timestamp and CronSpan)");
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

void insertPolicy(Db& db, const PolicyRecord& p) {
  db.exec(
      std::string("INSERT INTO policies (") + kColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {p.id, p.organizationId, p.name, p.effect, p.condition, p.consensus, p.time, p.notes,
       p.createdAtMs, p.updatedAtMs});
}

void updatePolicy(Db& db, const PolicyRecord& p) {
  db.exec(
      "UPDATE policies SET name = ?, effect = ?, condition_expr = ?, consensus_expr = ?, "
      "time_expr = ?, notes = ?, updated_at_ms = ? WHERE organization_id = ? AND id = ?",
      {p.name, p.effect, p.condition, p.consensus, p.time, p.notes, p.updatedAtMs, p.organizationId,
       p.id});
}

size_t deletePolicy(Db& db, const std::string& organizationId, const std::string& id) {
  return db.exec("DELETE FROM policies WHERE organization_id = ? AND id = ?", {organizationId, id});
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

void validateExpression(const std::string& expression, const std::string& kind,
                        const std::string& field) {
  if (expression.empty()) return;
  NodePtr ast;
  try {
    ast = parse(expression);
  } catch (const SyntaxError& e) {
    throw invalidArgument("invalid field " + field + ": invalid policy " + kind + ": " +
                          e.message());
  }
  const auto& allowed = kind == "consensus" ? kConsensusKeywords
                        : kind == "time"    ? kTimeKeywords
                                            : kConditionKeywords;
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
