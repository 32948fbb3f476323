// Sends the gateway makes for an organization: one row per eth_send_transaction,
// eth_undelegate_7702 or sol_send_transaction, written by the activity and moved along by the
// worker, outside the request path and across restarts:
//   INITIALIZED   recorded; then signed (signed_tx set) before the first attempt to send it
//   BROADCASTING  the node took it; waiting for it to be included
//   INCLUDED      in a block (Ethereum: receipt status 1; Solana: confirmed without error)
//   FAILED        with the node's error, a revert chain, or the cause it could not be sent
// A signed transaction is stored before it is sent, so a crash between the two sends the same
// bytes again instead of signing a second transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/plugin.hpp"

namespace signing::broadcast {

inline constexpr const char* kInitialized = "INITIALIZED";
inline constexpr const char* kBroadcasting = "BROADCASTING";
inline constexpr const char* kIncluded = "INCLUDED";
inline constexpr const char* kFailed = "FAILED";

// What kind of transaction a send makes.
enum class SendKind { kEthSingle, kEthBatch, kEthSponsored, kEthUndelegate, kSol, kSolSponsored };
std::string kindName(SendKind k);
SendKind kindFromName(const std::string& name);

struct Send {
  std::string id;
  std::string organizationId;
  std::string billingOrganizationId;  // the root organization: whose sponsorship limits apply
  std::string caip2;
  SendKind kind = SendKind::kEthSingle;
  signet::json::Object request;  // what the worker needs to build the transaction
  std::string status;
  std::string signedTx;  // hex; empty until signed
  std::string txHash;    // Ethereum hash or Solana signature; empty until signed
  std::string sender;    // the paying account, once signed
  int64_t senderNonce = 0;
  std::string txError;
  std::string errorJson;  // v1TxError, or empty
  int64_t attempts = 0;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

void insertSend(signet::Db& db, const Send& s, int64_t nowMs);
std::optional<Send> findSend(signet::Db& db, const std::string& organizationId,
                             const std::string& id);
std::optional<Send> loadSend(signet::Db& db, const std::string& id);
// Whether any send is due: read on a snapshot, so that an idle worker writes nothing.
bool anySendDue(signet::Db& db, int64_t nowMs);
// Up to `limit` sends due for the worker, claimed for `claimMs` so that another gateway's
// worker leaves them alone meanwhile.
std::vector<Send> claimDueSends(signet::Db& db, int64_t nowMs, int64_t claimMs, int limit);

// The worker's writes. Each also releases the claim.
void recordSigned(signet::Db& db, const Send& s, int64_t nowMs);  // signedTx, txHash, sender...
void recordBroadcast(signet::Db& db, const std::string& id, int64_t nextAttemptMs, int64_t nowMs);
void recordRetry(signet::Db& db, const std::string& id, int64_t attempts, int64_t nextAttemptMs,
                 const std::string& lastError, int64_t nowMs);
void recordIncluded(signet::Db& db, const std::string& id, int64_t nowMs);
void recordFailed(signet::Db& db, const std::string& id, const std::string& txError,
                  const signet::json::Object& error, int64_t nowMs);

// get_send_transaction_status.
signet::json::Object sendStatus(signet::RequestContext& ctx, const signet::json::Object& body);

}  // namespace signing::broadcast
