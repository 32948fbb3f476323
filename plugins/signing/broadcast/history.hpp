// Transaction history (list_eth_transaction_history, list_sol_transaction_history): what the
// organizations' wallet accounts sent and received on a chain, kept by a follower per chain of
// plugins.settings.signing.broadcast.history, from its configured first block or slot.
//
// The followers (eth_follower.cpp, sol_follower.cpp) run in the `history` worker on every gateway.
// Each round reads a range from the node, then writes its rows and moves the chain's cursor in one
// transaction, and only if the cursor is still where the round read it (compare and set): several
// gateways on one store, or a restart mid-round, index each transaction once and leave no gap.
// A row is one transaction as one address saw it (its transfers are that address's), so that a
// page is one indexed read. Sends made through the gateway are marked with their origin when
// listed (signing_sends), not when indexed.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "signet/plugin.hpp"

namespace signing::broadcast {

class Broadcast;

// One transaction as one address saw it: the v1EthTransactionHistoryItem or
// v1SolTransactionHistoryItem without status, origin and turnkey, which a listing adds.
struct HistoryEntry {
  std::string address;  // as stored: lower-case 0x for Ethereum, base58 for Solana
  std::string txId;     // transaction hash or signature
  int64_t order = 0;    // the chain's order: block * 100000 + index (Ethereum), slot * 100000 + k
  int64_t block = 0;    // block number, or slot
  signet::json::Object item;
};

// Where a chain's follower stands. Ethereum keeps one cursor for the chain (address ""); Solana one
// per address, since its node lists a history by address.
struct HistoryCursor {
  int64_t next = 0;       // the first block (or slot) not yet indexed
  std::string last;       // Ethereum: the hash of block next - 1; Solana: the newest signature
  int64_t finalized = 0;  // the chain's finalized block (or slot) when last read
};
std::optional<HistoryCursor> readCursor(signet::Db& db, const std::string& caip2,
                                        const std::string& address);
// Stores `entries` (an entry already stored is left as it is) and moves the cursor from `from`
// (nullopt: none yet) to `to`; false, with nothing written, when the cursor is no longer at
// `from` (another gateway moved it).
bool advance(signet::Db& db, const std::string& caip2, const std::string& address,
             const std::optional<HistoryCursor>& from, const HistoryCursor& to,
             const std::vector<HistoryEntry>& entries);
// Forgets what was indexed from block `block` on (a reorganized chain) and sets the cursor there,
// if the chain's cursor is still `from` (compare and set, as `advance`); false, with nothing
// changed, when another gateway moved it.
bool rewind(signet::Db& db, const std::string& caip2, const HistoryCursor& from, int64_t block);
// Only the finalized height moves (nothing new to index).
void recordFinalized(signet::Db& db, const std::string& caip2, const std::string& address,
                     int64_t finalized);

// The organizations' wallet account addresses of a format (ADDRESS_FORMAT_ETHEREUM: lower-case).
std::set<std::string> followedAddresses(signet::Db& db, const std::string& addressFormat);

// An RFC 3339 time (UTC, seconds) of epoch seconds.
std::string rfc3339(int64_t epochSeconds);
// {direction, amount, counterparty, asset?, display?} of a transfer, with the asset's metadata
// when the chain's catalogue lists it (assets.hpp).
signet::json::Object transferJson(const Broadcast& b, const std::string& caip2, bool in,
                                  const std::string& amount, const std::string& counterparty,
                                  const std::string& token);

signet::json::Object listEthTransactionHistory(Broadcast& b, signet::RequestContext& ctx,
                                               const signet::json::Object& body);
signet::json::Object listSolTransactionHistory(Broadcast& b, signet::RequestContext& ctx,
                                               const signet::json::Object& body);

// One round of a chain's follower (eth_follower.cpp, sol_follower.cpp); true when it stopped short
// of what the node has, so that the next round should not wait for the poll interval.
bool followEth(Broadcast& b, signet::WorkerContext& w, const std::string& caip2, int64_t from);
bool followSol(Broadcast& b, signet::WorkerContext& w, const std::string& caip2, int64_t from);

}  // namespace signing::broadcast
