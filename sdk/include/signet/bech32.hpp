// Bech32 (BIP-173) and Bech32m (BIP-350): segwit addresses, and the plain bech32 of Cosmos
// chains (data bytes regrouped into 5-bit words, no witness version).
#pragma once

#include <string>

#include "signet/encoding.hpp"

namespace signet::bech32 {

enum class Variant { kBech32, kBech32m };

// A segwit address: witness version 0 uses Bech32, 1 and above Bech32m (BIP-350).
std::string segwitAddress(const std::string& hrp, int witnessVersion, const Bytes& program);
// hrp + "1" + the data regrouped to 5 bits + checksum (Cosmos, Sei).
std::string encodeBytes(const std::string& hrp, const Bytes& data, Variant variant);

}  // namespace signet::bech32
