// The Ethereum side of the transaction history (history.hpp). Each round reads up to
// kBlocksPerRound blocks past the chain's cursor, whole, with the ERC-20 Transfer logs of the same
// range, in one JSON-RPC batch; then the receipts of the transactions that concern a followed
// address, for their fees and outcomes. A block whose parent is not the block the cursor last
// indexed is a reorganization: what was indexed past the finalized block is forgotten and read
// again.
#include <Poco/Logger.h>

#include <map>
#include <set>

#include "assets.hpp"
#include "broadcast.hpp"
#include "history.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
// Whole mainnet blocks are a few hundred kilobytes of JSON each: ten of them, with their
// Transfer logs, stay well inside an answer of kAnswerBytes.
constexpr int64_t kBlocksPerRound = 10;
// How far back a reorganization is read again when the node names no finalized block.
constexpr int64_t kUnfinalizedDepth = 64;
constexpr size_t kAnswerBytes = 64 << 20;
// keccak256("Transfer(address,address,uint256)")
const std::string kTransferTopic =
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

std::string hexParam(int64_t n) {
  return toQuantity(static_cast<Uint128>(n));
}

// A quantity the node gave ("0x1b"), as a number; Unavailable naming it otherwise.
int64_t number(const JsonRpc& node, const json::Object& o, const char* key) {
  auto n = parseU128(textOf(o, key));
  if (!n || *n > static_cast<Uint128>(INT64_MAX))
    throw Error(Code::kUnavailable, node.name() + " gave no " + key + " where one was due");
  return static_cast<int64_t>(*n);
}

// The address in a 32-byte topic, lower-case 0x.
std::string topicAddress(const std::string& topic) {
  return topic.size() == 66 ? "0x" + asciiLower(topic.substr(26)) : "";
}

// What the sender paid, in wei: gas used at the effective price (the transaction's own price on
// a node that gives none), plus the L1 data fee OP Stack chains (Base, Optimism) add to the
// receipt. Each figure is bounded to 64 bits, so that the product cannot wrap.
std::string feeOf(const json::Object& receipt, const json::Object& tx) {
  auto small = [](const std::string& q) -> std::optional<Uint128> {
    auto v = parseU128(q);
    if (!v || *v > static_cast<Uint128>(UINT64_MAX)) return std::nullopt;
    return v;
  };
  auto gasUsed = small(textOf(receipt, "gasUsed"));
  auto price = small(textOf(receipt, "effectiveGasPrice"));
  if (!price) price = small(textOf(tx, "gasPrice"));
  Uint128 fee = gasUsed && price ? *gasUsed * *price : 0;
  if (auto l1 = small(textOf(receipt, "l1Fee"))) fee += *l1;
  return toDecimal(fee);
}

// What one round found for one (address, transaction).
struct Seen {
  json::Object tx;
  json::Object block;
  std::vector<json::Object> transfers;  // a failed transaction's are dropped
  bool sender = false;
};
}  // namespace

