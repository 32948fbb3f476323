// The numbers of Ethereum sends: the API gives them as decimal strings, JSON-RPC as 0x-hex
// quantities, RLP as minimal big-endian bytes. Values (wei) may use all 256 bits and are only
// carried; fees and gas are multiplied, so they are held in 128 bits and bounded where read.
#pragma once

#include <optional>
#include <string>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signing::broadcast {

using signet::Bytes;
namespace crypto = signet::crypto;

inline crypto::Digest keccak(const Bytes& b) {
  return crypto::keccak256(b.data(), b.size());
}

using Uint128 = unsigned __int128;

// A u256 from decimal ("1000") or 0x-hex, as 32-byte big-endian; nullopt otherwise.
std::optional<Bytes> parseU256(const std::string& text);
// Minimal big-endian bytes (no leading zeros; zero is empty): what RLP takes.
Bytes minimalBytes(const Bytes& bigEndian);
Bytes minimalBytes(Uint128 v);
// A decimal string or 0x-hex quantity of at most 128 bits; nullopt otherwise.
std::optional<Uint128> parseU128(const std::string& text);
std::string toDecimal(Uint128 v);
// A big-endian unsigned integer of any length (a u256 balance) in decimal.
std::string toDecimal(const Bytes& bigEndian);
std::string toQuantity(Uint128 v);        // 0x-hex, no leading zeros ("0x0" for zero)
std::string toQuantity(const Bytes& be);  // the same for a big-endian byte string
// A decimal amount with up to `scale` digits after the point ("3000.5") as an integer of
// 10^-scale units; nullopt for anything else.
std::optional<Uint128> parseFixed(const std::string& text, int scale);
// An integer of 10^-scale units as a decimal ("12.345000" with scale 6 -> "12.345").
std::string fixedToDecimal(Uint128 units, int scale);
// The same for an integer given by its decimal digits ("1500000", 6 -> "1.5").
std::string pointed(std::string digits, int scale);

}  // namespace signing::broadcast
