// Recovers a Feldman-shared secret the way an operator set would, by Lagrange interpolation at
// zero with OpenSSL's big numbers: independent of the scalar arithmetic that made the shares.
#pragma once

#include <openssl/bn.h>

#include <memory>
#include <vector>

#include "chains/spark/feldman.hpp"

namespace signet::test {

struct BnFree {
  void operator()(BIGNUM* b) const { BN_clear_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
inline Bn bn(const signet::Bytes& b) {
  return Bn(BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr));
}
inline Bn bnWord(uint64_t w) {
  Bn out(BN_new());
  BN_set_word(out.get(), w);
  return out;
}

// f(0) = Σ share_i · Π_{j≠i} j / (j − i) mod n over the given shares.
inline signet::Bytes interpolateAtZero(const std::vector<const signing::VerifiableShare*>& shares) {
  Bn n = bn(*signet::fromHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"));
  std::unique_ptr<BN_CTX, decltype(&BN_CTX_free)> ctx(BN_CTX_new(), BN_CTX_free);
  Bn sum = bnWord(0);
  for (const auto* si : shares) {
    Bn term = bn(si->share.bytes());
    for (const auto* sj : shares) {
      if (sj == si) continue;
      Bn num = bnWord(sj->index), den(BN_new());
      BN_mod_sub(den.get(), bnWord(sj->index).get(), bnWord(si->index).get(), n.get(), ctx.get());
      Bn inv(BN_mod_inverse(nullptr, den.get(), n.get(), ctx.get()));
      BN_mod_mul(term.get(), term.get(), num.get(), n.get(), ctx.get());
      BN_mod_mul(term.get(), term.get(), inv.get(), n.get(), ctx.get());
    }
    BN_mod_add(sum.get(), sum.get(), term.get(), n.get(), ctx.get());
  }
  signet::Bytes out(32);
  BN_bn2binpad(sum.get(), out.data(), 32);
  return out;
}

}  // namespace signet::test
