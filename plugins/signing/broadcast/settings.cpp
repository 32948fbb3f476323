#include "settings.hpp"

#include <algorithm>

#include "quantity.hpp"
#include "signet/error.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
const std::string kPath = "plugins.settings.signing.broadcast";

std::string chainKey(const std::string& key, const std::string& field) {
  auto normalized = normalizeCaip2(key);
  if (!normalized)
    throw invalidArgument("invalid field " + field + ": \"" + key +
                          "\" is not a CAIP-2 chain id (eip155:<id> or solana:<genesis hash>)");
  return *normalized;
}

std::string url(const std::string& value, const std::string& field, bool allowHttp) {
  if (value.rfind("https://", 0) != 0 && !(allowHttp && value.rfind("http://", 0) == 0))
    throw invalidArgument("invalid field " + field + ": \"" + value +
                          "\" (an https:// URL; http:// only with allowInsecureUrls)");
  return value;
}

PriceSource priceSource(const json::Object& source, const std::string& field, bool http) {
  PriceSource p;
  p.url = url(json::requireString(source, "url", field), field + ".url", http);
  p.field = json::requireString(source, "field", field);
  p.cacheSeconds = json::optionalIntInRange(source, "cacheSeconds", field, 60, 1, 86400);
  return p;
}

json::Object objectValue(const Poco::Dynamic::Var& value, const std::string& field) {
  json::Object o = value.type() == typeid(json::Object) ? value.extract<json::Object>() : nullptr;
  if (!o) throw invalidArgument("invalid field " + field + ": an object");
  return o;
}

// What an asset's entry names: symbol, name, decimals, and optionally logoUrl and stable.
void describeAsset(const json::Object& o, const std::string& field, Asset& a) {
  a.symbol = json::requireString(o, "symbol", field);
  a.name = json::requireString(o, "name", field);
  if (a.symbol.empty() || a.symbol.size() > 32)
    throw invalidArgument("invalid field " + field + ".symbol: 1 to 32 characters");
  if (!o->has("decimals"))
    throw invalidArgument("missing required field " + field + ".decimals (0 to 77)");
  a.decimals = json::optionalIntInRange(o, "decimals", field, 0, 0, 77);
  a.logoUrl = json::optionalString(o, "logoUrl", field).value_or("");
  a.stable = json::optionalBool(o, "stable", field, false);
}

// assets and nativeAsset: the catalogue's entries beyond the built-in native coins.
void parseAssets(const json::Object& o, Settings& s) {
  if (json::Object natives = o->getObject("nativeAsset"))
    for (const auto& [key, value] : *natives) {
      std::string field = kPath + ".nativeAsset." + key;
      std::string chain = chainKey(key, field);
      json::Object entry = objectValue(value, field);
      Asset a;
      describeAsset(entry, field, a);
      int slip44 = json::optionalIntInRange(entry, "slip44", field, isSolana(chain) ? 501 : 60, 0,
                                            0x7fffffff);
      a.caip19 = chain + "/slip44:" + std::to_string(slip44);
      s.nativeAssets[chain] = a;
    }
  json::Object assets = o->getObject("assets");
  if (!assets) return;
  for (const auto& [key, value] : *assets) {
    std::string field = kPath + ".assets." + key;
    std::string chain = chainKey(key, field);
    if (!value.isArray()) throw invalidArgument("invalid field " + field + ": an array");
    const bool solana = isSolana(chain);
    auto list = value.extract<json::Array>();
    for (unsigned i = 0; i < list->size(); ++i) {
      std::string at = field + "[" + std::to_string(i) + "]";
      json::Object entry = json::objectAt(list, i, field);
      Asset a;
      describeAsset(entry, at, a);
      const char* tokenKey = solana ? "mint" : "contract";
      std::string token = json::requireString(entry, tokenKey, at);
      if (solana) {
        auto mint = base58Decode(token);
        if (!mint || mint->size() != 32)
          throw invalidArgument("invalid field " + at + ".mint: \"" + token +
                                "\" is not a base58 Solana address");
        a.token = token;
        a.caip19 = chain + "/token:" + token;
      } else {
        auto bytes = fromHex(token);
        if (token.rfind("0x", 0) != 0 || !bytes || bytes->size() != 20)
          throw invalidArgument("invalid field " + at + ".contract: \"" + token +
                                "\" is not a 0x address");
        a.token = asciiLower(token);
        a.caip19 = chain + "/erc20:" + a.token;
      }
      for (const auto& held : s.tokens[chain])
        if (held.token == a.token)
          throw invalidArgument("invalid field " + at + "." + tokenKey + ": \"" + token +
                                "\" is listed twice");
      if (auto fixed = json::optionalString(entry, "usdPrice", at)) {
        if (!parseFixed(*fixed, 6))
          throw invalidArgument("invalid field " + at + ".usdPrice: \"" + *fixed + "\" (USD)");
        s.usdPrice[a.caip19] = *fixed;
      }
      if (json::Object source = entry->getObject("priceSource"))
        s.priceSource[a.caip19] = priceSource(source, at + ".priceSource", s.allowInsecureUrls);
      s.tokens[chain].push_back(a);
    }
  }
}

