// Fuzz target: the JWT readers, which take tokens from clients (OIDC ID tokens, OTP verification
// tokens, session JWTs): splitting, claims decoding, audiences and ES256 verification under a
// fixed key. Each answers nullopt or signet::Error for what it cannot read.
#include "fuzz_input.hpp"
#include "signet/crypto.hpp"
#include "signet/jwt.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const signet::Bytes publicKey = [] {
    auto priv = signet::crypto::generatePrivateKey(signet::crypto::Curve::kP256);
    return signet::crypto::uncompressPublicKey(
        signet::crypto::Curve::kP256,
        signet::crypto::publicKeyFromPrivate(signet::crypto::Curve::kP256, priv));
  }();
  std::string token(reinterpret_cast<const char*>(data), size);
  fuzz::refusesWithErrorOnly([&] {
    signet::jwt::split(token);
    if (auto claims = signet::jwt::decodeClaims(token)) signet::jwt::audiences(*claims);
    signet::jwt::verifyEs256(token, publicKey, signet::jwt::Hashing::kSingleSha256);
    signet::jwt::verifyEs256(token, publicKey, signet::jwt::Hashing::kDoubleSha256);
  });
  return 0;
}
