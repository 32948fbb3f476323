// The X-Stamp header (API-key stamps): base64url of {"publicKey","scheme","signature"} over
// the exact request body. Shared by the client (signing) and the gateway (verification).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "signet/crypto.hpp"

namespace signet::stamp {

enum class Scheme { kP256, kSecp256k1, kSecp256k1Eip191, kEd25519 };

std::optional<Scheme> parseScheme(std::string_view name);
const char* schemeName(Scheme s);
crypto::Curve curveOf(Scheme s);

struct ApiKeyStamp {
  std::string publicKey;  // hex
  std::string scheme;     // SIGNATURE_SCHEME_*
  std::string signature;  // hex
};

// Decodes a header value: base64url or base64, padded or not, JSON keys in any order.
// On failure returns nullopt and says why in `error`.
std::optional<ApiKeyStamp> decodeHeader(std::string_view value, std::string& error);
std::string encodeHeader(const ApiKeyStamp& stamp);

// The digest an ECDSA scheme signs: SHA-256(body), or for EIP-191 keccak256 of the
// "\x19Ethereum Signed Message:\n<len>" prefix and the body.
crypto::Digest messageDigest(Scheme scheme, std::string_view body);

// Checks the signature of a decoded stamp over `body` against its own public key.
bool verify(Scheme scheme, const Bytes& publicKey, const Bytes& signature, std::string_view body);

// Signs `body` (client side). P-256 and secp256k1 produce DER, Ed25519 64 raw bytes.
ApiKeyStamp sign(Scheme scheme, const crypto::SecretBytes& priv, std::string_view body);

}  // namespace signet::stamp
