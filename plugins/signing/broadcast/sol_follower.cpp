// The Solana side of the transaction history (history.hpp). A Solana node lists transactions by
// address (getSignaturesForAddress), so each followed address has its own cursor: the newest
// signature indexed. Each round asks, per address, for the signatures newer than it, page by page
// back to it (or to the first slot followed), then reads those transactions (getTransaction,
// jsonParsed) and their blocks' hashes (getBlock) in batches. Balances before and after, which the
// node reports, give each transfer: lamports, and SPL tokens by the owner of their accounts.
#include <map>

#include "assets.hpp"
#include "broadcast.hpp"
#include "history.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr int kSignaturesPerPage = 100;
constexpr size_t kReadsPerBatch = 100;
// Transactions of one address read in a round, oldest first: its cursor moves to the newest of
// them, and the next round lists what is newer again. A busy address, or one new to the follower
// with a long history, is read a bounded piece at a time.
constexpr size_t kTransactionsPerRound = 100;
constexpr size_t kAnswerBytes = 64 << 20;  // a hundred parsed transactions, with room

json::Array arrayOf(const json::Object& o, const char* key) {
  return o ? o->getArray(key) : nullptr;
}
int64_t integer(const json::Object& o, const char* key) {
  return o && o->has(key) && o->get(key).isInteger() ? o->get(key).convert<int64_t>() : 0;
}

using Amount = __int128;
std::string decimal(Amount v) {
  return toDecimal(static_cast<Uint128>(v < 0 ? -v : v));
}

// The balance changes of a transaction: per account (lamports) and per (owner, mint) (tokens).
struct Changes {
  std::vector<std::string> keys;
  std::vector<Amount> lamports;                                  // by account index
  std::map<std::pair<std::string, std::string>, Amount> tokens;  // (owner, mint) -> change
};

Changes changesOf(const json::Object& tx) {
  Changes c;
  json::Object meta = tx->getObject("meta");
  json::Object message =
      tx->getObject("transaction") ? tx->getObject("transaction")->getObject("message") : nullptr;
  auto keys = arrayOf(message, "accountKeys");
  auto pre = arrayOf(meta, "preBalances");
  auto post = arrayOf(meta, "postBalances");
  if (!keys || !pre || !post || pre->size() != keys->size() || post->size() != keys->size())
    throw Error(Code::kUnavailable, "a transaction came without its keys and balances");
  for (unsigned i = 0; i < keys->size(); ++i) {
    c.keys.push_back(textOf(keys->getObject(i), "pubkey"));
    c.lamports.push_back(Amount(post->getElement<int64_t>(i)) - pre->getElement<int64_t>(i));
  }
  // The transaction fee is not a transfer: the fee payer's change is counted without it.
  if (!c.lamports.empty()) c.lamports[0] += integer(meta, "fee");
  for (auto [key, sign] : {std::pair{"postTokenBalances", 1}, std::pair{"preTokenBalances", -1}})
    if (auto list = arrayOf(meta, key))
      for (unsigned i = 0; i < list->size(); ++i) {
        json::Object entry = list->getObject(i);
        auto amount =
            parseU128(textOf(entry ? entry->getObject("uiTokenAmount") : nullptr, "amount"));
        if (!amount) continue;
        c.tokens[{textOf(entry, "owner"), textOf(entry, "mint")}] += sign * Amount(*amount);
      }
  return c;
}