bool followEth(Broadcast& b, WorkerContext& w, const std::string& caip2, int64_t from) {
  b.ethNode(caip2);  // checks, once, that the node serves this chain
  JsonRpc node = b.node(caip2)->answersUpTo(kAnswerBytes);
  std::optional<HistoryCursor> cursor;
  std::set<std::string> addresses;
  w.read([&](RequestContext& ctx) {
    cursor = readCursor(ctx.db(), caip2, "");
    addresses = followedAddresses(ctx.db(), "ADDRESS_FORMAT_ETHEREUM");
  });
  const int64_t next = cursor ? std::max(cursor->next, from) : from;
  // The hash the next block's parent must have; none when the start was moved past the cursor.
  const std::string last = cursor && cursor->next >= from ? cursor->last : "";

  // Where the chain is, and whether the block the cursor stands on is still in it.
  std::vector<JsonRpc::Call> calls = {{"eth_blockNumber", json::array()}};
  if (!last.empty()) calls.push_back({"eth_getBlockByNumber", params({hexParam(next - 1), false})});
  auto where = node.batch(calls);
  auto head = parseU128(where[0].isString() ? where[0].toString() : "");
  if (!head) throw Error(Code::kUnavailable, node.name() + " gave no block number");
  // The finalized block, asked alone: a node (or chain) without the tag answers an error or
  // null, which leaves the last height read (statuses stay CONFIRMED) rather than stalling.
  int64_t finalized = cursor ? cursor->finalized : 0;
  bool knowsFinalized = false;
  try {
    if (auto block = objectOf(node.call("eth_getBlockByNumber", params({"finalized", false})))) {
      finalized = number(node, block, "number");
      knowsFinalized = true;
    }
  } catch (const RpcError&) {
  }
  // A node behind the block the cursor stands on (another backend, a failover) is waited for,
  // not taken for a reorganization: what it has not reached says nothing of what was indexed.
  const int64_t height = static_cast<int64_t>(*head);
  if (height < next - 1) return false;
  if (!last.empty() && textOf(objectOf(where[1]), "hash") != last) {
    // Read again from above the finalized block, or a bounded depth when none is named.
    const int64_t floor = knowsFinalized ? finalized + 1 : next - 1 - kUnfinalizedDepth;
    const int64_t back = std::max(from, std::min(next - 1, floor));
    Poco::Logger::get("signet.plugins")
        .warning("signing: %s reorganized below block %s; history from block %s is read again",
                 caip2, std::to_string(next), std::to_string(back));
    w.transaction([&](RequestContext& ctx) { rewind(ctx.db(), caip2, *cursor, back); });
    return true;
  }
  if (height < next) {
    if (!cursor || cursor->finalized != finalized)
      w.transaction([&](RequestContext& ctx) { recordFinalized(ctx.db(), caip2, "", finalized); });
    return false;
  }
  const int64_t to = std::min(height, next + kBlocksPerRound - 1);

  // The blocks whole, and every Transfer log of the range.
  calls.clear();
  for (int64_t n = next; n <= to; ++n)
    calls.push_back({"eth_getBlockByNumber", params({hexParam(n), true})});
  json::Object filter = json::object();
  filter->set("fromBlock", hexParam(next));
  filter->set("toBlock", hexParam(to));
  filter->set("topics", params({kTransferTopic}));
  calls.push_back({"eth_getLogs", params({filter})});
  auto read = node.batch(calls);
  std::vector<json::Object> blocks;
  std::map<std::string, std::pair<json::Object, json::Object>> txs;  // hash -> (tx, block)
  for (int64_t n = next; n <= to; ++n) {
    json::Object block = objectOf(read[n - next]);
    std::string parent = blocks.empty() ? last : textOf(blocks.back(), "hash");
    // A block missing, or one whose parent is not the one before it: the chain moved while it was
    // read. The next round reads it again (and finds the reorganization, if there is one).
    if (!block || (!parent.empty() && textOf(block, "parentHash") != parent)) return false;
    blocks.push_back(block);
    if (auto list = block->getArray("transactions"))
      for (unsigned i = 0; i < list->size(); ++i)
        if (auto tx = list->getObject(i)) txs[asciiLower(textOf(tx, "hash"))] = {tx, block};
  }

  std::map<std::pair<std::string, std::string>, Seen> seen;  // (address, hash)
  auto note = [&](const std::string& address, const std::string& hash) -> Seen& {
    Seen& s = seen[{address, hash}];
    s.tx = txs.at(hash).first;
    s.block = txs.at(hash).second;
    return s;
  };
  for (const auto& [hash, pair] : txs) {
    const json::Object& tx = pair.first;
    std::string sender = asciiLower(textOf(tx, "from"));
    std::string recipient = asciiLower(textOf(tx, "to"));
    auto value = parseU256(textOf(tx, "value"));
    std::string amount = value ? toDecimal(*value) : "0";
    if (addresses.count(sender)) {
      Seen& s = note(sender, hash);
      s.sender = true;
      if (amount != "0")
        s.transfers.push_back(transferJson(b, caip2, false, amount, recipient, ""));
    }
    if (amount != "0" && addresses.count(recipient)) {
      note(recipient, hash).transfers.push_back(transferJson(b, caip2, true, amount, sender, ""));
    }
  }
  auto logs =
      read.back().type() == typeid(json::Array) ? read.back().extract<json::Array>() : nullptr;
  if (!logs) throw Error(Code::kUnavailable, node.name() + " answered eth_getLogs with no list");
  for (unsigned i = 0; i < logs->size(); ++i) {
    json::Object log = logs->getObject(i);
    auto topics = log ? log->getArray("topics") : nullptr;
    // ERC-20's Transfer has three topics; ERC-721's, with the token id indexed, has four.
    if (!topics || topics->size() != 3 || topics->getElement<std::string>(0) != kTransferTopic)
      continue;
    // A log of another block than the one read: the chain moved while it was read.
    auto n = parseU128(textOf(log, "blockNumber"));
    if (!n || *n < static_cast<Uint128>(next) || *n > static_cast<Uint128>(to) ||
        textOf(blocks[static_cast<size_t>(*n) - next], "hash") != textOf(log, "blockHash"))
      return false;
    std::string hash = asciiLower(textOf(log, "transactionHash"));
    auto tx = txs.find(hash);
    if (tx == txs.end()) continue;  // a system transaction the block's list leaves out
    std::string source = topicAddress(topics->getElement<std::string>(1));
    std::string target = topicAddress(topics->getElement<std::string>(2));
    auto data = textOf(log, "data");
    auto word = data.rfind("0x", 0) == 0 ? fromHex(data.substr(2)) : std::nullopt;
    if (!word || word->size() != 32) continue;  // not an ERC-20 transfer
    std::string amount = toDecimal(*word);
    std::string token = asciiLower(textOf(log, "address"));
    if (addresses.count(source))
      note(source, hash).transfers.push_back(transferJson(b, caip2, false, amount, target, token));
    if (addresses.count(target))
      note(target, hash).transfers.push_back(transferJson(b, caip2, true, amount, source, token));
  }

  // Fees and outcomes.
  std::set<std::string> distinct;
  for (const auto& entry : seen) distinct.insert(entry.first.second);
  std::vector<std::string> hashes(distinct.begin(), distinct.end());
  calls.clear();
  for (const auto& hash : hashes) calls.push_back({"eth_getTransactionReceipt", params({hash})});
  auto receipts = node.batch(calls);
  std::map<std::string, json::Object> receiptOf;
  for (size_t i = 0; i < hashes.size(); ++i) receiptOf[hashes[i]] = objectOf(receipts[i]);

  std::vector<HistoryEntry> entries;
  const std::string feeAsset = nativeCaip19(b.settings(), caip2);
  for (auto& [key, s] : seen) {
    json::Object receipt = receiptOf[key.second];
    if (!receipt)
      throw Error(Code::kUnavailable, node.name() + " has no receipt for " + key.second);
    if (textOf(receipt, "status") == "0x0") {
      // A reverted transaction moved nothing; only its sender paid, and only it sees it.
      if (!s.sender) continue;
      s.transfers.clear();
    }
    json::Object fee = json::object();
    fee->set("amount", feeOf(receipt, s.tx));
    fee->set("caip19", feeAsset);
    json::Object block = json::object();
    block->set("number", std::to_string(number(node, s.block, "number")));
    block->set("hash", textOf(s.block, "hash"));
    block->set("timestamp", rfc3339(number(node, s.block, "timestamp")));
    json::Object item = json::object();
    item->set("transactionHash", key.second);
    item->set("block", block);
    item->set("from", asciiLower(textOf(s.tx, "from")));
    if (!textOf(s.tx, "to").empty()) item->set("to", asciiLower(textOf(s.tx, "to")));
    item->set("fee", fee);
    json::Array transfers = json::array();
    for (const auto& t : s.transfers) transfers->add(t);
    item->set("transfers", transfers);
    int64_t height = number(node, s.block, "number");
    entries.push_back({key.first, key.second,
                       height * 100000 + number(node, s.tx, "transactionIndex"), height, item});
  }
  HistoryCursor moved{to + 1, textOf(blocks.back(), "hash"), finalized};
  w.transaction([&](RequestContext& ctx) { advance(ctx.db(), caip2, "", cursor, moved, entries); });
  return to < height;
}

}  // namespace signing::broadcast
