#include "chains/spark/frost.hpp"

#include <openssl/bn.h>
#include <secp256k1.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace signing::frost {

using namespace signet;
using crypto::SecretBytes;

namespace {
constexpr std::string_view kContext = "FROST-secp256k1-SHA256-TR-v1";

// Scalars mod n with OpenSSL's big numbers, for what is public (binding factors, identifiers, λ,
// the challenge) and for reducing hash outputs, among them H3's nonces: that reduction runs in
// OpenSSL's constant-time division (BN_FLG_CONSTTIME). Arithmetic on secrets is the SDK's.
struct BnFree {
  void operator()(BIGNUM* b) const { BN_clear_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
struct CtxFree {
  void operator()(BN_CTX* c) const { BN_CTX_free(c); }
};

class ModN {
 public:
  ModN() : ctx_(BN_CTX_new()) {
    static const uint8_t order[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
                                      0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b,
                                      0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41};
    n_.reset(BN_bin2bn(order, 32, nullptr));
    if (!ctx_ || !n_) throw std::bad_alloc();
  }
  // Any big-endian bytes, reduced mod n.
  Bn of(const uint8_t* data, size_t size) {
    Bn in(BN_new()), v(BN_new());
    if (!in || !v || !BN_bin2bn(data, static_cast<int>(size), in.get()))
      throw std::runtime_error("frost: scalar arithmetic failed");
    BN_set_flags(in.get(), BN_FLG_CONSTTIME);
    if (!BN_nnmod(v.get(), in.get(), n_.get(), ctx_.get()))
      throw std::runtime_error("frost: scalar arithmetic failed");
    return v;
  }
  Bn of(const Scalar& s) { return of(s.data(), s.size()); }
  Bn sub(const Bn& a, const Bn& b) { return op(a, b, BN_mod_sub); }
  Bn mul(const Bn& a, const Bn& b) { return op(a, b, BN_mod_mul); }
  Bn inverse(const Bn& a) {
    Bn v(BN_mod_inverse(nullptr, a.get(), n_.get(), ctx_.get()));
    if (!v) throw std::runtime_error("frost: a zero denominator (repeated identifier)");
    return v;
  }
  static Scalar bytes(const Bn& v) {
    Scalar out{};
    BN_bn2binpad(v.get(), out.data(), 32);
    return out;
  }

 private:
  using Op = int (*)(BIGNUM*, const BIGNUM*, const BIGNUM*, const BIGNUM*, BN_CTX*);
  Bn op(const Bn& a, const Bn& b, Op f) {
    Bn v(BN_new());
    if (!v || !f(v.get(), a.get(), b.get(), n_.get(), ctx_.get()))
      throw std::runtime_error("frost: scalar arithmetic failed");
    return v;
  }
  std::unique_ptr<BN_CTX, CtxFree> ctx_;
  Bn n_;
};

// Points with libsecp256k1, which has no identity element: a sum that is the identity is
// refused, as frost-core refuses an identity commitment.
const secp256k1_context* k1() {
  static const secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  return ctx;
}
secp256k1_pubkey parse(const Point& p) {
  secp256k1_pubkey key;
  if (!secp256k1_ec_pubkey_parse(k1(), &key, p.data(), p.size()))
    throw std::invalid_argument("frost: not a secp256k1 point");
  return key;
}
Point serialize(const secp256k1_pubkey& key) {
  Point out{};
  size_t size = out.size();
  secp256k1_ec_pubkey_serialize(k1(), out.data(), &size, &key, SECP256K1_EC_COMPRESSED);
  return out;
}
Point add(const Point& a, const Point& b) {
  secp256k1_pubkey pa = parse(a), pb = parse(b), sum;
  const secp256k1_pubkey* both[] = {&pa, &pb};
  if (!secp256k1_ec_pubkey_combine(k1(), &sum, both, 2))
    throw std::invalid_argument("frost: the points sum to the identity");
  return serialize(sum);
}
Point times(const Point& p, const Scalar& s) {
  secp256k1_pubkey key = parse(p);
  if (!secp256k1_ec_pubkey_tweak_mul(k1(), &key, s.data()))
    throw std::invalid_argument("frost: a zero scalar");
  return serialize(key);
}

// Arithmetic on secrets (nonces, the signing share) is the SDK's, constant-time in
// libsecp256k1; what is public (binding factors, the challenge, λ) is OpenSSL's. A zero result,
// which these sums reach with negligible probability, is a failure, not a retry.
SecretBytes secretOf(const Scalar& s) {
  return SecretBytes(Bytes(s.begin(), s.end()));
}
SecretBytes copyOf(const SecretBytes& s) {
  return SecretBytes(Bytes(s.bytes()));
}
SecretBytes checked(std::optional<SecretBytes> v) {
  if (!v) throw std::runtime_error("frost: a scalar came out zero");
  return std::move(*v);
}
SecretBytes plus(const SecretBytes& a, const SecretBytes& b) {
  return checked(crypto::addScalarsSecp256k1(a, b));
}
SecretBytes product(const SecretBytes& a, const SecretBytes& b) {
  return checked(crypto::mulScalarsSecp256k1(a, b));
}
SecretBytes minus(const SecretBytes& a) {
  return checked(crypto::negateScalarSecp256k1(a));
}

bool oddY(const Point& p) {
  return p[0] == 0x03;
}
Point negated(const Point& p) {
  Point out = p;
  out[0] = oddY(p) ? 0x02 : 0x03;
  return out;
}
const uint8_t* xOf(const Point& p) {
  return p.data() + 1;
}

void append(Bytes& out, const uint8_t* data, size_t size) {
  out.insert(out.end(), data, data + size);
}
template <typename Array>
void append(Bytes& out, const Array& a) {
  append(out, a.data(), a.size());
}

// BIP-340's tagged hash, reduced mod n as the crate's hasher_to_scalar does.
Scalar taggedScalar(std::string_view tag, const Bytes& message, ModN& mod) {
  uint8_t digest[32];
  if (!secp256k1_tagged_sha256(k1(), digest, reinterpret_cast<const unsigned char*>(tag.data()),
                               tag.size(), message.data(), message.size()))
    throw std::runtime_error("frost: tagged hash failed");
  return ModN::bytes(mod.of(digest, sizeof digest));
}

// H4 and H5: SHA-256 over the context, the tag and the message.
crypto::Digest contextHash(std::string_view tag, const Bytes& message) {
  Bytes all(kContext.begin(), kContext.end());
  all.insert(all.end(), tag.begin(), tag.end());
  append(all, message);
  return crypto::sha256(all);
}

}  // namespace

Scalar hashToScalar(std::string_view tag, const Bytes& message) {
  // expand_message_xmd(SHA-256) to 48 bytes (L for a 256-bit order at k = 128), then mod n.
  // The message may hold a secret (H3's holds the signing key): every buffer is sized once and
  // wiped.
  Bytes dst(kContext.begin(), kContext.end());
  dst.insert(dst.end(), tag.begin(), tag.end());
  dst.push_back(static_cast<uint8_t>(dst.size()));
  Bytes first, second, third, okm;
  crypto::Digest b0{}, b1{}, b2{};
  crypto::WipeOnExit w1(first), w2(second), w3(third), w4(okm);
  crypto::WipeOnExit w5(b0), w6(b1), w7(b2);
  first.reserve(64 + message.size() + 3 + dst.size());
  first.assign(64, 0);
  append(first, message);
  first.insert(first.end(), {0, 48, 0});
  append(first, dst);
  b0 = crypto::sha256(first);
  second.reserve(32 + 1 + dst.size());
  append(second, b0);
  second.push_back(1);
  append(second, dst);
  b1 = crypto::sha256(second);
  third.reserve(32 + 1 + dst.size());
  for (size_t i = 0; i < 32; ++i) third.push_back(b0[i] ^ b1[i]);
  third.push_back(2);
  append(third, dst);
  b2 = crypto::sha256(third);
  okm.reserve(48);
  append(okm, b1);
  append(okm, b2.data(), 16);
  ModN mod;
  return ModN::bytes(mod.of(okm.data(), okm.size()));
}

Bytes encodeCommitments(const std::map<Scalar, Commitment>& commitments) {
  Bytes out;
  for (const auto& [id, c] : commitments) {
    append(out, id);
    append(out, c.hiding);
    append(out, c.binding);
  }
  return out;
}

Scalar derivedIdentifier(std::string_view label) {
  return hashToScalar("id", Bytes(label.begin(), label.end()));
}

Point pointOf(const Bytes& compressed) {
  if (compressed.size() != 33) throw std::runtime_error("frost: a point is not compressed");
  Point out{};
  std::copy(compressed.begin(), compressed.end(), out.begin());
  return out;
}

bool isScalar(const Scalar& bytes) {
  return secp256k1_ec_seckey_verify(k1(), bytes.data()) == 1;
}

Commitment commitmentOf(const Nonces& nonces) {
  return {pointOf(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, nonces.hiding)),
          pointOf(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, nonces.binding))};
}

