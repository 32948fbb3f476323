#include "chains/bitcoin/bitcoin_psbt.hpp"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <set>

#include "keys/addresses.hpp"
#include "signet/bech32.hpp"
#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using Integer = boost::multiprecision::cpp_int;

namespace {
const Bytes kMagic{'p', 's', 'b', 't', 0xff};
enum InputKey : uint8_t {
  kNonWitnessUtxo = 0x00,
  kWitnessUtxo = 0x01,
  kPartialSig = 0x02,
  kSighashType = 0x03,
  kRedeemScript = 0x04,
  kWitnessScript = 0x05,
  kFinalScriptSig = 0x07,
  kFinalWitness = 0x08,
  kTapKeySig = 0x13,
  kTapLeafScript = 0x15,
  kTapMerkleRoot = 0x18,
};

PsbtMap readMap(const Bytes& d, size_t& at, const std::string& what) {
  PsbtMap map;
  std::set<Bytes> keys;
  for (;;) {
    uint64_t keyLength = readCompactSize(d, at, what);
    if (keyLength == 0) return map;
    if (keyLength > d.size() - at) throw invalidArgument(what + ": a key runs past the end");
    Bytes key(d.begin() + static_cast<long>(at), d.begin() + static_cast<long>(at + keyLength));
    at += keyLength;
    uint64_t valueLength = readCompactSize(d, at, what);
    if (valueLength > d.size() - at) throw invalidArgument(what + ": a value runs past the end");
    Bytes value(d.begin() + static_cast<long>(at), d.begin() + static_cast<long>(at + valueLength));
    at += valueLength;
    if (!keys.insert(key).second)
      throw invalidArgument(what + ": key " + toHex(key) + " appears twice");
    map.entries.emplace_back(std::move(key), std::move(value));
  }
}

void writeMap(Bytes& out, const PsbtMap& map) {
  for (const auto& [k, v] : map.entries) {
    appendCompactSize(out, k.size());
    out.insert(out.end(), k.begin(), k.end());
    appendCompactSize(out, v.size());
    out.insert(out.end(), v.begin(), v.end());
  }
  out.push_back(0x00);
}

BtcOutput parseWitnessUtxo(const Bytes& v, const std::string& what) {
  size_t at = 0;
  if (v.size() < 9) throw invalidArgument(what + ": witness_utxo is too short");
  BtcOutput o;
  for (int i = 0; i < 8; ++i)
    o.value |= static_cast<uint64_t>(v[static_cast<size_t>(i)]) << (8 * i);
  at = 8;
  uint64_t n = readCompactSize(v, at, what);
  if (n != v.size() - at) throw invalidArgument(what + ": witness_utxo's script length is wrong");
  o.script.assign(v.begin() + static_cast<long>(at), v.end());
  return o;
}

enum class ScriptType { kP2pkh, kP2sh, kP2wpkh, kP2wsh, kP2tr, kOpReturn, kUnknown };
ScriptType typeOf(const Bytes& s) {
  if (s.size() == 25 && s[0] == 0x76 && s[1] == 0xa9 && s[2] == 0x14 && s[23] == 0x88 &&
      s[24] == 0xac)
    return ScriptType::kP2pkh;
  if (s.size() == 23 && s[0] == 0xa9 && s[1] == 0x14 && s[22] == 0x87) return ScriptType::kP2sh;
  if (s.size() == 22 && s[0] == 0x00 && s[1] == 0x14) return ScriptType::kP2wpkh;
  if (s.size() == 34 && s[0] == 0x00 && s[1] == 0x20) return ScriptType::kP2wsh;
  if (s.size() == 34 && s[0] == 0x51 && s[1] == 0x20) return ScriptType::kP2tr;
  if (!s.empty() && s[0] == 0x6a) return ScriptType::kOpReturn;
  return ScriptType::kUnknown;
}
const char* typeName(ScriptType t) {
  switch (t) {
    case ScriptType::kP2pkh:
      return "P2PKH";
    case ScriptType::kP2sh:
      return "P2SH";
    case ScriptType::kP2wpkh:
      return "P2WPKH";
    case ScriptType::kP2wsh:
      return "P2WSH";
    case ScriptType::kP2tr:
      return "P2TR";
    case ScriptType::kOpReturn:
      return "OP_RETURN";
    default:
      return "UNKNOWN";
  }
}
Bytes slice(const Bytes& b, size_t from, size_t to) {
  return Bytes(b.begin() + static_cast<long>(from), b.begin() + static_cast<long>(to));
}
bool contains(const Bytes& haystack, const Bytes& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}
}  // namespace

