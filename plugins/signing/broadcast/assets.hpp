// The assets a chain's balances are read for (list_supported_assets, get_wallet_address_balances):
// its native coin, then the tokens the operator lists in plugins.settings.signing.broadcast.assets.
// A gateway holds no market data of its own: it names what it is told to, and prices only what a
// configured price (usdPrice, priceSource) gives.
#pragma once

#include <vector>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace signing::broadcast {

class Broadcast;

// The chain's native coin (nativeAsset, else kNativeCoins in assets.cpp, else none), then its
// configured tokens in the order listed.
std::vector<Asset> catalogue(const Settings& s, const std::string& caip2);

// list_supported_assets: {assets: v1AssetMetadata[]}.
signet::json::Object listSupportedAssets(const Broadcast& b, signet::RequestContext& ctx,
                                         const signet::json::Object& body);
// get_wallet_address_balances: the non-zero balances of a wallet account's address, read from
// the chain's node in one JSON-RPC batch: {balances: v1AssetBalance[]}.
signet::json::Object getWalletAddressBalances(Broadcast& b, signet::RequestContext& ctx,
                                              const signet::json::Object& body);

}  // namespace signing::broadcast
