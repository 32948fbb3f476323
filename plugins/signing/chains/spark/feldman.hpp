// Feldman verifiable secret sharing over secp256k1, as Spark's operators check it
// (`validateShare` in the Spark SDK): a random polynomial f of degree threshold − 1 with
// f(0) = secret; share i is f(i) for i = 1..count; the proofs are the coefficients' public
// keys a_j·G (proofs[0] = secret·G), the same for every share, so that anyone can check
// f(i)·G = Σ i^j·proofs[j].
#pragma once

#include <cstdint>
#include <vector>

#include "signet/crypto.hpp"

namespace signing {

struct VerifiableShare {
  uint32_t index;                     // 1-based
  signet::crypto::SecretBytes share;  // 32-byte big-endian scalar
  std::vector<signet::Bytes> proofs;  // 33-byte compressed points, threshold of them
};

// std::invalid_argument unless 1 <= threshold <= count and `secret` is a scalar in [1, n).
std::vector<VerifiableShare> feldmanSplit(const signet::crypto::SecretBytes& secret,
                                          uint32_t threshold, uint32_t count);

}  // namespace signing
