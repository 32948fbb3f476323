#include "smart_contract_interfaces.hpp"

#include "chains/ethereum/abi.hpp"
#include "chains/solana/solana_idl.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr const char* kEthereum = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM";
constexpr const char* kSolana = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA";
constexpr const char* kColumns =
    "id, address, type, interface_json, label, notes, created_at_ms, updated_at_ms";

// The address as stored for lookups: Ethereum's without its checksum case, Solana's as given
// (base58 is case-sensitive).
std::string addressKey(const std::string& type, const std::string& address) {
  const std::string field = "parameters.smartContractAddress";
  if (type == kEthereum) {
    auto bytes = fromHex(address);
    if (address.rfind("0x", 0) != 0 || !bytes || bytes->size() != 20)
      throw invalidArgument("invalid field " + field + ": \"" + address +
                            "\" is not a 0x-prefixed 20-byte Ethereum address");
    return asciiLower(address);
  }
  auto decoded = base58Decode(address);
  if (!decoded || decoded->size() != 32)
    throw invalidArgument("invalid field " + field + ": \"" + address +
                          "\" is not a base58 32-byte Solana program id");
  return address;
}

Object interfaceJson(const std::string& org, const Row& r) {
  Object o = json::object();
  o->set("organizationId", org);
  o->set("smartContractInterfaceId", r.str("id"));
  o->set("smartContractAddress", r.str("address"));
  o->set("type", r.str("type"));
  o->set("smartContractInterface", r.str("interface_json"));
  o->set("label", r.str("label"));
  o->set("notes", r.str("notes"));
  o->set("createdAt", json::timestamp(r.i64("created_at_ms")));
  o->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
  return o;
}
}  // namespace

using PCreate = CreateSmartContractInterfaceParameters;
const Shape<PCreate> kCreateSmartContractInterface = {
    field("smartContractAddress", &PCreate::smartContractAddress),
    field("smartContractInterface", &PCreate::smartContractInterface),
    field("type", &PCreate::type), field("label", &PCreate::label),
    field("notes", &PCreate::notes)};
const Shape<DeleteSmartContractInterfaceParameters> kDeleteSmartContractInterface = {field(
    "smartContractInterfaceId", &DeleteSmartContractInterfaceParameters::smartContractInterfaceId)};

Object createSmartContractInterface(ActivityContext& ctx, const PCreate& p) {
  const std::string& address = p.smartContractAddress;
  const std::string& text = p.smartContractInterface;
  const std::string& type = p.type;
  const std::string& label = p.label;
  const std::string notes = p.notes.value_or("");
  const std::string field = "parameters.smartContractInterface";
  if (type != kEthereum && type != kSolana)
    throw invalidArgument("invalid field parameters.type: \"" + type + "\" (expected " + kEthereum +
                          " or " + kSolana + ")");
  if (label.empty()) throw invalidArgument("invalid field parameters.label: must not be empty");
  if (text.size() > kMaxContractInterfaceBytes)
    throw invalidArgument("invalid field " + field + ": " + std::to_string(text.size()) +
                          " bytes, more than the " + std::to_string(kMaxContractInterfaceBytes) +
                          " allowed");
  std::string key = addressKey(type, address);
  if (type == kEthereum)
    parseAbi(text, field);
  else
    parseSolanaIdl(text, field);
  Db& db = ctx.db();
  const std::string& org = ctx.organizationId();
  if (auto other = db.queryOne(
          "SELECT id FROM signing_contract_interfaces WHERE organization_id = ? AND type = ? AND "
          "address_key = ?",
          {org, type, key}))
    throw Error(Code::kAlreadyExists, "contract " + address + " already has interface " +
                                          other->str("id") + " in organization " + org +
                                          "; delete it first");
  if (db.queryOne("SELECT COUNT(*) AS n FROM signing_contract_interfaces WHERE organization_id = ?",
                  {org})
          ->i64("n") >= static_cast<int64_t>(kMaxContractInterfacesPerOrganization))
    throw resourceExhausted("organization " + org + " already has " +
                            std::to_string(kMaxContractInterfacesPerOrganization) +
                            " smart contract interfaces, the limit");
  std::string id = ctx.newId();
  db.exec(
      "INSERT INTO signing_contract_interfaces (id, organization_id, address, address_key, type, "
      "interface_json, label, notes, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?)",
      {id, org, address, key, type, text, label, notes, ctx.nowMs(), ctx.nowMs()});
  Object r = json::object();
  r->set("smartContractInterfaceId", id);
  return r;
}

Object deleteSmartContractInterface(ActivityContext& ctx,
                                    const DeleteSmartContractInterfaceParameters& p) {
  const std::string& id = p.smartContractInterfaceId;
  if (!ctx.db().queryOne(
          "SELECT 1 FROM signing_contract_interfaces WHERE organization_id = ? AND id = ?",
          {ctx.organizationId(), id}))
    throw notFound("smart contract interface " + id + " not found in organization " +
                   ctx.organizationId());
  ctx.db().exec("DELETE FROM signing_contract_interfaces WHERE id = ?", {id});
  Object r = json::object();
  r->set("smartContractInterfaceId", id);
  return r;
}

Object getSmartContractInterface(RequestContext& ctx, const Object& body) {
  std::string id = json::requireString(body, "smartContractInterfaceId", "");
  auto row = ctx.db().queryOne(std::string("SELECT ") + kColumns +
                                   " FROM signing_contract_interfaces WHERE organization_id = ? "
                                   "AND id = ?",
                               {ctx.organizationId(), id});
  if (!row)
    throw notFound("smart contract interface " + id + " not found in organization " +
                   ctx.organizationId());
  Object out = json::object();
  out->set("smartContractInterface", interfaceJson(ctx.organizationId(), *row));
  return out;
}

Object listSmartContractInterfaces(RequestContext& ctx, const Object&) {
  json::Array list = json::array();
  for (const auto& r : ctx.db().query(std::string("SELECT ") + kColumns +
                                          " FROM signing_contract_interfaces WHERE "
                                          "organization_id = ? ORDER BY created_at_ms, id",
                                      {ctx.organizationId()}))
    list->add(interfaceJson(ctx.organizationId(), r));
  Object out = json::object();
  out->set("smartContractInterfaces", list);
  return out;
}

std::optional<std::string> ethereumAbiFor(RequestContext& ctx, const std::string& address) {
  auto row = ctx.db().queryOne(
      "SELECT interface_json FROM signing_contract_interfaces WHERE organization_id = ? AND type "
      "= ? AND address_key = ?",
      {ctx.organizationId(), kEthereum, asciiLower(address)});
  if (!row) return std::nullopt;
  return row->str("interface_json");
}

std::optional<std::string> solanaIdlFor(RequestContext& ctx, const std::string& programId) {
  auto row = ctx.db().queryOne(
      "SELECT interface_json FROM signing_contract_interfaces WHERE organization_id = ? AND type "
      "= ? AND address_key = ?",
      {ctx.organizationId(), kSolana, programId});
  if (!row) return std::nullopt;
  return row->str("interface_json");
}

void deleteOrganizationContractInterfaces(Db& db, const std::string& organizationId) {
  db.exec("DELETE FROM signing_contract_interfaces WHERE organization_id = ?", {organizationId});
}

}  // namespace signing
