#include "sends.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
const char* kColumns =
    "SELECT id, organization_id, billing_organization_id, caip2, kind, request, status, "
    "signed_tx, tx_hash, sender, sender_nonce, tx_error, error_json, attempts, created_at_ms, "
    "updated_at_ms FROM signing_sends";

Send fromRow(const Row& r) {
  Send s;
  s.id = r.str("id");
  s.organizationId = r.str("organization_id");
  s.billingOrganizationId = r.str("billing_organization_id");
  s.caip2 = r.str("caip2");
  s.kind = kindFromName(r.str("kind"));
  s.request = json::parseObject(r.str("request"), "stored send request");
  s.status = r.str("status");
  s.signedTx = r.str("signed_tx");
  s.txHash = r.str("tx_hash");
  s.sender = r.str("sender");
  s.senderNonce = r.i64("sender_nonce");
  s.txError = r.str("tx_error");
  s.errorJson = r.str("error_json");
  s.attempts = r.i64("attempts");
  s.createdAtMs = r.i64("created_at_ms");
  s.updatedAtMs = r.i64("updated_at_ms");
  return s;
}

const std::pair<SendKind, const char*> kKinds[] = {{SendKind::kEthSingle, "eth_single"},
                                                   {SendKind::kEthBatch, "eth_batch"},
                                                   {SendKind::kEthSponsored, "eth_sponsored"},
                                                   {SendKind::kEthUndelegate, "eth_undelegate"},
                                                   {SendKind::kSol, "sol"},
                                                   {SendKind::kSolSponsored, "sol_sponsored"}};
}  // namespace

std::string kindName(SendKind k) {
  for (const auto& [kind, name] : kKinds)
    if (kind == k) return name;
  return "";
}

SendKind kindFromName(const std::string& name) {
  for (const auto& [kind, n] : kKinds)
    if (name == n) return kind;
  throw internalError("unknown send kind " + name);
}

void insertSend(Db& db, const Send& s, int64_t nowMs) {
  db.exec(
      "INSERT INTO signing_sends (id, organization_id, billing_organization_id, caip2, kind, "
      "request, status, signed_tx, tx_hash, sender, sender_nonce, tx_error, error_json, "
      "attempts, next_attempt_at_ms, claimed_until_ms, created_at_ms, updated_at_ms) VALUES "
      "(?, ?, ?, ?, ?, ?, ?, '', '', '', 0, '', '', 0, ?, 0, ?, ?)",
      {s.id, s.organizationId, s.billingOrganizationId, s.caip2, kindName(s.kind),
       json::stringify(s.request), std::string(kInitialized), nowMs, nowMs, nowMs});
}

std::optional<Send> findSend(Db& db, const std::string& organizationId, const std::string& id) {
  auto row = db.queryOne(std::string(kColumns) + " WHERE organization_id = ? AND id = ?",
                         {organizationId, id});
  return row ? std::optional(fromRow(*row)) : std::nullopt;
}

std::optional<Send> loadSend(Db& db, const std::string& id) {
  auto row = db.queryOne(std::string(kColumns) + " WHERE id = ?", {id});
  return row ? std::optional(fromRow(*row)) : std::nullopt;
}

// Sends still moving whose next attempt is due and that no worker holds.
const char* kDue =
    " WHERE status IN ('INITIALIZED', 'BROADCASTING') AND next_attempt_at_ms <= ? AND "
    "claimed_until_ms <= ?";

bool anySendDue(Db& db, int64_t nowMs) {
  return db.queryOne(std::string("SELECT 1 FROM signing_sends") + kDue + " LIMIT 1", {nowMs, nowMs})
      .has_value();
}

std::vector<Send> claimDueSends(Db& db, int64_t nowMs, int64_t claimMs, int limit) {
  std::string sql = std::string(kColumns) + kDue +
                    " ORDER BY next_attempt_at_ms, created_at_ms LIMIT " + std::to_string(limit);
  if (db.isPostgres()) sql += " FOR UPDATE SKIP LOCKED";
  std::vector<Send> out;
  for (const auto& r : db.query(sql, {nowMs, nowMs})) out.push_back(fromRow(r));
  for (const auto& s : out)
    db.exec("UPDATE signing_sends SET claimed_until_ms = ? WHERE id = ?", {nowMs + claimMs, s.id});
  return out;
}

void recordSigned(Db& db, const Send& s, int64_t nowMs) {
  db.exec(
      "UPDATE signing_sends SET request = ?, signed_tx = ?, tx_hash = ?, sender = ?, "
      "sender_nonce = ?, updated_at_ms = ? WHERE id = ?",
      {json::stringify(s.request), s.signedTx, s.txHash, s.sender, s.senderNonce, nowMs, s.id});
}

void recordBroadcast(Db& db, const std::string& id, int64_t nextAttemptMs, int64_t nowMs) {
  db.exec(
      "UPDATE signing_sends SET status = ?, attempts = 0, next_attempt_at_ms = ?, "
      "claimed_until_ms = 0, tx_error = '', updated_at_ms = ? WHERE id = ?",
      {std::string(kBroadcasting), nextAttemptMs, nowMs, id});
}

void recordRetry(Db& db, const std::string& id, int64_t attempts, int64_t nextAttemptMs,
                 const std::string& lastError, int64_t nowMs) {
  // The last error is kept as txError while the send is still moving: what an operator sees in
  // get_send_transaction_status when a node is away.
  db.exec(
      "UPDATE signing_sends SET attempts = ?, next_attempt_at_ms = ?, claimed_until_ms = 0, "
      "tx_error = ?, updated_at_ms = ? WHERE id = ?",
      {attempts, nextAttemptMs, lastError, nowMs, id});
}

void recordIncluded(Db& db, const std::string& id, int64_t nowMs) {
  db.exec(
      "UPDATE signing_sends SET status = ?, claimed_until_ms = 0, tx_error = '', updated_at_ms = "
      "? WHERE id = ?",
      {std::string(kIncluded), nowMs, id});
}

void recordFailed(Db& db, const std::string& id, const std::string& txError,
                  const json::Object& error, int64_t nowMs) {
  db.exec(
      "UPDATE signing_sends SET status = ?, claimed_until_ms = 0, tx_error = ?, error_json = ?, "
      "updated_at_ms = ? WHERE id = ?",
      {std::string(kFailed), txError, error ? json::stringify(error) : std::string(), nowMs, id});
}

json::Object sendStatus(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "sendTransactionStatusId", "");
  auto s = findSend(ctx.db(), ctx.organizationId(), id);
  if (!s)
    throw notFound("send transaction status " + id +
                   " (sendTransactionStatusId) not found in organization " + ctx.organizationId());
  json::Object r = json::object();
  // A send is INITIALIZED until a node has taken it, even once it is signed.
  r->set("txStatus", s->status);
  if (!s->txHash.empty() && s->status != kInitialized) {
    json::Object chain = json::object();
    bool solana = s->kind == SendKind::kSol || s->kind == SendKind::kSolSponsored;
    chain->set(solana ? "signature" : "txHash", s->txHash);
    r->set(solana ? "solana" : "eth", chain);
  }
  if (!s->txError.empty()) r->set("txError", s->txError);
  if (!s->errorJson.empty()) r->set("error", json::parseObject(s->errorJson, "stored error"));
  return r;
}

}  // namespace signing::broadcast
