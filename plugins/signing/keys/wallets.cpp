#include "keys/wallets.hpp"

#include <map>

#include "keys/addresses.hpp"
#include "keys/key_material.hpp"
#include "keys/secrets.hpp"
#include "signet/hd_keys.hpp"
#include "smart_contract_interfaces.hpp"

namespace signing {

using namespace signet;

namespace {
constexpr size_t kMaxAccountsPerRequest = 100;
constexpr const char* kAccountColumns =
    "id, organization_id, wallet_id, curve, path_format, path, address_format, address, "
    "public_key, name, created_at_ms, updated_at_ms";

// An address-derivation app proof's payload (tkhq/sdk packages/crypto, proof.ts), in the field
// order of the hosted service's proofs.
std::string derivationProof(ActivityContext& ctx, const std::string& organizationId,
                            const std::string& walletId, const std::string& path,
                            const std::string& address) {
  return R"({"type":"APP_PROOF_TYPE_ADDRESS_DERIVATION","timestampMs":)" +
         json::stringify(std::to_string(ctx.nowMs())) +
         R"(,"addressDerivationProof":{"organizationId":)" + json::stringify(organizationId) +
         R"(,"walletId":)" + json::stringify(walletId) + R"(,"derivationPath":)" +
         json::stringify(path) + R"(,"address":)" + json::stringify(address) + "}}";
}

std::vector<std::string> addAccounts(ActivityContext& ctx, const std::string& organizationId,
                                     const std::string& walletId,
                                     const std::vector<AccountSpec>& accounts, bool persist) {
  std::vector<std::string> addresses;
  if (accounts.empty()) return addresses;
  auto seed = walletSeed(ctx, walletId);  // once for all the accounts
  for (const auto& s : accounts) {
    auto key = accountKeyFromSeed(seed, s.curve, s.path, s.field + ".path");
    Bytes pub = crypto::publicKeyFromPrivate(s.curve, key);
    std::string address = addressFor(s.addressFormat, s.curve, pub);
    addresses.push_back(address);
    if (ctx.appProofsRequested())
      ctx.addAppProof(derivationProof(ctx, organizationId, walletId, s.path, address));
    if (!persist) continue;
    if (ctx.db().queryOne("SELECT 1 FROM signing_wallet_accounts WHERE wallet_id = ? AND path = ? "
                          "AND address_format = ? AND curve = ?",
                          {walletId, s.path, s.addressFormat, s.curveName}))
      throw Error(Code::kAlreadyExists, "wallet " + walletId + " already has an account at " +
                                            s.path + " with " + s.addressFormat);
    std::string id = ctx.newId();
    ctx.keyring().seal(accountKeySecretId(id), kPrivateKeyKind, key);
    ctx.db().exec(
        "INSERT INTO signing_wallet_accounts (id, organization_id, wallet_id, curve, "
        "path_format, path, address_format, address, public_key, name, exported, created_at_ms, "
        "updated_at_ms) VALUES (?, ?, ?, ?, 'PATH_FORMAT_BIP32', ?, ?, ?, ?, ?, 0, ?, ?)",
        {id, organizationId, walletId, s.curveName, s.path, s.addressFormat, address, toHex(pub),
         s.name.empty() ? SqlValue(nullptr) : SqlValue(s.name), ctx.nowMs(), ctx.nowMs()});
  }
  return addresses;
}

Object walletJson(const Row& r) {
  Object o = json::object();
  o->set("walletId", r.str("id"));
  o->set("walletName", r.str("name"));
  o->set("createdAt", json::timestamp(r.i64("created_at_ms")));
  o->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
  o->set("exported", r.i64("exported") != 0);
  o->set("imported", r.i64("imported") != 0);
  return o;
}
constexpr const char* kWalletColumns = "id, name, exported, imported, created_at_ms, updated_at_ms";

Object accountJson(const Row& r) {
  Object o = json::object();
  o->set("walletAccountId", r.str("id"));
  o->set("organizationId", r.str("organization_id"));
  o->set("walletId", r.str("wallet_id"));
  o->set("curve", r.str("curve"));
  o->set("pathFormat", r.str("path_format"));
  o->set("path", r.str("path"));
  o->set("addressFormat", r.str("address_format"));
  o->set("address", r.str("address"));
  o->set("publicKey", r.str("public_key"));
  if (auto name = r.optStr("name")) o->set("name", *name);
  o->set("createdAt", json::timestamp(r.i64("created_at_ms")));
  o->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
  return o;
}

Row requireWallet(RequestContext& ctx, const std::string& walletId) {
  auto row = ctx.db().queryOne(std::string("SELECT ") + kWalletColumns +
                                   " FROM signing_wallets WHERE organization_id = ? AND id = ?",
                               {ctx.organizationId(), walletId});
  if (!row)
    throw notFound("wallet " + walletId + " not found in organization " + ctx.organizationId());
  return *row;
}

void eraseWallet(ActivityContext& ctx, const std::string& walletId) {
  for (const auto& a :
       ctx.db().query("SELECT id FROM signing_wallet_accounts WHERE wallet_id = ?", {walletId}))
    ctx.keyring().erase(accountKeySecretId(a.str("id")));
  ctx.db().exec("DELETE FROM signing_wallet_accounts WHERE wallet_id = ?", {walletId});
  ctx.db().exec("DELETE FROM signing_wallets WHERE id = ?", {walletId});
  ctx.keyring().erase(mnemonicSecretId(walletId));
  ctx.keyring().erase(seedSecretId(walletId));
}
}  // namespace

const Shape<CreateWalletAccountsParameters> kCreateWalletAccounts = {
    field("walletId", &CreateWalletAccountsParameters::walletId),
    field("accounts", &CreateWalletAccountsParameters::accounts, walletAccountShape()),
    field("persist", &CreateWalletAccountsParameters::persist)};
const Shape<UpdateWalletParameters> kUpdateWallet = {
    field("walletId", &UpdateWalletParameters::walletId),
    field("walletName", &UpdateWalletParameters::walletName, {.displayName = true})};
const Shape<DeleteWalletsParameters> kDeleteWallets = {
    field("walletIds", &DeleteWalletsParameters::walletIds),
    field("deleteWithoutExport", &DeleteWalletsParameters::deleteWithoutExport)};
const Shape<DeleteWalletAccountsParameters> kDeleteWalletAccounts = {
    field("walletAccountIds", &DeleteWalletAccountsParameters::walletAccountIds),
    field("deleteWithoutExport", &DeleteWalletAccountsParameters::deleteWithoutExport)};

std::vector<AccountSpec> checkedAccounts(const std::vector<AccountParameters>& accounts,
                                         const std::string& path) {
  if (accounts.size() > kMaxAccountsPerRequest)
    throw invalidArgument("invalid field " + path + ".accounts: at most " +
                          std::to_string(kMaxAccountsPerRequest) + " per request, got " +
                          std::to_string(accounts.size()));
  std::vector<AccountSpec> out;
  for (size_t i = 0; i < accounts.size(); ++i) {
    const AccountParameters& a = accounts[i];
    AccountSpec s;
    s.field = path + ".accounts[" + std::to_string(i) + "]";
    s.curveName = a.curve;
    s.curve = curveFromApi(s.curveName, s.field + ".curve");
    if (a.pathFormat != "PATH_FORMAT_BIP32")
      throw invalidArgument("invalid field " + s.field + ".pathFormat: \"" + a.pathFormat +
                            "\" (expected PATH_FORMAT_BIP32)");
    s.path = a.path;
    s.addressFormat = a.addressFormat;
    s.name = a.name.value_or("");
    std::string why;
    if (!hd::parsePath(s.path, why))
      throw invalidArgument("invalid field " + s.field + ".path: \"" + s.path + "\": " + why);
    requireFormatForCurve(s.addressFormat, s.curve, s.curveName, s.field + ".addressFormat");
    out.push_back(std::move(s));
  }
  return out;
}

Object storeWallet(ActivityContext& ctx, const std::string& organizationId, const std::string& name,
                   const std::vector<AccountSpec>& accounts, const crypto::SecretBytes& mnemonic,
                   bool imported, const std::string& path) {
  if (name.empty())
    throw invalidArgument("invalid field " + path + ".walletName: must not be empty");
  if (ctx.db().queryOne("SELECT 1 FROM signing_wallets WHERE organization_id = ? AND name = ?",
                        {organizationId, name}))
    throw Error(Code::kAlreadyExists,
                "a wallet named \"" + name + "\" already exists in organization " + organizationId);
  std::string walletId = ctx.newId();
  ctx.keyring().seal(mnemonicSecretId(walletId), kMnemonicKind,
                     crypto::SecretBytes(mnemonic.bytes()));
  sealWalletSeed(ctx, walletId, mnemonic);
  ctx.db().exec(
      "INSERT INTO signing_wallets (id, organization_id, name, exported, imported, "
      "created_at_ms, updated_at_ms) VALUES (?, ?, ?, 0, ?, ?, ?)",
      {walletId, organizationId, name, imported ? 1 : 0, ctx.nowMs(), ctx.nowMs()});
  auto addresses = addAccounts(ctx, organizationId, walletId, accounts, true);
  Object result = json::object();
  result->set("walletId", walletId);
  result->set("addresses", json::stringArray(addresses));
  return result;
}

namespace {
// `path` names the parameters in messages: "parameters", or "parameters.wallet" for a
// sub-organization's wallet.
Object createWalletFrom(ActivityContext& ctx, const std::string& organizationId,
                        const CreateWalletParameters& p, const std::string& path) {
  const int64_t words = p.mnemonicLength.value_or(12);
  if (words < 12 || words > 24 || words % 3 != 0)
    throw invalidArgument("invalid field " + path +
                          ".mnemonicLength: must be 12, 15, 18, 21 or 24, got " +
                          std::to_string(words));
  auto accounts = checkedAccounts(p.accounts, path);
  std::string mnemonic = hd::generateMnemonic(static_cast<int>(words));
  crypto::WipeOnExit wipeMnemonic(mnemonic);
  crypto::SecretBytes sealed(toBytes(mnemonic));
  return storeWallet(ctx, organizationId, p.walletName, accounts, sealed, false, path);
}
}  // namespace

Object createWalletIn(ActivityContext& ctx, const std::string& organizationId,
                      const CreateWalletParameters& p) {
  return createWalletFrom(ctx, organizationId, p, "parameters.wallet");
}

Object createWallet(ActivityContext& ctx, const CreateWalletParameters& p) {
  return createWalletFrom(ctx, ctx.organizationId(), p, "parameters");
}

Object createWalletAccounts(ActivityContext& ctx, const CreateWalletAccountsParameters& p) {
  auto accounts = checkedAccounts(p.accounts, "parameters");
  requireWallet(ctx, p.walletId);
  Object result = json::object();
  result->set("addresses", json::stringArray(addAccounts(ctx, ctx.organizationId(), p.walletId,
                                                         accounts, p.persist.value_or(true))));
  return result;
}

Object updateWallet(ActivityContext& ctx, const UpdateWalletParameters& p) {
  const std::string& walletId = p.walletId;
  requireWallet(ctx, walletId);
  if (const auto& name = p.walletName) {
    if (name->empty())
      throw invalidArgument("invalid field parameters.walletName: must not be empty");
    ctx.db().exec("UPDATE signing_wallets SET name = ?, updated_at_ms = ? WHERE id = ?",
                  {*name, ctx.nowMs(), walletId});
  }
  Object result = json::object();
  result->set("walletId", walletId);
  return result;
}

Object deleteWallets(ActivityContext& ctx, const DeleteWalletsParameters& p) {
  const auto& ids = p.walletIds;
  const bool force = p.deleteWithoutExport.value_or(false);
  if (ids.empty()) throw invalidArgument("invalid field parameters.walletIds: must not be empty");
  for (const auto& id : ids) {
    Row w = requireWallet(ctx, id);
    if (!force && w.i64("exported") == 0)
      throw failedPrecondition("wallet " + id +
                               " has not been exported; export it first or set "
                               "deleteWithoutExport to delete it anyway");
    eraseWallet(ctx, id);
  }
  Object result = json::object();
  result->set("walletIds", json::stringArray(ids));
  return result;
}

Object deleteWalletAccounts(ActivityContext& ctx, const DeleteWalletAccountsParameters& p) {
  const auto& ids = p.walletAccountIds;
  const bool force = p.deleteWithoutExport.value_or(false);
  if (ids.empty())
    throw invalidArgument("invalid field parameters.walletAccountIds: must not be empty");
  for (const auto& id : ids) {
    auto row = ctx.db().queryOne(
        "SELECT a.exported AS account_exported, w.exported AS wallet_exported FROM "
        "signing_wallet_accounts a JOIN signing_wallets w ON "
        "w.id = a.wallet_id WHERE a.organization_id = ? AND a.id = ?",
        {ctx.organizationId(), id});
    if (!row)
      throw notFound("wallet account " + id + " not found in organization " + ctx.organizationId());
    if (!force && row->i64("account_exported") == 0 && row->i64("wallet_exported") == 0)
      throw failedPrecondition("wallet account " + id +
                               " has not been exported; export it first or set "
                               "deleteWithoutExport to delete it anyway");
    ctx.db().exec("DELETE FROM signing_wallet_accounts WHERE id = ?", {id});
    ctx.keyring().erase(accountKeySecretId(id));
  }
  Object result = json::object();
  result->set("walletAccountIds", json::stringArray(ids));
  return result;
}

Object getWallet(RequestContext& ctx, const Object& body) {
  Object out = json::object();
  out->set("wallet", walletJson(requireWallet(ctx, json::requireString(body, "walletId", ""))));
  return out;
}

Object listWallets(RequestContext& ctx, const Object&) {
  json::Array list = json::array();
  for (const auto& r : ctx.db().query(std::string("SELECT ") + kWalletColumns +
                                          " FROM signing_wallets WHERE organization_id = ? ORDER "
                                          "BY created_at_ms, id",
                                      {ctx.organizationId()}))
    list->add(walletJson(r));
  Object out = json::object();
  out->set("wallets", list);
  return out;
}

Object getWalletAccount(RequestContext& ctx, const Object& body) {
  std::string walletId = json::requireString(body, "walletId", "");
  auto address = json::optionalString(body, "address", "");
  auto path = json::optionalString(body, "path", "");
  if (!address && !path) throw invalidArgument("invalid request: give address or path");
  requireWallet(ctx, walletId);
  auto row =
      ctx.db().queryOne(std::string("SELECT ") + kAccountColumns +
                            " FROM signing_wallet_accounts WHERE wallet_id = ? AND " +
                            (address ? "address = ?" : "path = ?") + " ORDER BY created_at_ms, id",
                        {walletId, address ? *address : *path});
  if (!row)
    throw notFound("no account with " + (address ? "address " + *address : "path " + *path) +
                   " in wallet " + walletId);
  Object out = json::object();
  out->set("account", accountJson(*row));
  return out;
}

Object listWalletAccounts(RequestContext& ctx, const Object& body) {
  auto walletId = json::optionalString(body, "walletId", "");
  bool details = json::optionalBool(body, "includeWalletDetails", "", false);
  if (walletId) requireWallet(ctx, *walletId);
  json::Array list = json::array();
  std::map<std::string, Object> wallets;  // one query per wallet, not per account
  for (const auto& r :
       ctx.db().query(std::string("SELECT ") + kAccountColumns +
                          " FROM signing_wallet_accounts WHERE organization_id = ?" +
                          (walletId ? " AND wallet_id = ?" : "") + " ORDER BY created_at_ms, id",
                      walletId ? SqlParams{ctx.organizationId(), *walletId}
                               : SqlParams{ctx.organizationId()})) {
    Object a = accountJson(r);
    if (details) {
      auto [it, fresh] = wallets.try_emplace(r.str("wallet_id"));
      if (fresh) it->second = walletJson(requireWallet(ctx, r.str("wallet_id")));
      a->set("walletDetails", it->second);
    }
    list->add(a);
  }
  Object out = json::object();
  out->set("accounts", list);
  return out;
}

void deleteOrganizationKeys(ActivityContext& ctx, const std::string& organizationId, bool force) {
  auto wallets = ctx.db().query(
      "SELECT id, exported FROM signing_wallets WHERE organization_id = ?", {organizationId});
  auto keys = ctx.db().query(
      "SELECT id, exported FROM signing_private_keys WHERE organization_id = ?", {organizationId});
  if (!force) {
    for (const auto& w : wallets)
      if (w.i64("exported") == 0)
        throw failedPrecondition("organization " + organizationId + " holds wallet " + w.str("id") +
                                 ", which has not been exported; export it or set "
                                 "deleteWithoutExport");
    for (const auto& k : keys)
      if (k.i64("exported") == 0)
        throw failedPrecondition("organization " + organizationId + " holds private key " +
                                 k.str("id") +
                                 ", which has not been exported; export it or set "
                                 "deleteWithoutExport");
  }
  for (const auto& w : wallets) eraseWallet(ctx, w.str("id"));
  for (const auto& k : keys) ctx.keyring().erase(privateKeySecretId(k.str("id")));
  deleteOrganizationSecrets(ctx, organizationId);
  // Its sends stop with it (their keys are gone); what sponsorship it used stays counted in its
  // parent's window.
  ctx.db().exec("DELETE FROM signing_sends WHERE organization_id = ?", {organizationId});
  ctx.db().exec("DELETE FROM signing_gas_configs WHERE organization_id = ?", {organizationId});
  ctx.db().exec("DELETE FROM signing_private_key_addresses WHERE organization_id = ?",
                {organizationId});
  for (const auto& k : keys)
    ctx.db().exec("DELETE FROM signing_private_key_tag_members WHERE private_key_id = ?",
                  {k.str("id")});
  ctx.db().exec("DELETE FROM signing_private_key_tags WHERE organization_id = ?", {organizationId});
  ctx.db().exec("DELETE FROM signing_private_keys WHERE organization_id = ?", {organizationId});
  deleteOrganizationContractInterfaces(ctx.db(), organizationId);
}

}  // namespace signing
