// The assets a chain's balances are read for (list_supported_assets, get_wallet_address_balances):
// its native coin, then the tokens the operator lists in plugins.settings.signing.broadcast.assets.
// A gateway holds no market data of its own: it names what it is told to, and prices only what a
// configured price (usdPrice, priceSource) gives.
#pragma once

#include <optional>
#include <vector>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace signing::broadcast {

class Broadcast;

// The chain's native coin (nativeAsset, else kNativeCoins in assets.cpp, else none), then its
// configured tokens in the order listed.
std::vector<Asset> catalogue(const Settings& s, const std::string& caip2);

// The chain's native coin: nativeAsset's setting, else kNativeCoins (assets.cpp), else none.
std::optional<Asset> nativeAsset(const Settings& s, const std::string& caip2);
// The CAIP-19 of the chain's native coin: the catalogue's, else slip44 60 (eip155) or 501.
std::string nativeCaip19(const Settings& s, const std::string& caip2);
// The configured token (ERC-20 contract, lower-case, or SPL mint) of a chain, if listed.
std::optional<Asset> tokenAsset(const Settings& s, const std::string& caip2,
                                const std::string& token);
// body.address when it is a wallet account of the organization, in the address format of the
// chain body.caip2 names, as stored; InvalidArgument naming `address` otherwise (a private key's
// address included), or `caip2` when it is no CAIP-2 chain id.
std::string walletAccountAddress(signet::RequestContext& ctx, const signet::json::Object& body);

// list_supported_assets: {assets: v1AssetMetadata[]}.
signet::json::Object listSupportedAssets(const Broadcast& b, signet::RequestContext& ctx,
                                         const signet::json::Object& body);
// get_wallet_address_balances: the non-zero balances of a wallet account's address, read from
// the chain's node in one JSON-RPC batch: {balances: v1AssetBalance[]}.
signet::json::Object getWalletAddressBalances(Broadcast& b, signet::RequestContext& ctx,
                                              const signet::json::Object& body);

}  // namespace signing::broadcast