Scalar signShare(const SigningPackage& package, const Scalar& self, const Nonces& nonces,
                 const SecretBytes& signingShare, const Point& verifyingKey) {
  if (!package.commitments.count(self) || !package.group.count(self))
    throw std::invalid_argument("frost: the signer is not in the signing package");
  ModN mod;
  // pre_sign: a BIP-340 key is even, so an odd verifying key negates the share with it.
  SecretBytes share = copyOf(signingShare);
  Point key = verifyingKey;
  if (oddY(key)) {
    share = minus(share);
    key = negated(key);
  }
  // Binding factors: ρ_i = H1(key ‖ H4(m) ‖ H5(commitments) ‖ i), for every signer.
  Bytes prefix;
  append(prefix, key);
  append(prefix, contextHash("msg", package.message));
  append(prefix, contextHash("com", encodeCommitments(package.commitments)));
  std::optional<Point> groupCommitment = package.adaptor;
  Scalar ownRho{};
  for (const auto& [id, c] : package.commitments) {
    Bytes input = prefix;
    append(input, id);
    Scalar rho = hashToScalar("rho", input);
    if (id == self) ownRho = rho;
    Point term = add(c.hiding, times(c.binding, rho));
    groupCommitment = groupCommitment ? add(*groupCommitment, term) : term;
  }
  // λ_i over the signer's group, at zero: Π x_j / (x_j − x_i).
  Bn lambda = mod.of(Scalar{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  for (const auto& other : package.group)
    if (other != self)
      lambda = mod.mul(lambda,
                       mod.mul(mod.of(other), mod.inverse(mod.sub(mod.of(other), mod.of(self)))));
  // c = H2(R.x ‖ P.x ‖ m), BIP-340's challenge.
  Bytes challengeInput;
  append(challengeInput, xOf(*groupCommitment), 32);
  append(challengeInput, xOf(key), 32);
  append(challengeInput, package.message);
  Scalar challenge = taggedScalar("BIP0340/challenge", challengeInput, mod);
  // An odd R is negated in the signature, so the nonces that sum to it are too.
  SecretBytes hiding = copyOf(nonces.hiding), binding = copyOf(nonces.binding);
  if (oddY(*groupCommitment)) {
    hiding = minus(hiding);
    binding = minus(binding);
  }
  SecretBytes z = plus(plus(hiding, product(binding, secretOf(ownRho))),
                       product(product(share, secretOf(ModN::bytes(lambda))), secretOf(challenge)));
  Scalar out{};
  std::copy(z.bytes().begin(), z.bytes().end(), out.begin());
  return out;
}

const Scalar& sparkUserIdentifier() {
  static const Scalar user = derivedIdentifier("user");
  return user;
}

Scalar signAsSparkUser(const Bytes& message, const SecretBytes& key, const Nonces& nonces,
                       const Point& verifyingKey, const std::map<Scalar, Commitment>& operators,
                       const std::optional<Point>& adaptor) {
  const Scalar& user = sparkUserIdentifier();
  if (operators.count(user))
    throw std::invalid_argument("frost: an operator commitment is under the user's identifier");
  ModN mod;
  // The user's share follows the untweaked group key's parity; its key package then verifies
  // under the tweaked key P = even(V) + t·G, t = H_TapTweak(V.x) (BIP-341, no script tree).
  SecretBytes signingShare = oddY(verifyingKey) ? minus(key) : copyOf(key);
  Scalar tweak = taggedScalar("TapTweak", Bytes(xOf(verifyingKey), xOf(verifyingKey) + 32), mod);
  Point tweaked =
      add(oddY(verifyingKey) ? negated(verifyingKey) : verifyingKey,
          pointOf(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, secretOf(tweak))));
  SigningPackage package{message, operators, {user}, adaptor};
  package.commitments[user] = commitmentOf(nonces);
  return signShare(package, user, nonces, signingShare, tweaked);
}

}  // namespace signing::frost
