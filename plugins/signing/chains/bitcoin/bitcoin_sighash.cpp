#include "chains/bitcoin/bitcoin_sighash.hpp"

#include "signet/error.hpp"

namespace signing {

using namespace signet;
using crypto::Digest;

namespace {
void le(Bytes& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t readLe(const Bytes& d, size_t& at, int bytes, const std::string& what) {
  if (d.size() - at < static_cast<size_t>(bytes))
    throw invalidArgument(what + ": the transaction ends early");
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(d[at + i]) << (8 * i);
  at += static_cast<size_t>(bytes);
  return v;
}
Bytes readBytes(const Bytes& d, size_t& at, uint64_t n, const std::string& what) {
  if (n > d.size() - at) throw invalidArgument(what + ": the transaction ends early");
  Bytes out(d.begin() + static_cast<long>(at), d.begin() + static_cast<long>(at + n));
  at += n;
  return out;
}
Bytes bytesOf(const Digest& d) {
  return Bytes(d.begin(), d.end());
}
Digest sha(const Bytes& b) {
  return crypto::sha256(b);
}
Digest doubleSha(const Bytes& b) {
  Digest once = crypto::sha256(b);
  return crypto::sha256(once.data(), once.size());
}
void appendOutpoint(Bytes& out, const BtcInput& in) {
  out.insert(out.end(), in.prevTxid.begin(), in.prevTxid.end());
  le(out, in.vout, 4);
}
void appendOutput(Bytes& out, const BtcOutput& o) {
  le(out, o.value, 8);
  appendCompactSize(out, o.script.size());
  out.insert(out.end(), o.script.begin(), o.script.end());
}
}  // namespace

uint64_t readCompactSize(const Bytes& d, size_t& at, const std::string& what) {
  if (at >= d.size()) throw invalidArgument(what + ": a size runs past the end");
  uint8_t first = d[at++];
  if (first < 0xfd) return first;
  int width = first == 0xfd ? 2 : first == 0xfe ? 4 : 8;
  uint64_t v = readLe(d, at, width, what);
  uint64_t minimum = width == 2 ? 0xfd : width == 4 ? 0x10000 : 0x100000000;
  if (v < minimum) throw invalidArgument(what + ": a size is not minimally encoded");
  return v;
}

void appendCompactSize(Bytes& out, uint64_t n) {
  if (n < 0xfd) {
    out.push_back(static_cast<uint8_t>(n));
  } else if (n <= 0xffff) {
    out.push_back(0xfd);
    le(out, n, 2);
  } else if (n <= 0xffffffff) {
    out.push_back(0xfe);
    le(out, n, 4);
  } else {
    out.push_back(0xff);
    le(out, n, 8);
  }
}

BtcTx parseBtcTx(const Bytes& d, const std::string& what) {
  BtcTx tx;
  size_t at = 0;
  tx.version = static_cast<uint32_t>(readLe(d, at, 4, what));
  if (d.size() - at >= 2 && d[at] == 0x00 && d[at + 1] == 0x01) {
    tx.hadWitness = true;
    at += 2;
  }
  uint64_t inputs = readCompactSize(d, at, what);
  if (inputs > d.size()) throw invalidArgument(what + ": too many inputs for its size");
  for (uint64_t i = 0; i < inputs; ++i) {
    BtcInput in;
    in.prevTxid = readBytes(d, at, 32, what);
    in.vout = static_cast<uint32_t>(readLe(d, at, 4, what));
    in.scriptSig = readBytes(d, at, readCompactSize(d, at, what), what);
    in.sequence = static_cast<uint32_t>(readLe(d, at, 4, what));
    tx.inputs.push_back(std::move(in));
  }
  uint64_t outputs = readCompactSize(d, at, what);
  if (outputs > d.size()) throw invalidArgument(what + ": too many outputs for its size");
  for (uint64_t i = 0; i < outputs; ++i) {
    BtcOutput o;
    o.value = readLe(d, at, 8, what);
    o.script = readBytes(d, at, readCompactSize(d, at, what), what);
    tx.outputs.push_back(std::move(o));
  }
  if (tx.hadWitness)
    for (uint64_t i = 0; i < inputs; ++i) {
      uint64_t items = readCompactSize(d, at, what);
      for (uint64_t k = 0; k < items; ++k) readBytes(d, at, readCompactSize(d, at, what), what);
    }
  tx.locktime = static_cast<uint32_t>(readLe(d, at, 4, what));
  if (at != d.size()) throw invalidArgument(what + ": trailing bytes after the transaction");
  return tx;
}

Bytes serializeBtcTx(const BtcTx& tx) {
  Bytes out;
  le(out, tx.version, 4);
  appendCompactSize(out, tx.inputs.size());
  for (const auto& in : tx.inputs) {
    appendOutpoint(out, in);
    appendCompactSize(out, in.scriptSig.size());
    out.insert(out.end(), in.scriptSig.begin(), in.scriptSig.end());
    le(out, in.sequence, 4);
  }
  appendCompactSize(out, tx.outputs.size());
  for (const auto& o : tx.outputs) appendOutput(out, o);
  le(out, tx.locktime, 4);
  return out;
}

Digest txidOf(const BtcTx& tx) {
  return doubleSha(serializeBtcTx(tx));
}

Digest legacySighashAll(const BtcTx& tx, size_t index, const Bytes& scriptCode) {
  BtcTx copy = tx;
  for (size_t i = 0; i < copy.inputs.size(); ++i)
    copy.inputs[i].scriptSig = i == index ? scriptCode : Bytes{};
  Bytes preimage = serializeBtcTx(copy);
  le(preimage, 1, 4);  // SIGHASH_ALL
  return doubleSha(preimage);
}

Digest bip143SighashAll(const BtcTx& tx, size_t index, const Bytes& scriptCode, uint64_t amount) {
  Bytes prevouts, sequences, outputs;
  for (const auto& in : tx.inputs) {
    appendOutpoint(prevouts, in);
    le(sequences, in.sequence, 4);
  }
  for (const auto& o : tx.outputs) appendOutput(outputs, o);
  Bytes p;
  le(p, tx.version, 4);
  Bytes h = bytesOf(doubleSha(prevouts));
  p.insert(p.end(), h.begin(), h.end());
  h = bytesOf(doubleSha(sequences));
  p.insert(p.end(), h.begin(), h.end());
  appendOutpoint(p, tx.inputs[index]);
  appendCompactSize(p, scriptCode.size());
  p.insert(p.end(), scriptCode.begin(), scriptCode.end());
  le(p, amount, 8);
  le(p, tx.inputs[index].sequence, 4);
  h = bytesOf(doubleSha(outputs));
  p.insert(p.end(), h.begin(), h.end());
  le(p, tx.locktime, 4);
  le(p, 1, 4);  // SIGHASH_ALL
  return doubleSha(p);
}

Digest taprootKeyPathSighash(const BtcTx& tx, size_t index, const std::vector<BtcOutput>& spent) {
  Bytes prevouts, amounts, scripts, sequences, outputs;
  for (size_t i = 0; i < tx.inputs.size(); ++i) {
    appendOutpoint(prevouts, tx.inputs[i]);
    le(amounts, spent[i].value, 8);
    appendCompactSize(scripts, spent[i].script.size());
    scripts.insert(scripts.end(), spent[i].script.begin(), spent[i].script.end());
    le(sequences, tx.inputs[i].sequence, 4);
  }
  for (const auto& o : tx.outputs) appendOutput(outputs, o);
  Bytes m{0x00, 0x00};  // epoch, SIGHASH_DEFAULT
  le(m, tx.version, 4);
  le(m, tx.locktime, 4);
  for (const Bytes* part : {&prevouts, &amounts, &scripts, &sequences, &outputs}) {
    Bytes h = bytesOf(sha(*part));
    m.insert(m.end(), h.begin(), h.end());
  }
  m.push_back(0x00);  // key path, no annex
  le(m, index, 4);
  // BIP-340 tagged hash: sha256(sha256(tag) ‖ sha256(tag) ‖ m).
  Digest tag = crypto::sha256(std::string_view("TapSighash"));
  Bytes tagged(tag.begin(), tag.end());
  tagged.insert(tagged.end(), tag.begin(), tag.end());
  tagged.insert(tagged.end(), m.begin(), m.end());
  return sha(tagged);
}

}  // namespace signing
