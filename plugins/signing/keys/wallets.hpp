// Wallets: create_wallet, create_wallet_accounts (persist: false derives
// without storing), update_wallet, delete_wallets, delete_wallet_accounts, get_wallet,
// list_wallets, get_wallet_account, list_wallet_accounts, and the WalletCreator that
// create_sub_organization calls.
#pragma once

#include "signet/plugin.hpp"

namespace signing {

using signet::json::Object;

Object createWallet(signet::ActivityContext& ctx, const Object& params);
Object createWalletAccounts(signet::ActivityContext& ctx, const Object& params);
Object updateWallet(signet::ActivityContext& ctx, const Object& params);
Object deleteWallets(signet::ActivityContext& ctx, const Object& params);
Object deleteWalletAccounts(signet::ActivityContext& ctx, const Object& params);
Object getWallet(signet::RequestContext& ctx, const Object& body);
Object listWallets(signet::RequestContext& ctx, const Object& body);
Object getWalletAccount(signet::RequestContext& ctx, const Object& body);
Object listWalletAccounts(signet::RequestContext& ctx, const Object& body);

// WalletCreator: a wallet in `organizationId` from v1WalletParams → {walletId, addresses}.
Object createWalletIn(signet::ActivityContext& ctx, const std::string& organizationId,
                      const Object& walletParams);
// A wallet from a given mnemonic ("words" or "words\npassphrase"), for import_wallet.
Object storeWallet(signet::ActivityContext& ctx, const std::string& organizationId,
                   const Object& params, const signet::crypto::SecretBytes& mnemonic,
                   bool imported);
// Deletion hook: refuses while a wallet or key has not been exported (unless told to delete
// without export), else removes the organization's wallets, keys and their secrets.
void deleteOrganizationKeys(signet::ActivityContext& ctx, const std::string& organizationId,
                            bool deleteWithoutExport);

}  // namespace signing
