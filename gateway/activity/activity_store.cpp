#include "activity_store.hpp"

#include <algorithm>
#include <map>

#include "activity/vote_users.hpp"
#include "store/given_texts.hpp"
#include "store/sql_connection.hpp"
#include "store/sql_text.hpp"

namespace signet::activities {

namespace {
// What an answer shows of an activity.
const char* kColumns =
    "id, organization_id, type, status, fingerprint, intent, result, votes, failure, "
    "created_at_ms, updated_at_ms, generate_app_proofs, app_proofs";
// What deciding on it again reads besides: its evaluations and MFA presentations (migration 23).
const char* kDecisionColumns = ", evaluations, presentations";

json::Object evaluationJson(const StoredEvaluation& e) {
  json::Object o = json::object();
  o->set("id", e.id);
  o->set("voteId", e.voteId);
  o->set("evaluations", e.evaluations ? e.evaluations : json::array());
  o->set("createdAtMs", e.createdAtMs);
  return o;
}

json::Object presentationJson(const mfa::Presentation& p) {
  json::Object o = json::object();
  o->set("voteId", p.voteId);
  o->set("userId", p.userId);
  o->set("methodType", p.method.type);
  o->set("methodId", p.method.id);
  return o;
}

std::string evaluationsText(const ActivityRecord& a) {
  json::Array out = json::array();
  for (const auto& e : a.evaluations) out->add(evaluationJson(e));
  return json::stringify(out);
}

std::string presentationsText(const ActivityRecord& a) {
  json::Array out = json::array();
  for (const auto& p : a.presentations) out->add(presentationJson(p));
  return json::stringify(out);
}

void readEvaluations(const std::string& text, ActivityRecord& a) {
  auto list = json::parseArray(text, "stored evaluations");
  for (size_t i = 0; i < list->size(); ++i) {
    auto o = list->getObject(static_cast<unsigned>(i));
    a.evaluations.push_back({o->getValue<std::string>("id"), o->getValue<std::string>("voteId"),
                             o->getArray("evaluations"), o->getValue<int64_t>("createdAtMs")});
  }
}

void readPresentations(const std::string& text, ActivityRecord& a) {
  auto list = json::parseArray(text, "stored MFA presentations");
  for (size_t i = 0; i < list->size(); ++i) {
    auto o = list->getObject(static_cast<unsigned>(i));
    a.presentations.push_back(
        {o->getValue<std::string>("voteId"),
         o->getValue<std::string>("userId"),
         {o->getValue<std::string>("methodType"), o->getValue<std::string>("methodId")}});
  }
}

// What gateways of the release before migration 23 write: during a rolling upgrade on
// PostgreSQL they still put each vote's evaluation and presentation in the tables of their own,
// for a row they created or one an upgraded gateway did, and may have voted while the migration
// copied. Those the row lacks are added, in time order. The tables hold nothing else new, so
// this reads only when an activity is read to be decided on again or for its evaluations.
void addEarlierEvaluations(Db& db, ActivityRecord& a) {
  bool added = false;
  for (const auto& r :
       db.query("SELECT id, vote_id, evaluations, created_at_ms FROM policy_evaluations WHERE "
                "activity_id = ? ORDER BY created_at_ms, id",
                {a.id})) {
    const std::string& id = r.str("id");
    if (std::any_of(a.evaluations.begin(), a.evaluations.end(),
                    [&](const auto& e) { return e.id == id; }))
      continue;
    a.evaluations.push_back({id, r.str("vote_id"),
                             json::parseArray(r.str("evaluations"), "stored evaluations"),
                             r.i64("created_at_ms")});
    added = true;
  }
  if (added)
    std::stable_sort(a.evaluations.begin(), a.evaluations.end(),
                     [](const auto& x, const auto& y) { return x.createdAtMs < y.createdAtMs; });
}
void addEarlierPresentations(Db& db, ActivityRecord& a) {
  for (const auto& r : db.query("SELECT vote_id, user_id, method_type, method_id FROM "
                                "mfa_presentations WHERE activity_id = ? ORDER BY created_at_ms, "
                                "vote_id",
                                {a.id})) {
    const std::string& voteId = r.str("vote_id");
    if (std::none_of(a.presentations.begin(), a.presentations.end(),
                     [&](const auto& p) { return p.voteId == voteId; }))
      a.presentations.push_back(
          {voteId, r.str("user_id"), {r.str("method_type"), r.str("method_id")}});
  }
}

ActivityRecord fromRow(const Row& r) {
  ActivityRecord a;
  a.id = r.str("id");
  a.organizationId = r.str("organization_id");
  a.type = r.str("type");
  a.status = r.str("status");
  a.fingerprint = r.str("fingerprint");
  a.intent = json::parseObject(r.str("intent"), "stored intent");
  a.result =
      r.isNull("result") ? json::object() : json::parseObject(r.str("result"), "stored result");
  a.votes = json::parseArray(r.str("votes"), "stored votes");
  a.failure = r.isNull("failure") ? nullptr : json::parseObject(r.str("failure"), "stored failure");
  a.createdAtMs = r.i64("created_at_ms");
  a.updatedAtMs = r.i64("updated_at_ms");
  a.generateAppProofs = r.i64("generate_app_proofs") != 0;
  if (!r.isNull("app_proofs"))
    a.appProofs = json::parseArray(r.str("app_proofs"), "stored app proofs");
  return a;
}

// With what a decision reads: `a.decisionLoaded` tells update() to write it back.
ActivityRecord fromDecisionRow(Db& db, const Row& r) {
  ActivityRecord a = fromRow(r);
  vote_users::attach(db, a.organizationId, {a.votes});
  a.decisionLoaded = true;
  // NULL in a row that the earlier release created after the migration.
  if (!r.isNull("evaluations")) readEvaluations(r.str("evaluations"), a);
  if (!r.isNull("presentations")) readPresentations(r.str("presentations"), a);
  addEarlierEvaluations(db, a);
  addEarlierPresentations(db, a);
  return a;
}

std::vector<ActivityRecord> fromRows(const std::vector<Row>& rows) {
  std::vector<ActivityRecord> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(fromRow(r));
  return out;
}

}  // namespace

std::string fingerprintOf(std::string_view body) {
  return "sha256:" + crypto::toHex(crypto::sha256(body));
}

namespace {
std::optional<ActivityRecord> byFingerprint(Db& db, const std::string& fingerprint,
                                            const char* lock) {
  auto row = db.queryOne(std::string("SELECT ") + kColumns + kDecisionColumns +
                             " FROM activities WHERE fingerprint = ?" + lock,
                         {fingerprint});
  if (!row) return std::nullopt;
  return fromDecisionRow(db, *row);
}
}  // namespace

std::optional<ActivityRecord> findByFingerprint(Db& db, const std::string& fingerprint) {
  return byFingerprint(db, fingerprint, "");
}

std::optional<ActivityRecord> findByFingerprintToChange(Db& db, const std::string& fingerprint) {
  return byFingerprint(db, fingerprint, db.isPostgres() ? " FOR UPDATE" : "");
}

std::optional<ActivityRecord> find(Db& db, const std::string& organizationId,
                                   const std::string& id) {
  auto row = db.queryOne(
      std::string("SELECT ") + kColumns + " FROM activities WHERE organization_id = ? AND id = ?",
      {organizationId, id});
  if (!row) return std::nullopt;
  ActivityRecord a = fromRow(*row);
  vote_users::attach(db, a.organizationId, {a.votes});
  return a;
}

namespace {
std::string insertSql(const std::string& tail) {
  return std::string("INSERT INTO activities (") + kColumns + kDecisionColumns +
         ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" + tail;
}

SqlParams insertParams(const ActivityRecord& a, const RowTexts& t) {
  auto orNull = [](const std::optional<std::string>& text) {
    return text ? SqlValue(*text) : SqlValue(nullptr);
  };
  return {a.id,
          a.organizationId,
          a.type,
          a.status,
          a.fingerprint,
          t.intent,
          orNull(t.result),
          t.votes.text,
          orNull(t.failure),
          a.createdAtMs,
          a.updatedAtMs,
          a.generateAppProofs ? 1 : 0,
          orNull(t.appProofs),
          t.evaluations,
          t.presentations};
}

// SQLite (3.24 on) and PostgreSQL spell the upsert alike; the unique index on fingerprints
// decides, so no read comes before the write.
const std::string kUnlessStored = " ON CONFLICT (fingerprint) DO NOTHING";
}  // namespace

RowTexts rowTexts(const ActivityRecord& a) {
  auto text = [](const auto& json) {
    return json ? std::optional<std::string>(json::stringify(json)) : std::nullopt;
  };
  return {
      json::stringify(a.intent),        text(a.result),     text(a.failure),     text(a.appProofs),
      vote_users::storedVotes(a.votes), evaluationsText(a), presentationsText(a)};
}

void insert(Db& db, const ActivityRecord& a) {
  RowTexts texts = rowTexts(a);
  db.exec(insertSql({}), insertParams(a, texts));
  vote_users::writeUsers(db, a.organizationId, a.id, texts.votes);
}

bool insertUnlessStored(Db& db, const ActivityRecord& a, const RowTexts& texts) {
  size_t inserted = 0;
  {
    GivenTexts given(texts.given);
    inserted = db.exec(insertSql(kUnlessStored), insertParams(a, texts));
  }
  if (inserted == 0) return false;
  vote_users::writeUsers(db, a.organizationId, a.id, texts.votes);
  return true;
}

std::shared_ptr<RowsAhead> sendUnlessStored(Db& db, const ActivityRecord& a,
                                            const RowTexts& texts) {
  // Its text is built once: it is a signature's every write.
  static const std::string sql = insertSql(kUnlessStored + " RETURNING 1");
  std::shared_ptr<RowsAhead> inserted;
  {
    GivenTexts given(texts.given);
    inserted = db.queryAhead(sql, insertParams(a, texts));
  }
  vote_users::writeUsers(db, a.organizationId, a.id, texts.votes);  // only once the row is there
  return inserted;
}

void update(Db& db, const ActivityRecord& a) {
  auto votes = vote_users::storedVotes(a.votes);
  std::string sql =
      "UPDATE activities SET status = ?, result = ?, votes = ?, failure = ?, updated_at_ms = ?, "
      "app_proofs = ?";
  SqlParams params{
      a.status,      a.result ? SqlValue(json::stringify(a.result)) : SqlValue(nullptr),
      votes.text,    a.failure ? SqlValue(json::stringify(a.failure)) : SqlValue(nullptr),
      a.updatedAtMs, a.appProofs ? SqlValue(json::stringify(a.appProofs)) : SqlValue(nullptr)};
  // A record read without them (find, list) must not write over them.
  if (a.decisionLoaded) {
    sql += ", evaluations = ?, presentations = ?";
    params.emplace_back(evaluationsText(a));
    params.emplace_back(presentationsText(a));
  }
  params.emplace_back(a.id);
  if (db.exec(sql + " WHERE id = ?", params) > 0)
    vote_users::writeUsers(db, a.organizationId, a.id, votes);
}

namespace {
// Puts `item` in place of what `list` holds for the same vote, or at its end.
template <typename T>
void setForVote(std::vector<T>& list, T item) {
  auto same = std::find_if(list.begin(), list.end(),
                           [&](const T& held) { return held.voteId == item.voteId; });
  if (same == list.end())
    list.push_back(std::move(item));
  else
    *same = std::move(item);
}
}  // namespace

void recordEvaluation(ActivityRecord& record, const std::string& voteId,
                      const json::Array& evaluations, int64_t nowMs) {
  setForVote(record.evaluations,
             StoredEvaluation{crypto::uuidV7(nowMs), voteId,
                              evaluations ? evaluations : json::array(), nowMs});
}

void recordPresentation(ActivityRecord& record, const mfa::Presentation& presented) {
  setForVote(record.presentations, presented);
}

bool exists(Db& db, const std::string& organizationId, const std::string& id) {
  return db
      .queryOne("SELECT 1 FROM activities WHERE organization_id = ? AND id = ?",
                {organizationId, id})
      .has_value();
}

std::vector<StoredEvaluation> evaluationsOf(Db& db, const std::string& organizationId,
                                            const std::string& activityId) {
  auto row = db.queryOne("SELECT evaluations FROM activities WHERE organization_id = ? AND id = ?",
                         {organizationId, activityId});
  if (!row) return {};
  ActivityRecord a;
  a.id = activityId;
  if (!row->isNull("evaluations")) readEvaluations(row->str("evaluations"), a);
  addEarlierEvaluations(db, a);
  return std::move(a.evaluations);
}

std::vector<ActivityRecord> list(Db& db, const std::string& organizationId,
                                 const ActivityFilter& filter) {
  // First the page's ids and sizes, then only the activities that fit the budget. The sizes are
  // of the stored rows; the voters' copies that attach() puts into their votes are counted once
  // they are read, and the page ends sooner if they take it past the budget.
  std::string sql =
      "SELECT id, LENGTH(intent) + LENGTH(votes) + COALESCE(LENGTH(result), 0) + "
      "COALESCE(LENGTH(failure), 0) + COALESCE(LENGTH(app_proofs), 0) AS size FROM activities "
      "WHERE organization_id = ?";
  SqlParams params{organizationId};
  if (!filter.statuses.empty()) {
    sql += " AND status IN (" + placeholders(filter.statuses.size()) + ")";
    params.insert(params.end(), filter.statuses.begin(), filter.statuses.end());
  }
  if (!filter.types.empty()) {
    sql += " AND type IN (" + placeholders(filter.types.size()) + ")";
    params.insert(params.end(), filter.types.begin(), filter.types.end());
  }
  bool reverse = appendPage(sql, params, filter.page, /*newestFirst=*/true,
                            cursorIn(db, "activities", organizationId, "an activity"));
  std::vector<std::string> ids;
  std::vector<size_t> sizes;
  size_t characters = 0;
  for (const auto& row : db.query(sql, params)) {
    auto size = static_cast<size_t>(row.i64("size"));
    if (!ids.empty() && characters + size > filter.maxCharacters) break;
    ids.push_back(row.str("id"));
    sizes.push_back(size);
    characters += size;
  }
  if (ids.empty()) return {};
  std::vector<ActivityRecord> out;
  out.reserve(ids.size());
  std::map<std::string, ActivityRecord> byId;
  for (auto& a :
       fromRows(db.query(std::string("SELECT ") + kColumns + " FROM activities WHERE id IN (" +
                             placeholders(ids.size()) + ")",
                         SqlParams(ids.begin(), ids.end()))))
    byId.emplace(a.id, std::move(a));
  std::vector<json::Array> votes;
  for (const auto& id : ids) {
    out.push_back(std::move(byId.at(id)));
    votes.push_back(out.back().votes);
  }
  auto added = vote_users::attach(db, organizationId, votes);
  characters = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    characters += sizes[i] + added[i];
    if (i > 0 && characters > filter.maxCharacters) {
      out.resize(i);
      break;
    }
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return out;
}

std::string storedStatus(Db& db, const std::string& id) {
  auto row = db.queryOne("SELECT status FROM activities WHERE id = ?", {id});
  return row ? row->str("status") : std::string();
}

json::Object failureJson(Code code, const std::string& message) {
  json::Object f = json::object();
  f->set("code", static_cast<int>(code));
  f->set("message", message);
  f->set("details", json::array());
  return f;
}

json::Object toJson(const ActivityRecord& a, const Caller& viewer) {
  json::Object o = json::object();
  o->set("id", a.id);
  o->set("organizationId", a.organizationId);
  o->set("status", a.status);
  o->set("type", a.type);
  o->set("intent", a.intent);
  o->set("result", a.result ? a.result : json::object());
  o->set("votes", a.votes);
  o->set("fingerprint", a.fingerprint);
  bool open = a.status == kStatusConsensusNeeded || a.status == kStatusAuthenticatorsNeeded;
  bool voted = false;
  for (size_t i = 0; i < a.votes->size(); ++i) {
    auto v = a.votes->getObject(static_cast<unsigned>(i));
    voted = voted || (v && v->optValue<std::string>("userId", "") == viewer.userId);
  }
  // Any user of the activity's organization who has not voted yet may vote while it waits;
  // while MFA factors are outstanding a voter may approve again to present one.
  bool member = viewer.organizationId == a.organizationId;
  bool presentMore = voted && a.status == kStatusAuthenticatorsNeeded;
  o->set("canApprove", open && (!voted || presentMore) && member);
  o->set("canReject", open && !voted && member);
  o->set("createdAt", json::timestamp(a.createdAtMs));
  o->set("updatedAt", json::timestamp(a.updatedAtMs));
  if (a.failure) o->set("failure", a.failure);
  if (a.appProofs && a.appProofs->size() > 0) o->set("appProofs", a.appProofs);
  return o;
}

}  // namespace signet::activities
