#include "assets.hpp"

#include <Poco/Logger.h>

#include <cmath>
#include <cstdio>

#include "broadcast.hpp"
#include "keys/key_material.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
// The native coins of the public API's chains whose coin is not in doubt, as SLIP-44 numbers
// them (github.com/satoshilabs/slips, slip-0044.md). Any other chain's coin comes from
// nativeAsset.
struct NativeCoin {
  const char* symbol;
  const char* name;
  int slip44;
  int decimals;
  std::vector<const char*> chains;
};
const NativeCoin kNativeCoins[] = {
    {"ETH",
     "Ether",
     60,
     18,
     {"eip155:1", "eip155:11155111", "eip155:8453", "eip155:84532", "eip155:10", "eip155:11155420",
      "eip155:42161", "eip155:421614"}},
    {"POL", "Polygon Ecosystem Token", 966, 18, {"eip155:137", "eip155:80002"}},
    {"BNB", "BNB", 714, 18, {"eip155:56", "eip155:97"}},
    {"SOL",
     "Solana",
     501,
     9,
     {"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}},
};

json::Object metadataJson(const Asset& a) {
  json::Object o = json::object();
  o->set("caip19", a.caip19);
  o->set("symbol", a.symbol);
  o->set("name", a.name);
  o->set("decimals", a.decimals);
  if (!a.logoUrl.empty()) o->set("logoUrl", a.logoUrl);
  o->set("stable", a.stable);
  return o;
}

// The chain a query names, with a node configured for it; InvalidArgument naming `caip2`.
std::string queriedChain(const Broadcast& b, const json::Object& body) {
  return configuredChain(b, json::requireString(body, "caip2", ""), "caip2", ChainFamily::kAny);
}

// The USD value of `digits` atomic units, to the cent, when the asset has a price; a price source
// that cannot be read leaves it out (the balance itself is still true).
std::optional<std::string> usdValue(Broadcast& b, const std::string& priceKey, const Asset& a,
                                    const std::string& digits, int64_t nowMs) {
  std::optional<Uint128> micros;
  try {
    micros = b.prices().usdMicros(priceKey, nowMs);
  } catch (const Error& e) {
    Poco::Logger::get("signet.plugins")
        .warning("signing: no USD value for %s: %s", a.caip19, std::string(e.what()));
  }
  if (!micros) return std::nullopt;
  // For display only, as the API says: a long double keeps 18 significant digits.
  long double value = std::stold(digits) * static_cast<long double>(*micros) / 1e6L /
                      std::pow(10.0L, static_cast<long double>(a.decimals));
  char text[64];
  std::snprintf(text, sizeof text, "%.2Lf", value);
  return std::string(text);
}

// What a node answered for one asset, as decimal digits of atomic units.
std::string ethBalance(const JsonRpc& node, const Asset& a, const Poco::Dynamic::Var& result) {
  std::string hex = result.isString() ? result.toString() : "";
  if (a.token.empty()) {
    auto wei = parseU256(hex);
    if (!wei)
      throw Error(Code::kUnavailable,
                  node.name() + " answered eth_getBalance with \"" + hex + "\", not a quantity");
    return toDecimal(*wei);
  }
  auto word = hex.rfind("0x", 0) == 0 ? fromHex(hex.substr(2)) : std::nullopt;
  if (!word || word->size() != 32)
    throw failedPrecondition(node.name() + " answered balanceOf of " + a.symbol + " (" + a.token +
                             ") with \"" + hex.substr(0, 80) +
                             "\", not a uint256: is that contract an ERC-20 on this chain? "
                             "(plugins.settings.signing.broadcast.assets)");
  return toDecimal(*word);
}

std::string solBalance(const JsonRpc& node, const Asset& a, const Poco::Dynamic::Var& result) {
  auto answer = objectOf(result);
  auto bad = [&](const char* method) {
    return Error(Code::kUnavailable, node.name() + " answered " + method + " for " + a.symbol +
                                         " without the fields of its answer");
  };
  if (!answer || !answer->has("value"))
    throw bad(a.token.empty() ? "getBalance" : "getTokenAccountsByOwner");
  if (a.token.empty()) {
    auto lamports = answer->get("value");
    if (!lamports.isInteger()) throw bad("getBalance");
    return toDecimal(static_cast<Uint128>(lamports.convert<uint64_t>()));
  }
  // Every token account of the owner for this mint: an owner may hold more than one.
  auto accounts = answer->getArray("value");
  if (!accounts) throw bad("getTokenAccountsByOwner");
  Uint128 total = 0;
  for (unsigned i = 0; i < accounts->size(); ++i) {
    auto account = accounts->getObject(i);
    auto data = account && account->getObject("account")
                    ? account->getObject("account")->getObject("data")
                    : nullptr;
    auto parsed = data ? data->getObject("parsed") : nullptr;
    auto info = parsed ? parsed->getObject("info") : nullptr;
    auto amount = info ? info->getObject("tokenAmount") : nullptr;
    auto units = amount ? parseU128(amount->optValue<std::string>("amount", "")) : std::nullopt;
    if (!units) throw bad("getTokenAccountsByOwner");
    total += *units;
  }
  return toDecimal(total);
}
}  // namespace

std::optional<Asset> nativeAsset(const Settings& s, const std::string& caip2) {
  if (auto configured = s.nativeAssets.find(caip2); configured != s.nativeAssets.end())
    return configured->second;
  for (const auto& coin : kNativeCoins)
    for (const char* chain : coin.chains)
      if (caip2 == chain)
        return Asset{.caip19 = caip2 + "/slip44:" + std::to_string(coin.slip44),
                     .token = "",
                     .symbol = coin.symbol,
                     .name = coin.name,
                     .logoUrl = "",
                     .decimals = coin.decimals,
                     .stable = false};
  return std::nullopt;
}

std::vector<Asset> catalogue(const Settings& s, const std::string& caip2) {
  std::vector<Asset> out;
  if (auto native = nativeAsset(s, caip2)) out.push_back(*native);
  if (auto tokens = s.tokens.find(caip2); tokens != s.tokens.end())
    out.insert(out.end(), tokens->second.begin(), tokens->second.end());
  return out;
}

json::Object listSupportedAssets(const Broadcast& b, RequestContext&, const json::Object& body) {
  json::Array assets = json::array();
  for (const auto& a : catalogue(b.settings(), queriedChain(b, body))) assets->add(metadataJson(a));
  json::Object r = json::object();
  r->set("assets", assets);
  return r;
}

std::string walletAccountAddress(RequestContext& ctx, const json::Object& body) {
  std::string given = json::requireString(body, "caip2", "");
  auto caip2 = normalizeCaip2(given);
  if (!caip2)
    throw invalidArgument("invalid field caip2: \"" + given +
                          "\" is not an eip155 or Solana CAIP-2 chain id");
  std::string address = json::requireString(body, "address", "");
  auto target = locateSignWith(ctx, address);
  if (!target || !target->walletAccount || target->address.empty())
    throw invalidArgument("invalid field address: \"" + address +
                          "\" is not the address of a wallet account of organization " +
                          ctx.organizationId() +
                          (target ? " (private key addresses are not supported)" : ""));
  const char* format = isSolana(*caip2) ? "ADDRESS_FORMAT_SOLANA" : "ADDRESS_FORMAT_ETHEREUM";
  if (target->addressFormat != format)
    throw invalidArgument("invalid field address: \"" + address + "\" is an " +
                          target->addressFormat + " address, which " + *caip2 +
                          " does not use (it takes " + format + ")");
  return target->address;
}

std::string nativeCaip19(const Settings& s, const std::string& caip2) {
  if (auto native = nativeAsset(s, caip2)) return native->caip19;
  return caip2 + (isSolana(caip2) ? "/slip44:501" : "/slip44:60");
}

std::optional<Asset> tokenAsset(const Settings& s, const std::string& caip2,
                                const std::string& token) {
  if (auto tokens = s.tokens.find(caip2); tokens != s.tokens.end())
    for (const auto& a : tokens->second)
      if (a.token == token) return a;
  return std::nullopt;
}

json::Object getWalletAddressBalances(Broadcast& b, RequestContext& ctx, const json::Object& body) {
  // Whose address it is comes first: a refusal names the caller's organization, and says
  // nothing of whether a chain is configured to another organization's caller.
  const std::string address = walletAccountAddress(ctx, body);
  std::string chain = queriedChain(b, body);
  const bool solana = isSolana(chain);
  std::vector<Asset> assets = catalogue(b.settings(), chain);
  json::Array balances = json::array();
  json::Object r = json::object();
  r->set("balances", balances);
  if (assets.empty()) return r;

  // One batch, so that a balance query is one exchange under one deadline.
  if (!solana) b.ethNode(chain);  // checks, once, that the node serves this chain
  JsonRpc node = *b.node(chain);
  std::vector<JsonRpc::Call> calls;
  for (const auto& a : assets) {
    json::Array params = json::array();
    if (solana) {
      json::Object options = json::object();
      options->set("commitment", b.settings().solanaCommitment);
      params->add(address);
      if (!a.token.empty()) {
        json::Object filter = json::object();
        filter->set("mint", a.token);
        params->add(filter);
        options->set("encoding", "jsonParsed");
      }
      params->add(options);
      calls.push_back({a.token.empty() ? "getBalance" : "getTokenAccountsByOwner", params});
    } else if (a.token.empty()) {
      params->add(address);
      params->add("latest");
      calls.push_back({"eth_getBalance", params});
    } else {
      // balanceOf(address): its selector, then the address as a 32-byte word.
      json::Object call = json::object();
      call->set("to", a.token);
      call->set("data", "0x70a08231000000000000000000000000" + asciiLower(address.substr(2)));
      params->add(call);
      params->add("latest");
      calls.push_back({"eth_call", params});
    }
  }
  auto results = node.batch(calls);
  const int64_t now = ctx.nowMs();
  for (size_t i = 0; i < assets.size(); ++i) {
    const Asset& a = assets[i];
    std::string digits = solana ? solBalance(node, a, results[i]) : ethBalance(node, a, results[i]);
    if (digits == "0") continue;  // only what the address holds
    json::Object balance = json::object();
    balance->set("caip19", a.caip19);
    balance->set("symbol", a.symbol);
    balance->set("name", a.name);
    balance->set("decimals", a.decimals);
    balance->set("balance", digits);
    json::Object display = json::object();
    display->set("crypto", pointed(digits, a.decimals));
    if (auto usd = usdValue(b, a.token.empty() ? chain : a.caip19, a, digits, now))
      display->set("usd", *usd);
    balance->set("display", display);
    balances->add(balance);
  }
  return r;
}

}  // namespace signing::broadcast
