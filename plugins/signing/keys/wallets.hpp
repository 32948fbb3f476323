// Wallets: create_wallet, create_wallet_accounts (persist: false derives
// without storing), update_wallet, delete_wallets, delete_wallet_accounts, get_wallet,
// list_wallets, get_wallet_account, list_wallet_accounts, and the WalletCreator that
// create_sub_organization calls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"
#include "signet/wallet_params.hpp"

namespace signing {

using signet::json::Object;

// An account to derive and a wallet to create, as the API sends them: the SDK's, because the
// core nests a wallet in create_sub_organization and hands it here read (Services::createWallet).
// Their shapes are signet::walletAccountShape() and signet::walletShape().
using AccountParameters = signet::WalletAccountParameters;
using CreateWalletParameters = signet::WalletParameters;
// An account whose parameters hold beyond their shape: a curve, a BIP-32 path and an address
// format for it. `field` names it in messages (parameters.accounts[2]).
struct AccountSpec {
  signet::crypto::Curve curve;
  std::string curveName, path, addressFormat, name, field;
};
// At most 100 accounts, each checked; `path` is the object holding them ("parameters").
std::vector<AccountSpec> checkedAccounts(const std::vector<AccountParameters>& accounts,
                                         const std::string& path);

struct CreateWalletAccountsParameters {
  std::string walletId;
  std::vector<AccountParameters> accounts;
  std::optional<bool> persist;
};
struct UpdateWalletParameters {
  std::string walletId;
  std::optional<std::string> walletName;
};
struct DeleteWalletsParameters {
  std::vector<std::string> walletIds;
  std::optional<bool> deleteWithoutExport;
};
struct DeleteWalletAccountsParameters {
  std::vector<std::string> walletAccountIds;
  std::optional<bool> deleteWithoutExport;
};
extern const signet::Shape<CreateWalletAccountsParameters> kCreateWalletAccounts;
extern const signet::Shape<UpdateWalletParameters> kUpdateWallet;
extern const signet::Shape<DeleteWalletsParameters> kDeleteWallets;
extern const signet::Shape<DeleteWalletAccountsParameters> kDeleteWalletAccounts;

Object createWallet(signet::ActivityContext& ctx, const CreateWalletParameters& params);
Object createWalletAccounts(signet::ActivityContext& ctx,
                            const CreateWalletAccountsParameters& params);
Object updateWallet(signet::ActivityContext& ctx, const UpdateWalletParameters& params);
Object deleteWallets(signet::ActivityContext& ctx, const DeleteWalletsParameters& params);
Object deleteWalletAccounts(signet::ActivityContext& ctx,
                            const DeleteWalletAccountsParameters& params);
Object getWallet(signet::RequestContext& ctx, const Object& body);
Object listWallets(signet::RequestContext& ctx, const Object& body);
Object getWalletAccount(signet::RequestContext& ctx, const Object& body);
Object listWalletAccounts(signet::RequestContext& ctx, const Object& body);

// WalletCreator: a wallet in `organizationId` from a sub-organization's `wallet`, read at
// admission → {walletId, addresses}.
Object createWalletIn(signet::ActivityContext& ctx, const std::string& organizationId,
                      const CreateWalletParameters& wallet);
// A wallet from a given mnemonic ("words" or "words\npassphrase"), for import_wallet. `path`
// names the parameters in messages ("parameters.wallet" for a sub-organization's).
Object storeWallet(signet::ActivityContext& ctx, const std::string& organizationId,
                   const std::string& walletName, const std::vector<AccountSpec>& accounts,
                   const signet::crypto::SecretBytes& mnemonic, bool imported,
                   const std::string& path);
// Deletion hook: refuses while a wallet or key has not been exported (unless told to delete
// without export), else removes the organization's wallets, keys and their secrets.
void deleteOrganizationKeys(signet::ActivityContext& ctx, const std::string& organizationId,
                            bool deleteWithoutExport);

}  // namespace signing
