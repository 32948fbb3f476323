#include "chains/tron/protobuf.hpp"

#include "signet/error.hpp"

namespace signing {

using namespace signet;

namespace {
uint64_t readVarint(const Bytes& data, size_t& at, const std::string& what) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= data.size()) throw invalidArgument(what + ": a varint runs past the end");
    uint8_t b = data[at++];
    if (shift == 63 && b > 1) throw invalidArgument(what + ": a varint exceeds 64 bits");
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (b == 0 && shift > 0) throw invalidArgument(what + ": a varint is not minimally encoded");
      return value;
    }
  }
  throw invalidArgument(what + ": a varint exceeds 64 bits");
}
}  // namespace

std::vector<ProtoField> parseProtoFields(const Bytes& data, const std::string& what) {
  std::vector<ProtoField> fields;
  size_t at = 0;
  while (at < data.size()) {
    uint64_t key = readVarint(data, at, what);
    ProtoField f;
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
      throw invalidArgument(what + ": field number " + std::to_string(key >> 3) + " is invalid");
    f.number = static_cast<uint32_t>(key >> 3);
    unsigned wireType = key & 7;
    if (wireType == 0) {
      f.isVarint = true;
      f.varint = readVarint(data, at, what);
    } else if (wireType == 2) {
      uint64_t length = readVarint(data, at, what);
      if (length > data.size() - at)
        throw invalidArgument(what + ": field " + std::to_string(f.number) + " claims " +
                              std::to_string(length) + " bytes, past the end");
      f.bytes.assign(data.begin() + static_cast<long>(at),
                     data.begin() + static_cast<long>(at + length));
      at += length;
    } else {
      throw invalidArgument(what + ": field " + std::to_string(f.number) + " has wire type " +
                            std::to_string(wireType) + ", which Tron messages do not use");
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

void appendProtoVarint(Bytes& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

void appendProtoBytes(Bytes& out, uint32_t number, const Bytes& bytes) {
  appendProtoVarint(out, (static_cast<uint64_t>(number) << 3) | 2);
  appendProtoVarint(out, bytes.size());
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace signing