// The transfers `address` made or received in a transaction: its own change, against the
// account whose change was the largest the other way.
std::vector<json::Object> transfersOf(const Broadcast& b, const std::string& caip2,
                                      const Changes& c, const std::string& address) {
  std::vector<json::Object> out;
  for (size_t i = 0; i < c.keys.size(); ++i) {
    if (c.keys[i] != address || c.lamports[i] == 0) continue;
    std::string counterparty;
    Amount best = 0;
    for (size_t j = 0; j < c.keys.size(); ++j)
      if (j != i && (c.lamports[j] > 0) != (c.lamports[i] > 0) && c.lamports[j] != 0 &&
          (c.lamports[j] < 0 ? -c.lamports[j] : c.lamports[j]) > best) {
        best = c.lamports[j] < 0 ? -c.lamports[j] : c.lamports[j];
        counterparty = c.keys[j];
      }
    out.push_back(
        transferJson(b, caip2, c.lamports[i] > 0, decimal(c.lamports[i]), counterparty, ""));
  }
  for (const auto& [key, change] : c.tokens) {
    if (key.first != address || change == 0) continue;
    std::string counterparty;
    Amount best = 0;
    for (const auto& [other, otherChange] : c.tokens)
      if (other.second == key.second && other.first != address && otherChange != 0 &&
          (otherChange > 0) != (change > 0) &&
          (otherChange < 0 ? -otherChange : otherChange) > best) {
        best = otherChange < 0 ? -otherChange : otherChange;
        counterparty = other.first;
      }
    out.push_back(transferJson(b, caip2, change > 0, decimal(change), counterparty, key.second));
  }
  return out;
}

struct Signature {
  std::string id;
  int64_t slot = 0;
};

// The signatures of `address` newer than `until`, back to slot `from`, oldest first.
std::vector<Signature> newSignatures(const JsonRpc& node, const Broadcast& b,
                                     const std::string& address, const std::string& until,
                                     int64_t from) {
  std::vector<Signature> newestFirst;
  std::string before;
  for (;;) {
    json::Object options = json::object();
    options->set("limit", kSignaturesPerPage);
    options->set("commitment", b.settings().solanaCommitment);
    if (!until.empty()) options->set("until", until);
    if (!before.empty()) options->set("before", before);
    json::Array p = json::array();
    p->add(address);
    p->add(options);
    auto page = node.call("getSignaturesForAddress", p);
    auto list = page.type() == typeid(json::Array) ? page.extract<json::Array>() : nullptr;
    if (!list)
      throw Error(Code::kUnavailable,
                  node.name() + " answered getSignaturesForAddress with no list");
    for (unsigned i = 0; i < list->size(); ++i) {
      json::Object s = list->getObject(i);
      int64_t slot = integer(s, "slot");
      if (slot < from) return {newestFirst.rbegin(), newestFirst.rend()};
      newestFirst.push_back({textOf(s, "signature"), slot});
    }
    if (list->size() < static_cast<size_t>(kSignaturesPerPage)) break;
    before = newestFirst.back().id;
  }
  return {newestFirst.rbegin(), newestFirst.rend()};
}
// One round for one address (followSol): true when more is left for the next.
bool followAddress(Broadcast& b, WorkerContext& w, const JsonRpc& node, const std::string& caip2,
                   const std::string& address, int64_t from, int64_t finalized) {
  std::optional<HistoryCursor> cursor;
  w.read([&](RequestContext& ctx) { cursor = readCursor(ctx.db(), caip2, address); });
  auto fresh = newSignatures(node, b, address, cursor ? cursor->last : "", from);
  if (fresh.empty()) return false;
  const bool more = fresh.size() > kTransactionsPerRound;
  if (more) fresh.resize(kTransactionsPerRound);

  std::vector<json::Object> txs;
  std::map<int64_t, json::Object> blocks;
  for (size_t at = 0; at < fresh.size(); at += kReadsPerBatch) {
    std::vector<JsonRpc::Call> calls;
    for (size_t i = at; i < std::min(fresh.size(), at + kReadsPerBatch); ++i) {
      json::Object options = json::object();
      options->set("encoding", "jsonParsed");
      options->set("commitment", b.settings().solanaCommitment);
      options->set("maxSupportedTransactionVersion", 0);
      json::Array p = json::array();
      p->add(fresh[i].id);
      p->add(options);
      calls.push_back({"getTransaction", p});
    }
    for (const auto& result : node.batch(calls)) {
      json::Object tx = objectOf(result);
      if (!tx) throw Error(Code::kUnavailable, node.name() + " could not give a transaction");
      txs.push_back(tx);
    }
  }
  std::vector<JsonRpc::Call> calls;
  std::vector<int64_t> slots;
  for (const auto& s : fresh)
    if (slots.empty() || slots.back() != s.slot) slots.push_back(s.slot);
  for (int64_t slot : slots) {
    json::Object options = json::object();
    options->set("transactionDetails", "none");
    options->set("rewards", false);
    options->set("commitment", b.settings().solanaCommitment);
    options->set("maxSupportedTransactionVersion", 0);
    json::Array p = json::array();
    p->add(slot);
    p->add(options);
    calls.push_back({"getBlock", p});
  }
  auto read = node.batch(calls);
  for (size_t i = 0; i < slots.size(); ++i) blocks[slots[i]] = objectOf(read[i]);

  std::vector<HistoryEntry> entries;
  const std::string feeAsset = nativeCaip19(b.settings(), caip2);
  int64_t inSlot = 0;
  for (size_t i = 0; i < fresh.size(); ++i) {
    inSlot = i > 0 && fresh[i - 1].slot == fresh[i].slot ? inSlot + 1 : 0;
    const json::Object& tx = txs[i];
    json::Object block = blocks[fresh[i].slot];
    if (!block) throw Error(Code::kUnavailable, node.name() + " could not give a block");
    json::Object meta = tx->getObject("meta");
    Changes changes = changesOf(tx);
    auto keys = arrayOf(tx->getObject("transaction")->getObject("message"), "accountKeys");
    json::Array signers = json::array();
    for (unsigned k = 0; k < keys->size(); ++k) {
      json::Object key = keys->getObject(k);
      if (!key || !key->optValue<bool>("signer", false)) continue;
      json::Object signer = json::object();
      signer->set("address", textOf(key, "pubkey"));
      signer->set("writable", key->optValue<bool>("writable", false));
      signers->add(signer);
    }
    json::Object fee = json::object();
    fee->set("amount", std::to_string(integer(meta, "fee")));
    fee->set("caip19", feeAsset);
    json::Object where = json::object();
    where->set("number", std::to_string(fresh[i].slot));
    where->set("hash", textOf(block, "blockhash"));
    where->set("timestamp", rfc3339(integer(block, "blockTime")));
    json::Object item = json::object();
    item->set("signature", fresh[i].id);
    item->set("block", where);
    item->set("feePayer", changes.keys.empty() ? "" : changes.keys[0]);
    item->set("signers", signers);
    item->set("fee", fee);
    json::Array transfers = json::array();
    // A failed transaction moved nothing but its fee.
    if (meta->get("err").isEmpty())
      for (const auto& t : transfersOf(b, caip2, changes, address)) transfers->add(t);
    item->set("transfers", transfers);
    entries.push_back({address, fresh[i].id, fresh[i].slot * 100000 + inSlot, fresh[i].slot, item});
  }
  HistoryCursor moved{fresh.back().slot + 1, fresh.back().id, finalized};
  w.transaction(
      [&](RequestContext& ctx) { advance(ctx.db(), caip2, address, cursor, moved, entries); });
  return more;
}
}  // namespace

