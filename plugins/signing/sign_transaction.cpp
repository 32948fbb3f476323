#include "sign_transaction.hpp"

#include "abi.hpp"
#include "addresses.hpp"
#include "bitcoin_psbt.hpp"
#include "contract_interfaces.hpp"
#include "eth_transaction.hpp"
#include "recoverable_signature.hpp"
#include "solana_transaction.hpp"
#include "tempo_transaction.hpp"
#include "tron_transaction.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr const char* kEthereum = "TRANSACTION_TYPE_ETHEREUM";
constexpr const char* kSolana = "TRANSACTION_TYPE_SOLANA";
constexpr const char* kTron = "TRANSACTION_TYPE_TRON";
constexpr const char* kTempo = "TRANSACTION_TYPE_TEMPO";
constexpr const char* kBitcoin = "TRANSACTION_TYPE_BITCOIN";
constexpr const char* kField = "parameters.unsignedTransaction";

Bytes transactionBytes(const Object& p) {
  std::string text = json::requireString(p, "unsignedTransaction", "parameters");
  auto raw = fromHex(text);
  if (!raw || raw->empty())
    throw invalidArgument(
        "invalid field parameters.unsignedTransaction: not hex (with or without 0x)");
  return *raw;
}

std::string requireType(const Object& p) {
  std::string type = json::requireString(p, "type", "parameters");
  for (const char* known : {kEthereum, kSolana, kTron, kTempo, kBitcoin})
    if (type == known) return type;
  throw invalidArgument(
      "invalid field parameters.type: \"" + type +
      "\" is not a TRANSACTION_TYPE_* (ETHEREUM, SOLANA, TRON, TEMPO or BITCOIN)");
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

// signWith's key, which must be a plain (not Taproot) secp256k1 key.
SigningKey secp256k1Key(ActivityContext& ctx, const std::string& signWith, const char* chain) {
  SigningKey key = resolveSignWith(ctx, signWith);
  if (key.curve != crypto::Curve::kSecp256k1 || key.taproot)
    throw failedPrecondition("signWith \"" + signWith + "\" is a " +
                             (key.taproot ? std::string("Taproot") : curveToApi(key.curve)) +
                             " key; " + chain + " transactions are signed with secp256k1 ECDSA");
  return key;
}

Bytes signEthereum(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  EthTransaction tx = parseEthTransaction(raw, kField);
  SigningKey key = secp256k1Key(ctx, signWith, "Ethereum");
  return ethSignedTransaction(
      tx, crypto::signSecp256k1Recoverable(key.privateKey, ethSigningDigest(tx)));
}

Bytes signSolana(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  SolanaTransaction tx = parseSolanaTransaction(raw, kField);
  SigningKey key = resolveSignWith(ctx, signWith);
  if (key.curve != crypto::Curve::kEd25519)
    throw failedPrecondition("signWith \"" + signWith + "\" is a " + curveToApi(key.curve) +
                             " key; Solana transactions are signed with Ed25519");
  Bytes message = tx.message();
  return solanaSignedTransaction(
      tx, crypto::publicKeyFromPrivate(key.curve, key.privateKey),
      crypto::signEd25519(key.privateKey, message.data(), message.size()));
}

Bytes signTempo(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  TempoTransaction tx = parseTempoTransaction(raw, kField);
  SigningKey key = secp256k1Key(ctx, signWith, "Tempo");
  return tempoSignedTransaction(
      tx, crypto::signSecp256k1Recoverable(key.privateKey, tempoSigningDigest(tx)));
}

// r ‖ s ‖ v with v = 27 + recovery id, over sha256 of the raw data.
Bytes signTron(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  TronTransaction tx = parseTronTransaction(raw, kField);
  SigningKey key = secp256k1Key(ctx, signWith, "Tron");
  return tronSignedTransaction(
      tx, rsv27(crypto::signSecp256k1Recoverable(key.privateKey, crypto::sha256(raw))));
}

// Every input the key spends (P2PKH, P2WPKH, P2TR key path) signed; the PSBT not finalised.
Bytes signBitcoin(ActivityContext& ctx, const std::string& signWith, const Bytes& raw) {
  Psbt psbt = parsePsbt(raw, kField);
  SigningKey key = resolveSignWith(ctx, signWith);
  if (key.curve != crypto::Curve::kSecp256k1)
    throw failedPrecondition("signWith \"" + signWith + "\" is a " + curveToApi(key.curve) +
                             " key; Bitcoin transactions are signed with secp256k1");
  signPsbt(psbt, key.privateKey, signWith, kField);
  return serializePsbt(psbt);
}

using Signer = Bytes (*)(ActivityContext&, const std::string&, const Bytes&);
Signer signerFor(const std::string& type) {
  if (type == kEthereum) return signEthereum;
  if (type == kSolana) return signSolana;
  if (type == kTempo) return signTempo;
  if (type == kBitcoin) return signBitcoin;
  return signTron;
}
}  // namespace

Object signTransaction(ActivityContext& ctx, const Object& p) {
  std::string signWith = json::requireString(p, "signWith", "parameters");
  std::string type = requireType(p);
  Bytes raw = transactionBytes(p);
  Object r = json::object();
  r->set("signedTransaction", toHex(signerFor(type)(ctx, signWith, raw)));
  return r;
}

Object transactionFacts(RequestContext& ctx, const SignWithTarget& signer, const Object& p) {
  Object facts = json::object();
  std::string type = p->optValue<std::string>("type", "");
  Object chain = json::object();
  if (type == kSolana) {
    chain->set("tx", solanaTxFact(parseSolanaTransaction(transactionBytes(p), kField)));
    facts->set("solana", chain);
    return facts;
  }
  if (type == kBitcoin) {
    chain->set("tx", bitcoinTxFact(parsePsbt(transactionBytes(p), kField), signer.addressFormat));
    facts->set("bitcoin", chain);
    return facts;
  }
  if (type == kTron) {
    chain->set("tx", tronTxFact(parseTronTransaction(transactionBytes(p), kField)));
    facts->set("tron", chain);
    return facts;
  }
  if (type != kEthereum && type != kTempo) return facts;
  auto from = ethereumAddressOf(signer);
  if (!from) return facts;
  if (type == kTempo) {
    chain->set("tx", tempoTxFact(parseTempoTransaction(transactionBytes(p), kField), *from));
    facts->set("tempo", chain);
    return facts;
  }
  EthTransaction tx = parseEthTransaction(transactionBytes(p), kField);
  Object fact = ethTxFact(tx, *from);
  addDecodedCall(ctx, tx, fact);
  chain->set("tx", fact);
  facts->set("eth", chain);
  return facts;
}

}  // namespace signing
