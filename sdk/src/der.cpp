// DER for ECDSA signatures: SEQUENCE { INTEGER r, INTEGER s }.
#include <cstring>

#include "signet/crypto.hpp"

namespace signet::crypto {

namespace {
// Reads one INTEGER into a 32-byte big-endian buffer. Leading zero bytes are skipped
// whatever the byte after them (lenient), but the value itself must fit 32 bytes.
bool readInteger(const Bytes& der, size_t& pos, std::array<uint8_t, 32>& out) {
  if (pos + 2 > der.size() || der[pos] != 0x02) return false;
  size_t len = der[pos + 1];
  pos += 2;
  if (len == 0 || len > 0x7f || pos + len > der.size()) return false;
  size_t start = pos, end = pos + len;
  pos = end;
  while (start < end && der[start] == 0) ++start;
  size_t n = end - start;
  if (n > 32) return false;
  out.fill(0);
  std::memcpy(out.data() + 32 - n, der.data() + start, n);
  return true;
}

void writeInteger(Bytes& out, const std::array<uint8_t, 32>& v) {
  size_t start = 0;
  while (start < 31 && v[start] == 0) ++start;
  bool pad = v[start] & 0x80;
  out.push_back(0x02);
  out.push_back(static_cast<uint8_t>(32 - start + (pad ? 1 : 0)));
  if (pad) out.push_back(0);
  out.insert(out.end(), v.begin() + start, v.end());
}
}  // namespace

std::optional<EcdsaSignature> parseDerSignature(const Bytes& der) {
  // Short-form lengths only: a P-256/secp256k1 signature is at most 72 bytes.
  if (der.size() < 8 || der[0] != 0x30 || der[1] > 0x7f || size_t(der[1]) + 2 != der.size())
    return std::nullopt;
  EcdsaSignature sig;
  size_t pos = 2;
  if (!readInteger(der, pos, sig.r) || !readInteger(der, pos, sig.s) || pos != der.size())
    return std::nullopt;
  return sig;
}

Bytes encodeDerSignature(const EcdsaSignature& sig) {
  Bytes body;
  writeInteger(body, sig.r);
  writeInteger(body, sig.s);
  Bytes out;
  out.reserve(2 + body.size());
  out.push_back(0x30);
  out.push_back(static_cast<uint8_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace signet::crypto
