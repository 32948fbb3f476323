// Hierarchical deterministic keys: BIP-39 mnemonics (English list) and seeds, BIP-32
// derivation on secp256k1, SLIP-10 derivation on Ed25519 (hardened segments only) and on
// P-256 (SLIP-10's "Nist256p1 seed" master, hardened and normal segments).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/crypto.hpp"

namespace signet::hd {

// A mnemonic of `words` words (12, 15, 18, 21 or 24) from fresh entropy.
std::string generateMnemonic(int words);
// The mnemonic for given entropy (16 to 32 bytes, a multiple of 4).
std::string mnemonicFromEntropy(const Bytes& entropy);
// nullopt with `why` set when the words, their count or the checksum are wrong.
std::optional<Bytes> entropyFromMnemonic(const std::string& mnemonic, std::string& why);
// PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase (NFKD is not applied: the
// English list and ASCII passphrases need none).
crypto::SecretBytes seedFromMnemonic(const std::string& mnemonic, const std::string& passphrase);

// One path segment: index and whether it is hardened (' or h).
struct Segment {
  uint32_t index = 0;
  bool hardened = false;
};
// "m/44'/60'/0'/0/0" → segments; nullopt with `why` on anything else.
std::optional<std::vector<Segment>> parsePath(const std::string& path, std::string& why);

struct ExtendedKey {
  crypto::SecretBytes privateKey;  // 32 bytes
  crypto::SecretBytes chainCode;   // 32 bytes
};
// The key at `path` below the master key of `seed` for `curve`. Ed25519 has only hardened
// derivation: a normal segment is refused (std::invalid_argument naming it) rather than
// silently hardened, since wallets disagree on what it should mean.
ExtendedKey derive(crypto::Curve curve, const crypto::SecretBytes& seed,
                   const std::vector<Segment>& path);

}  // namespace signet::hd
