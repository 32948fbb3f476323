// The crypto floor of a request: the cryptography it cannot avoid, timed on one core in the
// same run as the benchmark that compares against it. Shared by the benchmarks.
#pragma once

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"
#include "signet/hd_keys.hpp"
#include "signet/stamp.hpp"

namespace signet::bench {

inline double microsPer(int n, const std::function<void()>& f) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
             .count() /
         n;
}

struct CryptoCosts {
  double verifyP256Us = 0;     // an X-Stamp's P-256 signature over the body
  double signSecp256k1Us = 0;  // an Ethereum account's signature
  double deriveAccountUs = 0;  // a BIP-32 account below a wallet's seed (m/44'/60'/0'/0/i)
};

inline CryptoCosts measureCryptoCosts() {
  CryptoCosts c;
  std::string body = R"({"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","timestampMs":"1"})";
  auto key = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto stamp = stamp::sign(stamp::Scheme::kP256, key, body);
  Bytes pub = *fromHex(stamp.publicKey), sig = *fromHex(stamp.signature);
  c.verifyP256Us = microsPer(2000, [&] {
    if (!stamp::verify(stamp::Scheme::kP256, pub, sig, body)) std::abort();
  });
  auto k1 = crypto::generatePrivateKey(crypto::Curve::kSecp256k1);
  auto digest = crypto::sha256(body);
  c.signSecp256k1Us = microsPer(2000, [&] { crypto::signSecp256k1Recoverable(k1, digest); });
  crypto::SecretBytes seed(crypto::randomBytes(64));
  std::string why;
  auto path = *hd::parsePath("m/44'/60'/0'/0/7", why);
  c.deriveAccountUs = microsPer(300, [&] { hd::derive(crypto::Curve::kSecp256k1, seed, path); });
  return c;
}

}  // namespace signet::bench
