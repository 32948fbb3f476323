// Export and import (tkhq/sdk packages/crypto, tkhq/rust-sdk enclave_encrypt): export_wallet,
// export_wallet_account, export_private_key seal the mnemonic or key with HPKE to the client's
// targetPublicKey inside an envelope the gateway signer signs, and mark it exported; init_import_*
// hands out a signed target key for the user, and import_* opens the client's bundle with it (once)
// and stores the wallet or key, marked imported.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "keys/wallets.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

using signet::ActivityContext;
using signet::json::Object;

struct ExportWalletParameters {
  std::string walletId, targetPublicKey;
};
struct ExportWalletAccountParameters {
  std::string address, targetPublicKey;
};
struct ExportPrivateKeyParameters {
  std::string privateKeyId, targetPublicKey;
};
struct InitImportParameters {
  std::string userId;
};
struct ImportWalletParameters {
  std::string userId, walletName, encryptedBundle;
  std::vector<AccountParameters> accounts;
};
struct ImportPrivateKeyParameters {
  std::string userId, privateKeyName, encryptedBundle, curve;
  std::vector<std::string> addressFormats;
};
extern const signet::Shape<ExportWalletParameters> kExportWallet;
extern const signet::Shape<ExportWalletAccountParameters> kExportWalletAccount;
extern const signet::Shape<ExportPrivateKeyParameters> kExportPrivateKey;
extern const signet::Shape<InitImportParameters> kInitImport;
extern const signet::Shape<ImportWalletParameters> kImportWallet;
extern const signet::Shape<ImportPrivateKeyParameters> kImportPrivateKey;

Object exportWallet(ActivityContext& ctx, const ExportWalletParameters& params);
Object exportWalletAccount(ActivityContext& ctx, const ExportWalletAccountParameters& params);
Object exportPrivateKey(ActivityContext& ctx, const ExportPrivateKeyParameters& params);
Object initImportWallet(ActivityContext& ctx, const InitImportParameters& params);
Object initImportPrivateKey(ActivityContext& ctx, const InitImportParameters& params);
Object importWallet(ActivityContext& ctx, const ImportWalletParameters& params);
Object importPrivateKey(ActivityContext& ctx, const ImportPrivateKeyParameters& params);

// What every export answers (secrets.cpp too): `secret` sealed with HPKE to `target` in an
// envelope the gateway signer signs, {encappedPublic, ciphertext, organizationId}.
std::string exportBundle(signet::RequestContext& ctx, const signet::Bytes& target,
                         const signet::crypto::SecretBytes& secret);
// What every init_import_* hands out: a fresh P-256 target whose private key is sealed in the
// keyring, with kind `kind`, under the id `keyringId` gives for its public key (uncompressed
// hex), announced in an envelope the gateway signer signs: {targetPublic, organizationId} and
// `fields`.
std::string newImportTarget(ActivityContext& ctx,
                            const std::function<std::string(const std::string&)>& keyringId,
                            const std::string& kind,
                            const std::vector<std::pair<std::string, std::string>>& fields = {});

}  // namespace signing
