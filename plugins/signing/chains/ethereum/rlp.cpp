#include "chains/ethereum/rlp.hpp"

#include "signet/error.hpp"

namespace signing {

using namespace signet;

namespace {
class Decoder {
 public:
  Decoder(const uint8_t* data, const std::string& field) : data_(data), field_(field) {}

  // The item at [pos, end); returns the offset just past it.
  size_t item(size_t pos, size_t end, int depth, RlpItem& out) {
    if (depth > kMaxRlpDepth) fail(pos, "lists nested deeper than " + std::to_string(kMaxRlpDepth));
    if (pos >= end) fail(pos, "an item is missing");
    uint8_t b = data_[pos];
    size_t start = pos, payload = 0, length = 0;
    if (b < 0x80) {
      out.bytes.assign(data_ + pos, data_ + pos + 1);
      out.encoded = out.bytes;
      return pos + 1;
    }
    bool list = b >= 0xc0;
    uint8_t base = list ? 0xc0 : 0x80;
    if (b - base < 56) {
      length = b - base;
      payload = pos + 1;
    } else {
      size_t lenOfLen = b - base - 55;
      if (pos + 1 + lenOfLen > end) fail(pos, "a length runs past the end");
      if (data_[pos + 1] == 0) fail(pos, "a length has a leading zero");
      if (lenOfLen > 4) fail(pos, "an item longer than 4 GiB");
      for (size_t i = 0; i < lenOfLen; ++i) length = (length << 8) | data_[pos + 1 + i];
      if (length < 56) fail(pos, "a long-form length below 56");
      payload = pos + 1 + lenOfLen;
    }
    if (length > end - payload) fail(pos, "an item runs past the end of its container");
    size_t next = payload + length;
    out.isList = list;
    if (list) {
      for (size_t p = payload; p < next;) {
        out.items.emplace_back();
        p = item(p, next, depth + 1, out.items.back());
      }
    } else {
      if (length == 1 && data_[payload] < 0x80)
        fail(pos, "a single byte below 0x80 wrapped in a string header");
      out.bytes.assign(data_ + payload, data_ + next);
    }
    out.encoded.assign(data_ + start, data_ + next);
    return next;
  }

  [[noreturn]] void fail(size_t pos, const std::string& what) const {
    throw invalidArgument("invalid field " + field_ + ": not canonical RLP at byte " +
                          std::to_string(pos) + ": " + what);
  }

 private:
  const uint8_t* data_;
  const std::string& field_;
};

Bytes header(size_t length, uint8_t base) {
  if (length < 56) return {static_cast<uint8_t>(base + length)};
  Bytes len;
  for (size_t l = length; l > 0; l >>= 8) len.insert(len.begin(), static_cast<uint8_t>(l & 0xff));
  Bytes h{static_cast<uint8_t>(base + 55 + len.size())};
  h.insert(h.end(), len.begin(), len.end());
  return h;
}
}  // namespace

RlpItem rlpDecode(const uint8_t* data, size_t size, const std::string& field) {
  Decoder d(data, field);
  RlpItem out;
  size_t end = d.item(0, size, 0, out);
  if (end != size)
    d.fail(end, std::to_string(size - end) + " bytes after the end of the transaction");
  return out;
}

Bytes rlpEncodeString(const Bytes& payload) {
  if (payload.size() == 1 && payload[0] < 0x80) return payload;
  Bytes out = header(payload.size(), 0x80);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes rlpEncodeList(const std::vector<Bytes>& encodedItems) {
  size_t total = 0;
  for (const auto& i : encodedItems) total += i.size();
  Bytes out = header(total, 0xc0);
  for (const auto& i : encodedItems) out.insert(out.end(), i.begin(), i.end());
  return out;
}

Bytes rlpEncodeUint(const Bytes& bigEndian) {
  size_t skip = 0;
  while (skip < bigEndian.size() && bigEndian[skip] == 0) ++skip;
  return rlpEncodeString(
      Bytes(bigEndian.begin() + static_cast<std::ptrdiff_t>(skip), bigEndian.end()));
}

}  // namespace signing
