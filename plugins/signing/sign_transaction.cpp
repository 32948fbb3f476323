#include "sign_transaction.hpp"

#include "chains/bitcoin/bitcoin_psbt.hpp"
#include "chains/ethereum/abi.hpp"
#include "chains/ethereum/eth_transaction.hpp"
#include "chains/recoverable_signature.hpp"
#include "chains/solana/solana_idl.hpp"
#include "chains/solana/solana_transaction.hpp"
#include "chains/tempo/tempo_transaction.hpp"
#include "chains/tron/tron_transaction.hpp"
#include "keys/addresses.hpp"
#include "smart_contract_interfaces.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr const char* kField = "parameters.unsignedTransaction";

Bytes transactionBytes(const std::string& text) {
  auto raw = fromHex(text);
  if (!raw || raw->empty())
    throw invalidArgument(
        "invalid field parameters.unsignedTransaction: not hex (with or without 0x)");
  return *raw;
}

// `raw` parsed by `parse` once per activity: the policy facts parse it first and the handler
// signs their parse (ctx.requestCache()). Keyed by the bytes, so two transactions never share one.
template <class Tx>
const Tx& parsed(RequestContext& ctx, Tx (*parse)(const Bytes&, const std::string&),
                 const char* type, const Bytes& raw) {
  return ctx.requestCache().get<Tx>(std::string("signing.tx:") + type + ":" + toString(raw),
                                    [&] { return parse(raw, kField); });
}

// The signer's Ethereum address, lowercase, from the key's stored public key.
std::optional<std::string> ethereumAddressOf(const SignWithTarget& t) {
  auto pub = fromHex(t.publicKeyHex);
  if (t.curve != crypto::Curve::kSecp256k1 || !pub) return std::nullopt;
  return asciiLower(addressFor("ADDRESS_FORMAT_ETHEREUM", t.curve, *pub));
}

// function_name, function_signature and contract_call_args, when `to` has an ABI that
// decodes the calldata.
void addDecodedCall(RequestContext& ctx, const EthTransaction& tx, Object& fact) {
  const Bytes& to = tx.field("to");
  if (to.empty()) return;
  auto abiJson = ethereumAbiFor(ctx, "0x" + toHex(to));
  if (!abiJson) return;
  auto call = decodeCall(parseAbi(*abiJson, "smart contract interface"), tx.field("data"));
  if (!call) return;
  fact->set("function_name", call->name);
  fact->set("function_signature", call->selectorHex);
  fact->set("contract_call_args", call->args);
}

// parsed_instruction_data on each instruction whose program has an IDL that decodes its data
// (each program's IDL read and parsed once per transaction).
void addParsedInstructions(RequestContext& ctx, const SolanaTransaction& tx, Object& fact) {
  auto instructions = fact->getArray("instructions");
  std::map<std::string, std::optional<SolanaIdl>> idls;
  for (size_t i = 0; i < tx.instructions.size(); ++i) {
    Object ins = instructions->getObject(static_cast<unsigned>(i));
    std::string program = ins->getValue<std::string>("program_key");
    auto [it, fresh] = idls.try_emplace(program);
    if (fresh)
      if (auto text = solanaIdlFor(ctx, program))
        it->second = parseSolanaIdl(*text, "smart contract interface of " + program);
    if (!it->second) continue;
    std::vector<std::string> accounts;
    auto list = ins->getArray("accounts");
    for (size_t a = 0; a < list->size(); ++a)
      accounts.push_back(
          list->getObject(static_cast<unsigned>(a))->getValue<std::string>("account_key"));
    if (Object parsed = decodeSolanaInstruction(*it->second, tx.instructions[i].data, accounts))
      ins->set("parsed_instruction_data", parsed);
  }
}

// signWith's key, which must be of `curve` (and not a Taproot key unless `taprootToo`);
// FailedPrecondition naming the key's curve and what `chain` transactions are signed with.
SigningKey keyFor(ActivityContext& ctx, const std::string& signWith, crypto::Curve curve,
                  bool taprootToo, const std::string& chain, const std::string& scheme) {
  SigningKey key = resolveSignWith(ctx, signWith);
  bool taprootRefused = key.curve == curve && key.taproot && !taprootToo;
  if (key.curve != curve || taprootRefused)
    throw failedPrecondition("signWith \"" + signWith + "\" is a " +
                             (taprootRefused ? std::string("Taproot") : curveToApi(key.curve)) +
                             " key; " + chain + " transactions are signed with " + scheme);
  return key;
}
SigningKey secp256k1Key(ActivityContext& ctx, const std::string& signWith, const char* chain) {
  return keyFor(ctx, signWith, crypto::Curve::kSecp256k1, false, chain, "secp256k1 ECDSA");
}

Bytes signEthereum(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  const auto& tx = parsed(ctx, parseEthTransaction, "eth", raw);
  SigningKey key = secp256k1Key(ctx, signWith, "Ethereum");
  return ethSignedTransaction(
      tx, crypto::signSecp256k1Recoverable(key.privateKey, ethSigningDigest(tx)));
}

Bytes signSolana(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  const auto& tx = parsed(ctx, parseSolanaTransaction, "solana", raw);
  SigningKey key = keyFor(ctx, signWith, crypto::Curve::kEd25519, false, "Solana", "Ed25519");
  Bytes message = tx.message();
  return solanaSignedTransaction(
      tx, crypto::publicKeyFromPrivate(key.curve, key.privateKey),
      crypto::signEd25519(key.privateKey, message.data(), message.size()));
}