bool followSol(Broadcast& b, WorkerContext& w, const std::string& caip2, int64_t from) {
  JsonRpc node = b.node(caip2)->answersUpTo(kAnswerBytes);
  std::set<std::string> addresses;
  std::optional<HistoryCursor> chainRow;
  w.read([&](RequestContext& ctx) {
    addresses = followedAddresses(ctx.db(), "ADDRESS_FORMAT_SOLANA");
    chainRow = readCursor(ctx.db(), caip2, "");
  });
  json::Object commitment = json::object();
  commitment->set("commitment", "finalized");
  json::Array finalizedParams = json::array();
  finalizedParams->add(commitment);
  auto finalizedSlot = node.call("getSlot", finalizedParams);
  if (!finalizedSlot.isInteger()) throw Error(Code::kUnavailable, node.name() + " gave no slot");
  const int64_t finalized = finalizedSlot.convert<int64_t>();
  if (!chainRow || chainRow->finalized != finalized)
    w.transaction([&](RequestContext& ctx) { recordFinalized(ctx.db(), caip2, "", finalized); });

  bool more = false;
  std::exception_ptr failure;  // the first address that failed; the others still get their turn
  for (const auto& address : addresses) {
    if (w.stopping()) break;
    try {
      more |= followAddress(b, w, node, caip2, address, from, finalized);
    } catch (const std::exception&) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return more;
}

}  // namespace signing::broadcast
