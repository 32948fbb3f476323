#include "keys/export_import.hpp"

#include "keys/addresses.hpp"
#include "keys/key_material.hpp"
#include "keys/private_keys.hpp"
#include "keys/wallets.hpp"
#include "signet/bundles.hpp"
#include "signet/hd_keys.hpp"
#include "signet/key_params.hpp"

namespace signing {

using namespace signet;

namespace {
constexpr const char* kImportTargetKind = "p256-private-key";

std::string importTargetId(const std::string& kind, const std::string& userId) {
  return "import-target:" + kind + ":" + userId;
}

Bytes targetKey(const std::string& targetPublicKey) {
  return p256PublicKeyParam(targetPublicKey, "parameters.targetPublicKey");
}

void requireUser(ActivityContext& ctx, const std::string& userId) {
  if (!ctx.services().identity.findUser(ctx, ctx.organizationId(), userId))
    throw notFound("user " + userId + " not found in organization " + ctx.organizationId());
}

Object initImport(ActivityContext& ctx, const std::string& userId, const std::string& kind) {
  requireUser(ctx, userId);
  // One live target per user and kind: a new init replaces the previous one.
  const std::string id = importTargetId(kind, userId);
  ctx.keyring().erase(id);
  Object result = json::object();
  result->set("importBundle", newImportTarget(ctx, [&](const std::string&) { return id; },
                                              kImportTargetKind, {{"userId", userId}}));
  return result;
}

// Opens an import bundle with the user's target key, which is then spent.
crypto::SecretBytes openImport(ActivityContext& ctx, const std::string& userId,
                               const std::string& encryptedBundle, const std::string& kind) {
  requireUser(ctx, userId);
  auto sealed = bundles::parseSealedJson(encryptedBundle);
  if (!sealed)
    throw invalidArgument(
        "invalid field parameters.encryptedBundle: expected {\"encappedPublic\",\"ciphertext\"}");
  crypto::SecretBytes target;
  try {
    target = ctx.keyring().open(importTargetId(kind, userId), kImportTargetKind);
  } catch (const Error&) {
    throw failedPrecondition("no import is in progress for user " + userId + "; run init_import_" +
                             kind + " first");
  }
  auto plain = bundles::open(target, *sealed);
  if (!plain)
    throw invalidArgument(
        "invalid field parameters.encryptedBundle: it was not encrypted to the "
        "target key of the last init_import_" +
        kind + " for user " + userId);
  ctx.keyring().erase(importTargetId(kind, userId));
  return std::move(*plain);
}
}  // namespace

const Shape<ExportWalletParameters> kExportWallet = {
    field("walletId", &ExportWalletParameters::walletId),
    field("targetPublicKey", &ExportWalletParameters::targetPublicKey)};
const Shape<ExportWalletAccountParameters> kExportWalletAccount = {
    field("address", &ExportWalletAccountParameters::address),
    field("targetPublicKey", &ExportWalletAccountParameters::targetPublicKey)};
const Shape<ExportPrivateKeyParameters> kExportPrivateKey = {
    field("privateKeyId", &ExportPrivateKeyParameters::privateKeyId),
    field("targetPublicKey", &ExportPrivateKeyParameters::targetPublicKey)};
const Shape<InitImportParameters> kInitImport = {field("userId", &InitImportParameters::userId)};
const Shape<ImportWalletParameters> kImportWallet = {
    field("userId", &ImportWalletParameters::userId),
    field("walletName", &ImportWalletParameters::walletName, {.displayName = true}),
    field("encryptedBundle", &ImportWalletParameters::encryptedBundle),
    field("accounts", &ImportWalletParameters::accounts, walletAccountShape())};
const Shape<ImportPrivateKeyParameters> kImportPrivateKey = {
    field("userId", &ImportPrivateKeyParameters::userId),
    field("privateKeyName", &ImportPrivateKeyParameters::privateKeyName, {.displayName = true}),
    field("encryptedBundle", &ImportPrivateKeyParameters::encryptedBundle),
    field("curve", &ImportPrivateKeyParameters::curve),
    field("addressFormats", &ImportPrivateKeyParameters::addressFormats)};

std::string exportBundle(RequestContext& ctx, const Bytes& target,
                         const crypto::SecretBytes& secret) {
  auto sealed = bundles::seal(target, secret.data(), secret.size());
  return bundles::signedEnvelope(
      bundles::sealedJson(sealed, {{"organizationId", ctx.organizationId()}}), ctx.gatewaySigner(),
      ctx.signerPublicKey());
}

std::string newImportTarget(ActivityContext& ctx,
                            const std::function<std::string(const std::string&)>& keyringId,
                            const std::string& kind,
                            const std::vector<std::pair<std::string, std::string>>& fields) {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string targetPublic = toHex(crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv)));
  ctx.keyring().seal(keyringId(targetPublic), kind, priv);
  std::string data = "{\"targetPublic\":" + json::stringify(targetPublic) +
                     ",\"organizationId\":" + json::stringify(ctx.organizationId());
  for (const auto& [name, value] : fields)
    data += "," + json::stringify(name) + ":" + json::stringify(value);
  return bundles::signedEnvelope(data + "}", ctx.gatewaySigner(), ctx.signerPublicKey());
}

