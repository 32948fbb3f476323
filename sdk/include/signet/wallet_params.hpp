// A wallet to create, as create_wallet and create_sub_organization's `wallet` send it
// (v1WalletParams). It is in the SDK because two modules read it: the core, which nests it in
// create_sub_organization's shape, and the module that provides wallets (Services::createWallet),
// which creates it. So a sub-organization's wallet is checked at admission like any field, and
// the provider takes it already read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "signet/typed_parameters.hpp"

namespace signet {

// An account to derive (v1WalletAccountParams). Its values (a curve, a BIP-32 path, an address
// format for the curve) are the provider's to check.
struct WalletAccountParameters {
  std::string curve, pathFormat, path, addressFormat;
  std::optional<std::string> name;
};
struct WalletParameters {
  std::string walletName;
  std::vector<WalletAccountParameters> accounts;
  std::optional<int64_t> mnemonicLength;
};

// Functions, not globals: other files' shapes nest them while statics are initialized.
const Shape<WalletAccountParameters>& walletAccountShape();
const Shape<WalletParameters>& walletShape();

}  // namespace signet