// {"<caip2>": "<text>"} with each value checked by `check`.
template <typename Check>
std::map<std::string, std::string> chainMap(const json::Object& o, const char* key, Check check) {
  std::map<std::string, std::string> out;
  json::Object map = o->getObject(key);
  if (!map) return out;
  for (const auto& [chain, value] : *map) {
    std::string field = kPath + "." + key + "." + chain;
    if (!value.isString()) throw invalidArgument("invalid field " + field + ": a string");
    out[chainKey(chain, field)] = check(value.toString(), field);
  }
  return out;
}
}  // namespace

std::optional<std::string> normalizeCaip2(const std::string& caip2) {
  if (caip2.rfind("eip155:", 0) == 0) {
    std::string id = caip2.substr(7);
    if (id.empty() || id.size() > 18 || id[0] == '0' ||
        !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return caip2;
  }
  if (caip2 == "solana:mainnet") return "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
  if (caip2 == "solana:devnet") return "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  if (caip2.rfind("solana:", 0) == 0) {
    std::string hash = caip2.substr(7);
    if (hash.size() < 32 || hash.size() > 44 || !base58Decode(hash)) return std::nullopt;
    return "solana:" + hash.substr(0, 32);
  }
  return std::nullopt;
}

bool isSolana(const std::string& caip2) {
  return caip2.rfind("solana:", 0) == 0;
}

Settings parseSettings(const json::Object& signing) {
  Settings s;
  json::Object o = signing ? signing->getObject("broadcast") : nullptr;
  if (!o) return s;
  s.allowInsecureUrls = json::optionalBool(o, "allowInsecureUrls", kPath, false);
  s.timeoutSeconds = json::optionalIntInRange(o, "timeoutSeconds", kPath, s.timeoutSeconds, 1, 120);
  s.pollIntervalMs =
      json::optionalIntInRange(o, "pollIntervalMs", kPath, s.pollIntervalMs, 50, 60'000);
  s.giveUpSeconds =
      json::optionalIntInRange(o, "giveUpSeconds", kPath, s.giveUpSeconds, 1, 7 * 86400);
  if (auto commitment = json::optionalString(o, "solanaCommitment", kPath)) {
    if (*commitment != "confirmed" && *commitment != "finalized")
      throw invalidArgument("invalid field " + kPath + ".solanaCommitment: \"" + *commitment +
                            "\" (confirmed or finalized)");
    s.solanaCommitment = *commitment;
  }
  bool http = s.allowInsecureUrls;
  s.rpc = chainMap(o, "rpc",
                   [http](const std::string& v, const std::string& f) { return url(v, f, http); });
  s.batchExecutor = chainMap(o, "batchExecutor", [](const std::string& v, const std::string& f) {
    auto bytes = fromHex(v);
    if (v.rfind("0x", 0) != 0 || !bytes || bytes->size() != 20)
      throw invalidArgument("invalid field " + f + ": \"" + v + "\" is not a 0x address");
    return asciiLower(v);
  });
  s.usdPrice = chainMap(o, "usdPrice", [](const std::string& v, const std::string& f) {
    if (!parseFixed(v, 6)) throw invalidArgument("invalid field " + f + ": \"" + v + "\" (USD)");
    return v;
  });
  if (json::Object sources = o->getObject("priceSource"))
    for (const auto& [chain, value] : *sources) {
      std::string field = kPath + ".priceSource." + chain;
      s.priceSource[chainKey(chain, field)] = priceSource(objectValue(value, field), field, http);
    }
  parseAssets(o, s);
  if (json::Object history = o->getObject("history"))
    for (const auto& [key, value] : *history) {
      std::string field = kPath + ".history." + key;
      std::string chain = chainKey(key, field);
      if (!s.rpc.count(chain))
        throw invalidArgument("invalid field " + field + ": no node is configured for \"" + key +
                              "\" (" + kPath + ".rpc)");
      json::Object entry = objectValue(value, field);
      const char* start = isSolana(chain) ? "fromSlot" : "fromBlock";
      auto height = json::optionalInt64String(entry, start, field);
      if (!height || *height < 0)
        throw invalidArgument("invalid field " + field + "." + start +
                              ": the first height to follow, 0 or more");
      s.historyFrom[chain] = *height;
    }
  return s;
}

}  // namespace signing::broadcast