const Bytes* PsbtMap::find(uint8_t keyType) const {
  for (const auto& [k, v] : entries)
    if (k.size() == 1 && k[0] == keyType) return &v;
  return nullptr;
}

Psbt parsePsbt(const Bytes& raw, const std::string& field) {
  if (raw.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), raw.begin()))
    throw invalidArgument("invalid field " + field + ": not a PSBT (it starts with \"psbt\\xff\")");
  std::string what = "invalid field " + field;
  size_t at = kMagic.size();
  Psbt p;
  p.global = readMap(raw, at, what + " (global map)");
  for (const auto& [k, v] : p.global.entries) {
    if (k[0] == 0xfb && !(v.size() == 4 && v == Bytes{0, 0, 0, 0}))
      throw invalidArgument(what + ": only PSBT version 0 is supported");
    if (k[0] >= 0x02 && k[0] <= 0x06)
      throw invalidArgument(what + ": PSBT version 2 fields are not supported");
  }
  const Bytes* unsignedTx = p.global.find(0x00);
  if (!unsignedTx) throw invalidArgument(what + ": the PSBT has no unsigned transaction");
  p.tx = parseBtcTx(*unsignedTx, what + " (unsigned transaction)");
  if (p.tx.hadWitness || std::any_of(p.tx.inputs.begin(), p.tx.inputs.end(),
                                     [](const BtcInput& i) { return !i.scriptSig.empty(); }))
    throw invalidArgument(what + ": the unsigned transaction carries signatures");
  for (size_t i = 0; i < p.tx.inputs.size(); ++i)
    p.inputs.push_back(readMap(raw, at, what + " (input " + std::to_string(i) + ")"));
  for (size_t i = 0; i < p.tx.outputs.size(); ++i)
    p.outputs.push_back(readMap(raw, at, what + " (output " + std::to_string(i) + ")"));
  if (at != raw.size()) throw invalidArgument(what + ": trailing bytes after the PSBT");

  for (size_t i = 0; i < p.tx.inputs.size(); ++i) {
    std::string in = what + " (input " + std::to_string(i) + ")";
    const BtcInput& txIn = p.tx.inputs[i];
    std::optional<BtcOutput> spent;
    if (const Bytes* full = p.inputs[i].find(kNonWitnessUtxo)) {
      BtcTx prev = parseBtcTx(*full, in + " non_witness_utxo");
      auto id = txidOf(prev);
      if (!std::equal(id.begin(), id.end(), txIn.prevTxid.begin()))
        throw invalidArgument(in + ": non_witness_utxo is not the transaction it spends");
      if (txIn.vout >= prev.outputs.size())
        throw invalidArgument(in + ": non_witness_utxo has no output " + std::to_string(txIn.vout));
      spent = prev.outputs[txIn.vout];
    }
    if (const Bytes* w = p.inputs[i].find(kWitnessUtxo)) {
      BtcOutput o = parseWitnessUtxo(*w, in);
      if (spent && (spent->value != o.value || spent->script != o.script))
        throw invalidArgument(in + ": witness_utxo and non_witness_utxo disagree");
      spent = o;
    }
    p.spent.push_back(spent);
  }
  return p;
}

Bytes serializePsbt(const Psbt& p) {
  Bytes out = kMagic;
  writeMap(out, p.global);
  for (const auto& m : p.inputs) writeMap(out, m);
  for (const auto& m : p.outputs) writeMap(out, m);
  return out;
}

