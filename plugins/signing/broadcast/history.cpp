#include "history.hpp"

#include <algorithm>
#include <ctime>
#include <map>

#include "assets.hpp"
#include "broadcast.hpp"
#include "quantity.hpp"
#include "sends.hpp"
#include "signet/pagination.hpp"

namespace signing::broadcast {

using namespace signet;

std::optional<HistoryCursor> readCursor(Db& db, const std::string& caip2,
                                        const std::string& address) {
  auto r = db.queryOne(
      "SELECT next_block, last_id, finalized_block FROM signing_history_cursors WHERE caip2 = ? "
      "AND address = ?",
      {caip2, address});
  if (!r) return std::nullopt;
  return HistoryCursor{r->i64("next_block"), r->str("last_id"), r->i64("finalized_block")};
}

bool advance(Db& db, const std::string& caip2, const std::string& address,
             const std::optional<HistoryCursor>& from, const HistoryCursor& to,
             const std::vector<HistoryEntry>& entries) {
  // The cursor first: when another gateway moved it since this round read it, nothing is written.
  size_t moved =
      from ? db.exec(
                 "UPDATE signing_history_cursors SET next_block = ?, last_id = ?, finalized_block "
                 "= ? WHERE caip2 = ? AND address = ? AND next_block = ? AND last_id = ?",
                 {to.next, to.last, to.finalized, caip2, address, from->next, from->last})
           : db.exec(
                 "INSERT INTO signing_history_cursors (caip2, address, next_block, last_id, "
                 "finalized_block) VALUES (?, ?, ?, ?, ?) ON CONFLICT (caip2, address) DO NOTHING",
                 {caip2, address, to.next, to.last, to.finalized});
  if (moved != 1) return false;
  for (const auto& e : entries)
    db.exec(
        "INSERT INTO signing_history (caip2, address, tx_id, seq, block_number, item) VALUES (?, "
        "?, ?, ?, ?, ?) ON CONFLICT (caip2, address, tx_id) DO NOTHING",
        {caip2, e.address, e.txId, e.order, e.block, json::stringify(e.item)});
  return true;
}

bool rewind(Db& db, const std::string& caip2, const HistoryCursor& from, int64_t block) {
  // Never forward: a gateway that saw an older cursor cannot skip what another indexed.
  if (block > from.next) return false;
  if (db.exec("UPDATE signing_history_cursors SET next_block = ?, last_id = '' WHERE caip2 = ? "
              "AND address = '' AND next_block = ? AND last_id = ?",
              {block, caip2, from.next, from.last}) != 1)
    return false;
  db.exec("DELETE FROM signing_history WHERE caip2 = ? AND block_number >= ?", {caip2, block});
  return true;
}

void recordFinalized(Db& db, const std::string& caip2, const std::string& address,
                     int64_t finalized) {
  db.exec(
      "INSERT INTO signing_history_cursors (caip2, address, next_block, last_id, finalized_block) "
      "VALUES (?, ?, 0, '', ?) ON CONFLICT (caip2, address) DO UPDATE SET finalized_block = "
      "excluded.finalized_block",
      {caip2, address, finalized});
}

std::set<std::string> followedAddresses(Db& db, const std::string& addressFormat) {
  std::set<std::string> out;
  const bool hex = addressFormat == "ADDRESS_FORMAT_ETHEREUM";
  for (const auto& r :
       db.query("SELECT DISTINCT address FROM signing_wallet_accounts WHERE address_format = ?",
                {addressFormat}))
    out.insert(hex ? asciiLower(r.str("address")) : r.str("address"));
  return out;
}

std::string rfc3339(int64_t epochSeconds) {
  std::time_t t = static_cast<std::time_t>(epochSeconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

json::Object transferJson(const Broadcast& b, const std::string& caip2, bool in,
                          const std::string& amount, const std::string& counterparty,
                          const std::string& token) {
  json::Object t = json::object();
  t->set("direction", in ? "IN" : "OUT");
  t->set("amount", amount);
  t->set("counterparty", counterparty);
  // The native coin, or a token the catalogue lists; an unlisted token's asset is left out, as
  // the API does when it cannot be determined.
  std::optional<Asset> asset =
      token.empty() ? nativeAsset(b.settings(), caip2) : tokenAsset(b.settings(), caip2, token);
  if (asset) {
    json::Object a = json::object();
    a->set("caip19", asset->caip19);
    a->set("symbol", asset->symbol);
    a->set("name", asset->name);
    a->set("decimals", asset->decimals);
    t->set("asset", a);
    json::Object display = json::object();
    display->set("crypto", pointed(amount, asset->decimals));
    t->set("display", display);
  }
  return t;
}

namespace {
json::Object listHistory(Broadcast& b, RequestContext& ctx, const json::Object& body,
                         ChainFamily family) {
  const bool solana = family == ChainFamily::kSolana;
  std::string given = json::requireString(body, "caip2", "");
  // A chain id of the other family is refused first, by configuredChain; then, as for balances,
  // whose address it is, before anything is said of what this gateway follows.
  auto normalized = normalizeCaip2(given);
  if (!normalized || isSolana(*normalized) != solana) configuredChain(b, given, "caip2", family);
  std::string stored = walletAccountAddress(ctx, body);
  std::string chain = configuredChain(b, given, "caip2", family);
  if (!b.settings().historyFrom.count(chain))
    throw invalidArgument("invalid field caip2: no transaction history is kept for \"" + given +
                          "\" (plugins.settings.signing.broadcast.history)");
  std::string address = solana ? stored : asciiLower(stored);
  Pagination page = parsePagination(body);
  Db& db = ctx.db();

  // One more than the page, to know whether the list goes on past it.
  Pagination probe = page;
  probe.limit = page.limit + 1;
  std::string sql =
      "SELECT id, block_number, item FROM (SELECT seq AS created_at_ms, tx_id AS id, "
      "block_number, item FROM signing_history WHERE caip2 = ? AND address = ?) h WHERE 1 = 1";
  SqlParams params{chain, address};
  auto rows = queryPage(db, sql, params, probe, /*newestFirst=*/true, [&](const std::string& id) {
    auto r =
        db.queryOne("SELECT seq FROM signing_history WHERE caip2 = ? AND address = ? AND tx_id = ?",
                    {chain, address, id});
    if (!r)
      throw invalidArgument("invalid field paginationOptions: cursor \"" + id +
                            "\" is not a transaction of this address's history on " + chain);
    return r->i64("seq");
  });
  // The probe row is the one farthest from the cursor: first when the page was read backwards
  // (before alone, then flipped), last otherwise.
  const bool backwards = page.before && !page.after;
  const bool more = rows.size() > page.limit;
  if (more && backwards) rows.erase(rows.begin());
  if (more && !backwards) rows.pop_back();

  auto finalized = readCursor(db, chain, "");
  // Sends made through this gateway, by transaction hash (or signature), compared as stored:
  // Ethereum hashes in lower case on both sides, Solana signatures in their own base58.
  std::map<std::string, std::pair<bool, int64_t>> sent;  // id -> (sponsored, submitted at)
  if (!rows.empty()) {
    std::string in;
    SqlParams ids{chain};
    for (const auto& r : rows) {
      in += in.empty() ? "?" : ", ?";
      ids.push_back(r.str("id"));
    }
    for (const auto& r :
         db.query("SELECT tx_hash, kind, created_at_ms FROM signing_sends WHERE caip2 = ? AND "
                  "tx_hash IN (" +
                      in + ")",
                  ids)) {
      SendKind kind = kindFromName(r.str("kind"));
      sent[r.str("tx_hash")] = {kind == SendKind::kEthSponsored || kind == SendKind::kSolSponsored,
                                r.i64("created_at_ms")};
    }
  }
  json::Array transactions = json::array();
  for (const auto& r : rows) {
    json::Object item = json::parseObject(r.str("item"), "stored history");
    item->set("status", finalized && r.i64("block_number") <= finalized->finalized ? "FINALIZED"
                                                                                   : "CONFIRMED");
    auto send = sent.find(r.str("id"));
    if (send == sent.end()) {
      item->set("origin", "EXTERNAL");
    } else {
      // "TURNKEY" is the public API's word for a transaction sent through the API itself.
      item->set("origin", "TURNKEY");
      json::Object through = json::object();
      through->set("sponsored", send->second.first);
      through->set("submittedAt", rfc3339(send->second.second / 1000));
      item->set("turnkey", through);
    }
    transactions->add(item);
  }
  json::Object info = json::object();
  info->set("hasNextPage", page.before ? true : more);
  info->set("hasPreviousPage", backwards ? more : page.after.has_value());
  if (!rows.empty()) {
    info->set("startCursor", rows.front().str("id"));
    info->set("endCursor", rows.back().str("id"));
  }
  json::Object out = json::object();
  out->set("transactions", transactions);
  out->set("pageInfo", info);
  return out;
}
}  // namespace

json::Object listEthTransactionHistory(Broadcast& b, RequestContext& ctx,
                                       const json::Object& body) {
  return listHistory(b, ctx, body, ChainFamily::kEthereum);
}

json::Object listSolTransactionHistory(Broadcast& b, RequestContext& ctx,
                                       const json::Object& body) {
  return listHistory(b, ctx, body, ChainFamily::kSolana);
}

}  // namespace signing::broadcast
