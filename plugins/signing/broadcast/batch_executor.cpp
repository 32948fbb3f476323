#include "batch_executor.hpp"

#include <optional>

namespace signing::broadcast {

using namespace signet;

namespace {
Bytes word(uint64_t v) {
  Bytes w(32, 0);
  for (int i = 0; i < 8; ++i) w[31 - i] = static_cast<uint8_t>(v >> (8 * i));
  return w;
}

Bytes addressWord(const Bytes& address) {
  Bytes w(12, 0);
  w.insert(w.end(), address.begin(), address.end());
  return w;
}

void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

// `bytes`: its length, then its content padded to a multiple of 32.
Bytes dynamicBytes(const Bytes& b) {
  Bytes out = word(b.size());
  append(out, b);
  out.resize(out.size() + (32 - b.size() % 32) % 32, 0);
  return out;
}

Bytes selector(std::string_view signature) {
  auto h = crypto::keccak256(signature);
  return Bytes(h.begin(), h.begin() + 4);
}

Bytes digestBytes(const crypto::Digest& d) {
  return Bytes(d.begin(), d.end());
}

uint64_t readWord64(const Bytes& data, size_t at, bool& ok) {
  if (at + 32 > data.size()) {
    ok = false;
    return 0;
  }
  for (size_t i = at; i < at + 24; ++i) ok &= data[i] == 0;
  uint64_t v = 0;
  for (size_t i = at + 24; i < at + 32; ++i) v = v << 8 | data[i];
  return v;
}
}  // namespace

Bytes executeCalldata(const std::vector<EthCall>& calls, const Bytes& deadline32,
                      const Bytes& signature) {
  // The tuple array: its length, one offset per tuple (from the start of the offsets), then
  // each tuple (to, value, offset of data = 0x60, data).
  std::vector<Bytes> tuples;
  for (const auto& c : calls) {
    Bytes t = addressWord(c.to);
    append(t, c.value);
    append(t, word(0x60));
    append(t, dynamicBytes(c.data));
    tuples.push_back(std::move(t));
  }
  Bytes array = word(calls.size());
  size_t offset = 32 * calls.size();
  for (const auto& t : tuples) {
    append(array, word(offset));
    offset += t.size();
  }
  for (const auto& t : tuples) append(array, t);

  Bytes out = selector("execute((address,uint256,bytes)[],uint256,bytes)");
  append(out, word(0x60));  // calls, after the three head words
  append(out, deadline32);
  append(out, word(0x60 + array.size()));  // signature, after the calls
  append(out, array);
  append(out, dynamicBytes(signature));
  return out;
}

Bytes nonceCalldata() {
  return selector("nonce()");
}

crypto::Digest batchDigest(uint64_t chainId, const Bytes& account,
                           const std::vector<EthCall>& calls, const Bytes& nonce32,
                           const Bytes& deadline32) {
  Bytes callType = digestBytes(crypto::keccak256("Call(address to,uint256 value,bytes data)"));
  Bytes hashes;
  for (const auto& c : calls) {
    Bytes encoded = callType;
    append(encoded, addressWord(c.to));
    append(encoded, c.value);
    append(encoded, digestBytes(keccak(c.data)));
    append(hashes, digestBytes(keccak(encoded)));
  }
  Bytes batch = digestBytes(crypto::keccak256(
      "BatchExecution(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 "
      "value,bytes data)"));
  append(batch, digestBytes(keccak(hashes)));
  append(batch, nonce32);
  append(batch, deadline32);
  Bytes domain = digestBytes(crypto::keccak256(
      "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"));
  append(domain, digestBytes(crypto::keccak256("SignetBatchExecutor")));
  append(domain, digestBytes(crypto::keccak256("1")));
  append(domain, word(chainId));
  append(domain, addressWord(account));
  Bytes message = {0x19, 0x01};
  append(message, digestBytes(keccak(domain)));
  append(message, digestBytes(keccak(batch)));
  return keccak(message);
}

std::optional<CallFailure> decodeCallFailed(const Bytes& data) {
  if (data.size() < 4 + 96 ||
      Bytes(data.begin(), data.begin() + 4) != selector("CallFailed(uint256,address,bytes)"))
    return std::nullopt;
  Bytes args(data.begin() + 4, data.end());
  bool ok = true;
  CallFailure f;
  f.index = readWord64(args, 0, ok);
  f.to = Bytes(args.begin() + 44, args.begin() + 64);
  uint64_t at = readWord64(args, 64, ok);
  uint64_t length = ok && at + 32 <= args.size() ? readWord64(args, at, ok) : 0;
  if (!ok || at + 32 + length > args.size()) return std::nullopt;
  f.reason = Bytes(args.begin() + static_cast<long>(at) + 32,
                   args.begin() + static_cast<long>(at + 32 + length));
  return f;
}

}  // namespace signing::broadcast