Object exportWallet(ActivityContext& ctx, const ExportWalletParameters& p) {
  const std::string& walletId = p.walletId;
  Bytes target = targetKey(p.targetPublicKey);
  if (!ctx.db().queryOne("SELECT 1 FROM signing_wallets WHERE organization_id = ? AND id = ?",
                         {ctx.organizationId(), walletId}))
    throw notFound("wallet " + walletId + " not found in organization " + ctx.organizationId());
  auto mnemonic = ctx.keyring().open(mnemonicSecretId(walletId), kMnemonicKind);
  std::string bundle = exportBundle(ctx, target, mnemonic);
  ctx.db().exec("UPDATE signing_wallets SET exported = 1, updated_at_ms = ? WHERE id = ?",
                {ctx.nowMs(), walletId});
  Object result = json::object();
  result->set("walletId", walletId);
  result->set("exportBundle", bundle);
  return result;
}

Object exportWalletAccount(ActivityContext& ctx, const ExportWalletAccountParameters& p) {
  const std::string& address = p.address;
  Bytes target = targetKey(p.targetPublicKey);
  auto row = ctx.db().queryOne(
      "SELECT id FROM signing_wallet_accounts WHERE organization_id = ? AND address = ?",
      {ctx.organizationId(), address});
  if (!row)
    throw notFound("no wallet account with address " + address + " in organization " +
                   ctx.organizationId());
  auto key = ctx.keyring().open(accountKeySecretId(row->str("id")), kPrivateKeyKind);
  std::string bundle = exportBundle(ctx, target, key);
  ctx.db().exec("UPDATE signing_wallet_accounts SET exported = 1, updated_at_ms = ? WHERE id = ?",
                {ctx.nowMs(), row->str("id")});
  Object result = json::object();
  result->set("address", address);
  result->set("exportBundle", bundle);
  return result;
}

Object exportPrivateKey(ActivityContext& ctx, const ExportPrivateKeyParameters& p) {
  const std::string& id = p.privateKeyId;
  Bytes target = targetKey(p.targetPublicKey);
  if (!ctx.db().queryOne("SELECT 1 FROM signing_private_keys WHERE organization_id = ? AND id = ?",
                         {ctx.organizationId(), id}))
    throw notFound("private key " + id + " not found in organization " + ctx.organizationId());
  auto key = ctx.keyring().open(privateKeySecretId(id), kPrivateKeyKind);
  std::string bundle = exportBundle(ctx, target, key);
  ctx.db().exec("UPDATE signing_private_keys SET exported = 1, updated_at_ms = ? WHERE id = ?",
                {ctx.nowMs(), id});
  Object result = json::object();
  result->set("privateKeyId", id);
  result->set("exportBundle", bundle);
  return result;
}

Object initImportWallet(ActivityContext& ctx, const InitImportParameters& p) {
  return initImport(ctx, p.userId, "wallet");
}

Object initImportPrivateKey(ActivityContext& ctx, const InitImportParameters& p) {
  return initImport(ctx, p.userId, "private_key");
}

Object importWallet(ActivityContext& ctx, const ImportWalletParameters& p) {
  // The accounts are checked before the bundle is opened, which spends the import target.
  auto accounts = checkedAccounts(p.accounts, "parameters");
  auto plain = openImport(ctx, p.userId, p.encryptedBundle, "wallet");
  // "words" or "words\npassphrase"; the words must be a valid BIP-39 mnemonic.
  std::string text = toString(plain.bytes());
  crypto::WipeOnExit wipeText(text);
  std::string words = text.substr(0, text.find('\n'));
  crypto::WipeOnExit wipeWords(words);
  std::string why;
  auto entropy = hd::entropyFromMnemonic(words, why);
  // The message clients match: "invalid mnemonic".
  if (!entropy) throw invalidArgument("invalid mnemonic: " + why);
  crypto::wipe(entropy->data(), entropy->size());  // only its validity was needed
  return storeWallet(ctx, ctx.organizationId(), p.walletName, accounts, plain, true, "parameters");
}

Object importPrivateKey(ActivityContext& ctx, const ImportPrivateKeyParameters& p) {
  const std::string& name = p.privateKeyName;
  const std::string& curveName = p.curve;
  crypto::Curve curve = curveFromApi(curveName, "parameters.curve");
  const auto& formats = p.addressFormats;
  for (const auto& format : formats)
    requireFormatForCurve(format, curve, curveName, "parameters.addressFormats");
  auto plain = openImport(ctx, p.userId, p.encryptedBundle, "private_key");
  // A Solana key arrives as the 64-byte secret ‖ public key; the first 32 bytes are the key.
  crypto::SecretBytes key(
      Bytes(plain.bytes().begin(), plain.bytes().begin() + std::min<size_t>(32, plain.size())));
  if (key.size() != 32 || !crypto::isValidPrivateKey(curve, key))
    throw invalidArgument("invalid field parameters.encryptedBundle: it does not hold a " +
                          std::string(crypto::curveName(curve)) + " private key");
  auto [id, addresses] = storePrivateKey(ctx, name, curveName, key, formats, true);
  Object result = json::object();
  result->set("privateKeyId", id);
  result->set("addresses", addresses);
  return result;
}

}  // namespace signing
