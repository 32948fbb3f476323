// ES256 JSON Web Tokens as the coordinator API uses them: P-256 over SHA-256 of
// "header.payload" (verification tokens) or over SHA-256(SHA-256(...)) (session JWTs), with
// the raw r‖s signature in base64url. Poco's JWT signs only the standard single-hash form.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/json.hpp"

namespace signet::jwt {

enum class Hashing { kSingleSha256, kDoubleSha256 };

std::string signEs256(const crypto::SecretBytes& privateKey, const json::Object& header,
                      const json::Object& claims, Hashing hashing);
// The same over JSON texts given exactly, signed by `sign` (the gateway signer).
std::string signEs256(const crypto::DigestSigner& sign, const std::string& headerJson,
                      const std::string& claimsJson, Hashing hashing);
// A JSON string literal with everything outside printable ASCII, and '>', '?' and '~', escaped
// as \uXXXX. Claims built from these have a base64url payload without '-' or '_', which the
// browsers' atob() (what the SDKs parse sessions with) requires (tkhq/sdk packages/core
// parseSession).
std::string atobSafeJsonString(const std::string& utf8);
// The claims when the signature verifies under `publicKey` (any SEC1 encoding); nullopt for a
// malformed token or a bad signature. Expiry is the caller's business (units differ).
std::optional<json::Object> verifyEs256(const std::string& token, const Bytes& publicKey,
                                        Hashing hashing);
// A compact JWT's three base64url parts, or nullopt when it does not have exactly three.
struct Parts {
  std::string header, payload, signature;
};
std::optional<Parts> split(const std::string& token);
// The `aud` claim (RFC 7519 §4.1.3: a string or a list of strings) as a list.
std::vector<std::string> audiences(const json::Object& claims);
// The claims without checking the signature (to read who a token names before deciding).
std::optional<json::Object> decodeClaims(const std::string& token);

// The lowercase hex SHA-256 of a compressed P-256 public key's hex text: the nonce that binds an
// OIDC ID token to the key a login registers (tkhq/sdk packages/crypto; the social-login docs'
// example maps 0394e549…281a to 1663bba4…ef82).
std::string oidcNonce(const std::string& compressedPublicKeyHex);

}  // namespace signet::jwt
