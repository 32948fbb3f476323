#include "keys/key_material.hpp"

#include "signet/hd_keys.hpp"

namespace signing {

using namespace signet;
using crypto::Curve;

std::string mnemonicSecretId(const std::string& walletId) {
  return "wallet-mnemonic:" + walletId;
}
std::string seedSecretId(const std::string& walletId) {
  return "wallet-seed:" + walletId;
}

namespace {
// Also spelled by kSignWithTargets, which reads a target's sealed key with it.
constexpr const char* kPrivateKeyIdPrefix = "private-key:";
constexpr const char* kAccountKeyIdPrefix = "wallet-account-key:";
}  // namespace

std::string privateKeySecretId(const std::string& privateKeyId) {
  return kPrivateKeyIdPrefix + privateKeyId;
}

std::string accountKeySecretId(const std::string& walletAccountId) {
  return kAccountKeyIdPrefix + walletAccountId;
}

Curve curveFromApi(const std::string& name, const std::string& field) {
  if (name == "CURVE_SECP256K1") return Curve::kSecp256k1;
  if (name == "CURVE_ED25519") return Curve::kEd25519;
  if (name == "CURVE_P256") return Curve::kP256;
  throw invalidArgument("invalid field " + field + ": \"" + name +
                        "\" (expected CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256)");
}

std::string curveToApi(Curve curve) {
  switch (curve) {
    case Curve::kSecp256k1:
      return "CURVE_SECP256K1";
    case Curve::kEd25519:
      return "CURVE_ED25519";
    case Curve::kP256:
      return "CURVE_P256";
  }
  return "";
}

namespace {
// Stored as "mnemonic" or "mnemonic\npassphrase" (an imported wallet's BIP-39 passphrase).
crypto::SecretBytes seedOfMnemonic(const crypto::SecretBytes& mnemonic) {
  std::string text = toString(mnemonic.bytes());
  crypto::WipeOnExit wipeText(text);
  auto newline = text.find('\n');
  std::string words = text.substr(0, newline);
  crypto::WipeOnExit wipeWords(words);
  std::string passphrase = newline == std::string::npos ? "" : text.substr(newline + 1);
  crypto::WipeOnExit wipePassphrase(passphrase);
  return hd::seedFromMnemonic(words, passphrase);
}
}  // namespace

crypto::SecretBytes walletSeed(RequestContext& ctx, const std::string& walletId) {
  try {
    return ctx.keyring().open(seedSecretId(walletId), kSeedKind);
  } catch (const Error& e) {
    if (e.code() != Code::kNotFound) throw;  // a wallet stored before seeds were sealed
  }
  return seedOfMnemonic(ctx.keyring().open(mnemonicSecretId(walletId), kMnemonicKind));
}

void sealWalletSeed(ActivityContext& ctx, const std::string& walletId,
                    const crypto::SecretBytes& mnemonic) {
  ctx.keyring().seal(seedSecretId(walletId), kSeedKind, seedOfMnemonic(mnemonic));
}

crypto::SecretBytes accountKeyFromSeed(const crypto::SecretBytes& seed, Curve curve,
                                       const std::string& path, const std::string& field) {
  std::string why;
  auto segments = hd::parsePath(path, why);
  if (!segments) throw invalidArgument("invalid field " + field + ": \"" + path + "\": " + why);
  try {
    return std::move(hd::derive(curve, seed, *segments).privateKey);
  } catch (const std::invalid_argument& e) {
    throw invalidArgument("invalid field " + field + ": \"" + path + "\": " + e.what());
  }
}

// Each target's sealed key comes with it (SealedSecret), so that signing opens it without a read
// of its own (on PostgreSQL, a round trip a signature).
const std::string kSignWithTargets =
    "SELECT rank, id, wallet_id, curve, address_format, address, public_key, path, " +
    SealedSecret::column("targets.secret_id") +
    " FROM (SELECT 1 AS rank, id, wallet_id, curve, address_format, address, public_key, path, '" +
    kAccountKeyIdPrefix +
    "' || id AS secret_id FROM signing_wallet_accounts WHERE organization_id = ? AND "
    "lower(address) = lower(?) "
    "UNION ALL SELECT 2, k.id, '', k.curve, a.address_format, a.address, k.public_key, '', '" +
    kPrivateKeyIdPrefix +
    "' || k.id FROM signing_private_key_addresses a JOIN signing_private_keys k ON "
    "k.organization_id = a.organization_id AND k.id = a.private_key_id WHERE a.organization_id = "
    "? AND lower(a.address) = lower(?) "
    "UNION ALL SELECT 3, id, '', curve, '', '', public_key, '', '" +
    kPrivateKeyIdPrefix +
    "' || id FROM signing_private_keys WHERE organization_id = ? AND id = ?) targets ORDER BY "
    "rank";

namespace {
// The statement's answer, sent once per activity: ahead of the snapshot's first statement when
// the activity reads ahead (readSignWithAhead), else when the facts or the handler first ask.
std::shared_ptr<RowsAhead>& signWithRead(RequestContext& ctx, const std::string& signWith) {
  const std::string& org = ctx.organizationId();
  return ctx.requestCache().get<std::shared_ptr<RowsAhead>>(
      "signing.signWithRows:" + org + ":" + signWith, [&] {
        return ctx.db().queryAhead(kSignWithTargets, {org, signWith, org, signWith, org, signWith});
      });
}

std::optional<SignWithTarget> lookUpSignWith(RequestContext& ctx, const std::string& signWith) {
  // Ethereum addresses are compared without their checksum case; others exactly.
  bool hexAddress = signWith.rfind("0x", 0) == 0;
  auto same = [&](const std::string& stored) {
    return hexAddress ? asciiLower(stored) == asciiLower(signWith) : stored == signWith;
  };
  // A wallet account's address first, then a private key's address, then a private key's id.
  for (const auto& row : signWithRead(ctx, signWith)->rows()) {
    const int64_t rank = row.i64("rank");
    if (rank < 3 && !same(row.str("address"))) continue;
    return SignWithTarget{rank == 1,
                          row.str("id"),
                          row.str("wallet_id"),
                          row.str("address"),
                          curveFromApi(row.str("curve"), rank == 1 ? "account curve" : "curve"),
                          row.str("address_format"),
                          row.str("public_key"),
                          row.str("path"),
                          SealedSecret::fromRow(row)};
  }
  return std::nullopt;
}
}  // namespace

void readSignWithAhead(RequestContext& ctx, const json::Object& parameters) {
  // Unchecked yet: only a string as long as an address or an id can be (the longest, a Spark
  // address, is about a hundred characters) is worth sending.
  constexpr size_t kLongestSignWith = 256;
  const auto signWith = parameters->get("signWith");
  if (signWith.isString() && signWith.extract<std::string>().size() <= kLongestSignWith)
    signWithRead(ctx, signWith.extract<std::string>());
}

std::optional<SignWithTarget> locateSignWith(RequestContext& ctx, const std::string& signWith) {
  // The policy facts locate it first; the handler then takes their answer from the request cache.
  return ctx.requestCache().get<std::optional<SignWithTarget>>(
      "signing.signWith:" + ctx.organizationId() + ":" + signWith,
      [&] { return lookUpSignWith(ctx, signWith); });
}

SigningKey resolveSignWith(RequestContext& ctx, const std::string& signWith) {
  auto target = locateSignWith(ctx, signWith);
  if (!target)
    throw notFound("signWith \"" + signWith +
                   "\" is no wallet account address, private key address or private key id in "
                   "organization " +
                   ctx.organizationId());
  return openSignWith(ctx, *target);
}

SigningKey openSignWith(RequestContext& ctx, const SignWithTarget& target) {
  const std::string secretId =
      target.walletAccount ? accountKeySecretId(target.id) : privateKeySecretId(target.id);
  SigningKey k{target.curve, target.addressFormat,
               target.sealed ? ctx.keyring().open(secretId, kPrivateKeyKind, *target.sealed)
                             : ctx.keyring().open(secretId, kPrivateKeyKind)};
  k.taproot = k.addressFormat.size() > 4 &&
              k.addressFormat.compare(k.addressFormat.size() - 4, 4, "P2TR") == 0;
  k.schnorr = k.addressFormat.rfind("ADDRESS_FORMAT_SPARK_", 0) == 0;
  return k;
}

}  // namespace signing