void signPsbt(Psbt& p, const crypto::SecretBytes& key, const std::string& signWith,
              const std::string& field) {
  Bytes pub = crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, key);
  Bytes keyHash = hash160Of(pub);
  Bytes outputKey = *crypto::taprootOutputKey(pub);
  std::string what = "invalid field " + field;
  size_t signedInputs = 0;
  for (size_t i = 0; i < p.tx.inputs.size(); ++i) {
    std::string in = what + " (input " + std::to_string(i) + ")";
    PsbtMap& map = p.inputs[i];
    if (!p.spent[i]) continue;  // nothing says what it spends: not provably ours
    const Bytes& script = p.spent[i]->script;
    ScriptType type = typeOf(script);
    bool ours = (type == ScriptType::kP2pkh && slice(script, 3, 23) == keyHash) ||
                (type == ScriptType::kP2wpkh && slice(script, 2, 22) == keyHash) ||
                (type == ScriptType::kP2tr && slice(script, 2, 34) == outputKey);
    if (type == ScriptType::kP2sh || type == ScriptType::kP2wsh) {
      const Bytes* inner = map.find(type == ScriptType::kP2sh ? kRedeemScript : kWitnessScript);
      if (inner && (contains(*inner, pub) || contains(*inner, keyHash)))
        throw Error(Code::kUnimplemented,
                    in + ": " + typeName(type) +
                        " inputs are not signed by this gateway (their scripts are not settled "
                        "in its reference); P2PKH, P2WPKH and P2TR key path are");
    }
    if (!ours) continue;
    if (map.find(kFinalScriptSig) || map.find(kFinalWitness))
      throw invalidArgument(in + ": the input is already finalised");
    const Bytes* sighash = map.find(kSighashType);
    uint32_t wanted = type == ScriptType::kP2tr ? 0 : 1;
    if (sighash && !(sighash->size() == 4 && (*sighash)[0] == wanted && (*sighash)[1] == 0 &&
                     (*sighash)[2] == 0 && (*sighash)[3] == 0))
      throw invalidArgument(in + ": sighash type " + toHex(*sighash) + " is not " +
                            (wanted ? "SIGHASH_ALL" : "SIGHASH_DEFAULT") +
                            ", the only one signed here (a policy judges the whole transaction)");
    if (type == ScriptType::kP2tr) {
      if (map.find(kTapLeafScript) || map.find(kTapMerkleRoot))
        throw invalidArgument(in + ": taproot script paths are not signed here, only the key path");
      if (!map.find(kWitnessUtxo)) throw invalidArgument(in + ": a P2TR input needs witness_utxo");
      if (map.find(kTapKeySig)) throw invalidArgument(in + ": already signed by this key");
      std::vector<BtcOutput> spent;
      for (size_t j = 0; j < p.spent.size(); ++j) {
        if (!p.spent[j])
          throw invalidArgument(what + " (input " + std::to_string(j) +
                                "): a taproot signature commits to every input's amount and "
                                "script, and this input has no utxo");
        spent.push_back(*p.spent[j]);
      }
      Bytes sig = crypto::signTaprootKeyPath(key, taprootKeyPathSighash(p.tx, i, spent));
      map.entries.emplace_back(Bytes{kTapKeySig}, sig);
    } else {
      bool legacy = type == ScriptType::kP2pkh;
      if (legacy && !map.find(kNonWitnessUtxo))
        throw invalidArgument(in + ": a P2PKH input needs non_witness_utxo");
      if (!legacy && !map.find(kWitnessUtxo))
        throw invalidArgument(in + ": a P2WPKH input needs witness_utxo");
      Bytes sigKey{kPartialSig};
      sigKey.insert(sigKey.end(), pub.begin(), pub.end());
      if (std::any_of(map.entries.begin(), map.entries.end(),
                      [&](const auto& e) { return e.first == sigKey; }))
        throw invalidArgument(in + ": already signed by this key");
      Bytes scriptCode{0x76, 0xa9, 0x14};
      scriptCode.insert(scriptCode.end(), keyHash.begin(), keyHash.end());
      scriptCode.insert(scriptCode.end(), {0x88, 0xac});
      auto digest = legacy ? legacySighashAll(p.tx, i, scriptCode)
                           : bip143SighashAll(p.tx, i, scriptCode, p.spent[i]->value);
      Bytes der =
          crypto::encodeDerSignature(crypto::signEcdsa(crypto::Curve::kSecp256k1, key, digest));
      der.push_back(0x01);  // SIGHASH_ALL
      map.entries.emplace_back(sigKey, der);
    }
    ++signedInputs;
  }
  if (signedInputs == 0)
    throw failedPrecondition("signWith \"" + signWith +
                             "\" can spend none of the PSBT's inputs (P2PKH, P2WPKH or P2TR key "
                             "path with their utxo)");
}

