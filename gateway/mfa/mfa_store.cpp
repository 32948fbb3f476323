#include "mfa/mfa_store.hpp"

#include "store/sql_connection.hpp"

namespace signet::mfa {

namespace {
constexpr const char* kColumns =
    "id, organization_id, user_id, name, condition_expr, required_methods, eval_order, notes, "
    "created_at_ms, updated_at_ms";

MfaPolicyRecord policyFrom(const Row& r) {
  return {r.str("id"),           r.str("organization_id"), r.str("user_id"),
          r.str("name"),         r.str("condition_expr"),  stepsFromText(r.str("required_methods")),
          r.i64("eval_order"),   r.str("notes"),           r.i64("created_at_ms"),
          r.i64("updated_at_ms")};
}
}  // namespace

std::vector<MfaPolicyRecord> policiesOfUser(Db& db, const std::string& userId) {
  std::vector<MfaPolicyRecord> out;
  for (const auto& r : db.query(std::string("SELECT ") + kColumns +
                                    " FROM mfa_policies WHERE user_id = ? ORDER BY eval_order, "
                                    "created_at_ms, id",
                                {userId}))
    out.push_back(policyFrom(r));
  return out;
}

std::optional<MfaPolicyRecord> findPolicy(Db& db, const std::string& organizationId,
                                          const std::string& userId, const std::string& id) {
  auto r =
      db.queryOne(std::string("SELECT ") + kColumns +
                      " FROM mfa_policies WHERE organization_id = ? AND user_id = ? AND id = ?",
                  {organizationId, userId, id});
  if (!r) return std::nullopt;
  return policyFrom(*r);
}

void insertPolicy(Db& db, const MfaPolicyRecord& p) {
  db.exec(std::string("INSERT INTO mfa_policies (") + kColumns +
              ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {p.id, p.organizationId, p.userId, p.name, p.condition,
           json::stringify(stepsJson(p.steps)), p.order, p.notes, p.createdAtMs, p.updatedAtMs});
}

void updatePolicy(Db& db, const MfaPolicyRecord& p) {
  db.exec(
      "UPDATE mfa_policies SET name = ?, condition_expr = ?, required_methods = ?, eval_order = "
      "?, notes = ?, updated_at_ms = ? WHERE id = ?",
      {p.name, p.condition, json::stringify(stepsJson(p.steps)), p.order, p.notes, p.updatedAtMs,
       p.id});
}

void deletePolicy(Db& db, const std::string& id) {
  db.exec("DELETE FROM mfa_policies WHERE id = ?", {id});
}

json::Object policyJson(const MfaPolicyRecord& p) {
  json::Object o = json::object();
  o->set("mfaPolicyId", p.id);
  o->set("mfaPolicyName", p.name);
  o->set("condition", p.condition);
  o->set("requiredAuthenticationMethods", stepsJson(p.steps));
  o->set("order", std::to_string(p.order));  // int64 in proto3 JSON is a string
  if (!p.notes.empty()) o->set("notes", p.notes);
  o->set("createdAt", json::timestamp(p.createdAtMs));
  o->set("updatedAt", json::timestamp(p.updatedAtMs));
  return o;
}

void storeStatuses(Db& db, const std::string& activityId, const std::string& organizationId,
                   const json::Array& statuses) {
  db.exec("DELETE FROM mfa_statuses WHERE activity_id = ?", {activityId});
  for (size_t i = 0; i < statuses->size(); ++i) {
    auto s = statuses->getObject(static_cast<unsigned>(i));
    db.exec(
        "INSERT INTO mfa_statuses (activity_id, user_id, organization_id, status) VALUES (?, ?, "
        "?, ?)",
        {activityId, s->getValue<std::string>("userId"), organizationId, json::stringify(s)});
  }
}

json::Array statusesOf(Db& db, const std::string& organizationId, const std::string& activityId,
                       const std::optional<std::string>& userId) {
  json::Array out = json::array();
  std::string sql = "SELECT status FROM mfa_statuses WHERE organization_id = ? AND activity_id = ?";
  SqlParams params{organizationId, activityId};
  if (userId) {
    sql += " AND user_id = ?";
    params.push_back(*userId);
  }
  for (const auto& r : db.query(sql + " ORDER BY user_id", params))
    out->add(json::parseObject(r.str("status"), "stored MFA status"));
  return out;
}

}  // namespace signet::mfa
