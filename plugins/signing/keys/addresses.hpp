// ADDRESS_FORMAT_* encodings (each chain's published address rule): from a public key of the
// format's curve to the address clients expect. A format whose encoding the public sources leave
// unsettled (P2SH and P2WSH scripts, TON wallet contracts, Spark) is refused with a message
// saying so, never guessed.
#pragma once

#include <string>

#include "signet/crypto.hpp"

namespace signing {

// The curve a format's addresses are made from; InvalidArgument for an unknown or
// unsupported format. COMPRESSED and UNCOMPRESSED take any curve (nullopt).
std::optional<signet::crypto::Curve> curveOfFormat(const std::string& addressFormat);

// Checks, before anything is derived or stored, that keys of `curve` (API name `curveName`)
// can have addresses of `addressFormat`. InvalidArgument naming `field` otherwise, including
// for an unknown or unsettled format.
void requireFormatForCurve(const std::string& addressFormat, signet::crypto::Curve curve,
                           const std::string& curveName, const std::string& field);

// `publicKey`: canonical bytes (33-byte compressed for secp256k1 and P-256, 32 for Ed25519).
// InvalidArgument naming the format when it cannot be made from that curve.
std::string addressFor(const std::string& addressFormat, signet::crypto::Curve curve,
                       const signet::Bytes& publicKey);

// RIPEMD-160(SHA-256(b)): what P2PKH and P2WPKH addresses and scripts carry of a key.
signet::Bytes hash160Of(const signet::Bytes& b);

// A Bitcoin address format's network: the bech32 prefix and the Base58Check version bytes of
// P2PKH and P2SH addresses. nullopt for a format that is not ADDRESS_FORMAT_BITCOIN_*.
struct BitcoinNetwork {
  std::string hrp;
  uint8_t p2pkh, p2sh;
};
std::optional<BitcoinNetwork> bitcoinNetwork(const std::string& addressFormat);

// 0x + EIP-55 mixed-case checksum of a 20-byte account address.
std::string ethereumChecksumAddress(const signet::Bytes& address20);

}  // namespace signing