Bytes signTempo(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  const auto& tx = parsed(ctx, parseTempoTransaction, "tempo", raw);
  SigningKey key = secp256k1Key(ctx, signWith, "Tempo");
  return tempoSignedTransaction(
      tx, crypto::signSecp256k1Recoverable(key.privateKey, tempoSigningDigest(tx)));
}

// r ‖ s ‖ v with v = 27 + recovery id, over sha256 of the raw data.
Bytes signTron(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  const auto& tx = parsed(ctx, parseTronTransaction, "tron", raw);
  SigningKey key = secp256k1Key(ctx, signWith, "Tron");
  return tronSignedTransaction(
      tx, rsv27(crypto::signSecp256k1Recoverable(key.privateKey, crypto::sha256(raw))));
}

// Every input the key spends (P2PKH, P2WPKH, P2TR key path) signed; the PSBT not finalised.
Bytes signBitcoin(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  Psbt psbt = parsed(ctx, parsePsbt, "bitcoin", raw);  // a copy: signing fills it in
  SigningKey key = keyFor(ctx, signWith, crypto::Curve::kSecp256k1, true, "Bitcoin", "secp256k1");
  signPsbt(psbt, key.privateKey, signWith, kField);
  return serializePsbt(psbt);
}

// Each chain's tx fact (the value of `<keyword>.tx`); nullptr when there is none to give.
Object solanaFact(RequestContext& ctx, const SignWithTarget&, const Bytes& raw) {
  const auto& tx = parsed(ctx, parseSolanaTransaction, "solana", raw);
  Object fact = solanaTxFact(tx);
  addParsedInstructions(ctx, tx, fact);
  return fact;
}
Object tronFact(RequestContext& ctx, const SignWithTarget&, const Bytes& raw) {
  return tronTxFact(parsed(ctx, parseTronTransaction, "tron", raw));
}
Object bitcoinFact(RequestContext& ctx, const SignWithTarget& signer, const Bytes& raw) {
  return bitcoinTxFact(parsed(ctx, parsePsbt, "bitcoin", raw), signer.addressFormat);
}
Object tempoFact(RequestContext& ctx, const SignWithTarget& signer, const Bytes& raw) {
  auto from = ethereumAddressOf(signer);
  return from ? tempoTxFact(parsed(ctx, parseTempoTransaction, "tempo", raw), *from) : nullptr;
}
Object ethereumFact(RequestContext& ctx, const SignWithTarget& signer, const Bytes& raw) {
  auto from = ethereumAddressOf(signer);
  if (!from) return nullptr;
  const auto& tx = parsed(ctx, parseEthTransaction, "eth", raw);
  Object fact = ethTxFact(tx, *from);
  addDecodedCall(ctx, tx, fact);
  return fact;
}

struct Chain {
  const char* type;     // TRANSACTION_TYPE_*
  const char* keyword;  // the policy keyword its fact lives under, as <keyword>.tx
  Bytes (*sign)(ActivityContext&, const std::string& signWith, const Bytes& raw);
  Object (*fact)(RequestContext&, const SignWithTarget&, const Bytes& raw);
};
// clang-format off
const Chain kChains[] = {
    {"TRANSACTION_TYPE_ETHEREUM", "eth",     signEthereum, ethereumFact},
    {"TRANSACTION_TYPE_SOLANA",   "solana",  signSolana,   solanaFact},
    {"TRANSACTION_TYPE_TRON",     "tron",    signTron,     tronFact},
    {"TRANSACTION_TYPE_TEMPO",    "tempo",   signTempo,    tempoFact},
    {"TRANSACTION_TYPE_BITCOIN",  "bitcoin", signBitcoin,  bitcoinFact},
};
// clang-format on

const Chain* chainOf(const std::string& type) {
  for (const auto& c : kChains)
    if (type == c.type) return &c;
  return nullptr;
}
}  // namespace

const Shape<SignTransactionParameters> kSignTransaction = {
    field("signWith", &SignTransactionParameters::signWith),
    field("unsignedTransaction", &SignTransactionParameters::unsignedTransaction),
    field("type", &SignTransactionParameters::type)};

Object signTransaction(ActivityContext& ctx, const SignTransactionParameters& p) {
  const std::string& type = p.type;
  const Chain* chain = chainOf(type);
  if (!chain)
    throw invalidArgument(
        "invalid field parameters.type: \"" + type +
        "\" is not a TRANSACTION_TYPE_* (ETHEREUM, SOLANA, TRON, TEMPO or BITCOIN)");
  Bytes raw = transactionBytes(p.unsignedTransaction);
  Object r = json::object();
  r->set("signedTransaction", toHex(chain->sign(ctx, p.signWith, raw)));
  return r;
}

Object transactionFacts(RequestContext& ctx, const SignWithTarget& signer, const Object& p) {
  Object facts = json::object();
  const Chain* chain = chainOf(p->optValue<std::string>("type", ""));
  if (!chain) return facts;
  Object fact = chain->fact(
      ctx, signer, transactionBytes(json::requireString(p, "unsignedTransaction", "parameters")));
  if (!fact) return facts;
  Object tx = json::object();
  tx->set("tx", fact);
  facts->set(chain->keyword, tx);
  return facts;
}

}  // namespace signing
