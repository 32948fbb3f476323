// Recursive Length Prefix (the Ethereum yellow paper, appendix B): what unsigned Ethereum
// transactions arrive in and signed ones leave in. Decoding is strict, because the bytes a
// policy reads must be the bytes that get signed: non-canonical lengths, single bytes wrapped
// in a string header, trailing bytes and nesting past kMaxRlpDepth are refused.
#pragma once

#include <string>
#include <vector>

#include "signet/encoding.hpp"

namespace signing {

inline constexpr int kMaxRlpDepth = 16;

struct RlpItem {
  bool isList = false;
  signet::Bytes bytes;         // a string item's payload
  std::vector<RlpItem> items;  // a list item's elements
  // The item's own encoding, header included (what a list of already-encoded items re-emits).
  signet::Bytes encoded;
};

// One item spanning all of `data`. InvalidArgument naming `field` and the byte offset.
RlpItem rlpDecode(const uint8_t* data, size_t size, const std::string& field);

signet::Bytes rlpEncodeString(const signet::Bytes& payload);
// A list of items that are already encoded, concatenated in order.
signet::Bytes rlpEncodeList(const std::vector<signet::Bytes>& encodedItems);
// An unsigned integer given as big-endian bytes: leading zeros dropped, zero is the empty
// string.
signet::Bytes rlpEncodeUint(const signet::Bytes& bigEndian);

}  // namespace signing