json::Object bitcoinTxFact(const Psbt& p, const std::string& addressFormat) {
  // Mainnet when signWith is no Bitcoin account (a private key, another chain's account).
  auto net = bitcoinNetwork(addressFormat);
  if (!net) net = bitcoinNetwork("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH");
  json::Object fact = json::object();
  fact->set("version", intFact(std::to_string(p.tx.version)));
  json::Array inputs = json::array();
  for (const auto& in : p.tx.inputs) {
    json::Object o = json::object();
    Bytes displayed(in.prevTxid.rbegin(), in.prevTxid.rend());
    o->set("tx_id", toHex(displayed));
    o->set("vout", intFact(std::to_string(in.vout)));
    o->set("sequence", intFact(std::to_string(in.sequence)));
    inputs->add(o);
  }
  fact->set("inputs", inputs);
  json::Array outputs = json::array();
  for (const auto& out : p.tx.outputs) {
    json::Object o = json::object();
    ScriptType type = typeOf(out.script);
    std::string address;
    const Bytes& s = out.script;
    if (type == ScriptType::kP2pkh) {
      Bytes payload{net->p2pkh};
      Bytes h = slice(s, 3, 23);
      payload.insert(payload.end(), h.begin(), h.end());
      address = base58CheckEncode(payload);
    } else if (type == ScriptType::kP2sh) {
      Bytes payload{net->p2sh};
      Bytes h = slice(s, 2, 22);
      payload.insert(payload.end(), h.begin(), h.end());
      address = base58CheckEncode(payload);
    } else if (type == ScriptType::kP2wpkh || type == ScriptType::kP2wsh) {
      address = bech32::segwitAddress(net->hrp, 0, slice(s, 2, s.size()));
    } else if (type == ScriptType::kP2tr) {
      address = bech32::segwitAddress(net->hrp, 1, slice(s, 2, 34));
    }
    o->set("value", intFact(std::to_string(out.value)));
    o->set("script_pubkey", toHex(s));
    o->set("address", address);
    o->set("address_type", std::string(typeName(type)));
    outputs->add(o);
  }
  fact->set("outputs", outputs);
  json::Object locktime = json::object();
  locktime->set("amount", intFact(std::to_string(p.tx.locktime)));
  locktime->set("type", std::string(p.tx.locktime < 500000000 ? "BLOCK_HEIGHT" : "TIMESTAMP"));
  fact->set("locktime", locktime);
  bool known = std::all_of(p.spent.begin(), p.spent.end(), [](const auto& s) { return !!s; });
  if (known) {
    // Arbitrary precision and signed: hostile values cannot wrap, and a PSBT spending more than
    // it has shows a negative fee rather than a huge one.
    Integer fee = 0;
    for (const auto& s : p.spent) fee += s->value;
    for (const auto& out : p.tx.outputs) fee -= out.value;
    fact->set("fee", intFact(fee.str()));
  }
  return fact;
}

}  // namespace signing
