// The signing plugin's tables. Secrets (mnemonics, private keys) are never in them: they are
// sealed in the keyring under "wallet-mnemonic:<walletId>" and "private-key:<privateKeyId>".
#pragma once

#include <vector>

#include "signet/db.hpp"

namespace signing {

std::vector<signet::Migration> migrations();

}  // namespace signing
