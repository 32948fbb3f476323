// plugins.settings.signing.broadcast: where transactions are sent and what sponsorship costs.
// Every field is optional; without `rpc`, every send is refused naming its chain.
//   rpc                {"<CAIP-2 chain id>": "<JSON-RPC URL>"}: eip155:<chain id> or Solana's
//                      solana:<genesis hash prefix> (solana:mainnet and solana:devnet name those)
//   allowInsecureUrls  plain http:// node URLs (tests and development only)
//   timeoutSeconds     one node call, connect to last byte (default 10)
//   pollIntervalMs     how often the worker moves sends along (default 1000)
//   giveUpSeconds      how long a node may stay unreachable, or a transaction unconfirmed,
//                      before the send is FAILED with the cause (default 600)
//   solanaCommitment   the confirmation level a Solana transaction must reach before its send
//                      is INCLUDED or FAILED: "confirmed" (default) or "finalized"; below it
//                      ("processed") the worker waits, as the block may still be dropped
//   batchExecutor      {"eip155:<id>": "0x…"}: where contracts/SignetBatchExecutor.sol is
//                      deployed on that chain (needed for batches and sponsored sends)
//   usdPrice           {"<CAIP-2>": "3000.50"}: a fixed USD price of the chain's native coin
//   priceSource        {"<CAIP-2>": {"url": "...", "field": "data.amount", "cacheSeconds": 60}}:
//                      a JSON document giving that price (fixed prices win when both are set)
//   assets             {"<CAIP-2>": [{"contract" (eip155) or "mint" (Solana), "symbol", "name",
//                      "decimals", "logoUrl", "stable", "usdPrice" or "priceSource"}]}: the
//                      ERC-20 and SPL tokens list_supported_assets names and
//                      get_wallet_address_balances reads, besides the chain's native coin
//   nativeAsset        {"<CAIP-2>": {"symbol", "name", "decimals", "slip44"}}: the native coin of a
//                      chain that kNativeCoins (assets.cpp) does not name, or another name for it
//   history            {"<CAIP-2>": {"fromBlock": N} (eip155) or {"fromSlot": N} (Solana)}: the
//                      chains whose transactions the history worker follows, from that height
//                      (history.hpp); each needs its node in rpc
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "signet/json.hpp"

namespace signing::broadcast {

struct PriceSource {
  std::string url;
  std::string field;  // dotted path to a string or number
  int cacheSeconds = 60;
};

// An asset of a chain's catalogue (assets.hpp).
struct Asset {
  std::string caip19;  // eip155:1/slip44:60, eip155:1/erc20:0x…, solana:…/token:<mint>
  std::string token;   // the ERC-20 contract (0x, lower-case) or SPL mint; empty: the native coin
  std::string symbol, name, logoUrl;
  int decimals = 0;
  bool stable = false;
};

struct Settings {
  std::map<std::string, std::string> rpc;
  bool allowInsecureUrls = false;
  int timeoutSeconds = 10;
  int pollIntervalMs = 1000;
  int giveUpSeconds = 600;
  std::string solanaCommitment = "confirmed";
  std::map<std::string, std::string> batchExecutor;  // lower-case 0x addresses
  // Keyed by CAIP-2 for a chain's native coin, by CAIP-19 for a token.
  std::map<std::string, std::string> usdPrice;
  std::map<std::string, PriceSource> priceSource;
  std::map<std::string, std::vector<Asset>> tokens;  // configured tokens, by chain
  std::map<std::string, Asset> nativeAssets;         // configured native coins, by chain
  std::map<std::string, int64_t> historyFrom;        // followed chains: first block or slot
};

Settings parseSettings(const signet::json::Object& signingSettings);

// A CAIP-2 chain id in the form the settings are keyed by: eip155:<decimal>, or solana:<first 32
// characters of the genesis hash> (solana:mainnet and solana:devnet resolved). nullopt when
// it is neither.
std::optional<std::string> normalizeCaip2(const std::string& caip2);
bool isSolana(const std::string& normalizedCaip2);

}  // namespace signing::broadcast
