// Where signing keys come from: a wallet account's key derived from its wallet's mnemonic,
// or a private key, each opened from the keyring for one request and wiped after. Also the
// curve names of the API.
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace signing {

inline constexpr const char* kMnemonicKind = "bip39-mnemonic";
inline constexpr const char* kPrivateKeyKind = "private-key";
inline constexpr const char* kSeedKind = "bip39-seed";
std::string mnemonicSecretId(const std::string& walletId);
// A wallet's BIP-39 seed, sealed beside its mnemonic when the wallet is stored, so that adding
// accounts does not run PBKDF2 (2048 rounds of HMAC-SHA512) again. Wallets stored before it
// have none; their seed is derived from the mnemonic as before.
std::string seedSecretId(const std::string& walletId);
std::string privateKeySecretId(const std::string& privateKeyId);
// A stored wallet account's derived key, sealed at creation so that signing opens one secret
// instead of re-running PBKDF2 and the derivation on every request.
std::string accountKeySecretId(const std::string& walletAccountId);

// CURVE_SECP256K1 / CURVE_ED25519 / CURVE_P256 <-> curve; InvalidArgument naming `field`.
signet::crypto::Curve curveFromApi(const std::string& name, const std::string& field);
std::string curveToApi(signet::crypto::Curve curve);

// A wallet's BIP-39 seed: the sealed seed, else derived from the mnemonic (opened, used and
// wiped here). For callers that derive several keys of one wallet in a request.
signet::crypto::SecretBytes walletSeed(signet::RequestContext& ctx, const std::string& walletId);
// Derives and seals the seed of `mnemonic` ("words" or "words\npassphrase") for a new wallet.
void sealWalletSeed(signet::ActivityContext& ctx, const std::string& walletId,
                    const signet::crypto::SecretBytes& mnemonic);
// The account key at `path` under a seed. InvalidArgument naming `field` for a bad path.
signet::crypto::SecretBytes accountKeyFromSeed(const signet::crypto::SecretBytes& seed,
                                               signet::crypto::Curve curve, const std::string& path,
                                               const std::string& field);
// A key that can sign: what signWith resolved to.
struct SigningKey {
  signet::crypto::Curve curve;
  std::string addressFormat;  // of the account or address named; empty for a key id
  signet::crypto::SecretBytes privateKey;
  bool taproot = false;  // P2TR accounts sign BIP-341 Schnorr
  bool schnorr = false;  // Spark accounts sign plain BIP-340 Schnorr
};
// What signWith may name, in one statement: a wallet account's address, a private key's address
// (a 0x address in either case), or a private key's id, ordered by that rank. Its parameters are
// the organization and signWith, three times. Each part goes through an index (schema migration
// 7), whatever the organization holds.
extern const std::string kSignWithTargets;
// What signWith names, without opening any secret (policy facts use it).
struct SignWithTarget {
  bool walletAccount = false;
  std::string id;        // wallet account id or private key id
  std::string walletId;  // for a wallet account
  std::string address;   // the address named, if an address was
  signet::crypto::Curve curve;
  std::string addressFormat;
  std::string publicKeyHex;  // canonical form, as stored
  std::string path;          // a wallet account's derivation path
  // Its key's sealed cells, read with it (kSignWithTargets' sealed_secret column); a target built
  // elsewhere (a broadcast worker's, from its stored request) has none, and its key is read from
  // the keyring, as it is when no secret was found (which that read then reports).
  std::optional<signet::SealedSecret> sealed;
};
// Looked up once per activity: the answer is kept in ctx.requestCache() for the facts and the
// handler.
std::optional<SignWithTarget> locateSignWith(signet::RequestContext& ctx,
                                             const std::string& signWith);
// The activity's readAhead: the statement locateSignWith will make for the parameters' signWith,
// sent ahead of the snapshot's first statement.
void readSignWithAhead(signet::RequestContext& ctx, const signet::json::Object& parameters);

// signWith: a wallet account address, a private key address, or a private key id, in the
// context's organization. NotFound naming it otherwise.
SigningKey resolveSignWith(signet::RequestContext& ctx, const std::string& signWith);
// The key of a target already located (opened from the keyring for this request).
SigningKey openSignWith(signet::RequestContext& ctx, const SignWithTarget& target);

}  // namespace signing
