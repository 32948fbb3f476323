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

// Scalars mod n with OpenSSL's big numbers; every value is cleared when freed, since nonces
// and shares pass through.
struct BnFree {
  void operator()(BIGNUM* b) const { BN_clear_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
struct CtxFree {
  void operator()(BN_CTX* c) const { BN_CTX_free(c); }
};

class ModN {
 public:
  ModN() : ctx_(BN_CTX_secure_new()) {
    static const uint8_t order[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
                                      0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b,
                                      0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41};
    n_.reset(BN_bin2bn(order, 32, nullptr));
    if (!ctx_ || !n_) throw std::bad_alloc();
  }
  // Any big-endian bytes, reduced mod n.
  Bn of(const uint8_t* data, size_t size) {
    Bn v(BN_secure_new());
    if (!v || !BN_bin2bn(data, static_cast<int>(size), v.get()) ||
        !BN_nnmod(v.get(), v.get(), n_.get(), ctx_.get()))
      throw std::runtime_error("frost: scalar arithmetic failed");
    return v;
  }
  Bn of(const Scalar& s) { return of(s.data(), s.size()); }
  Bn of(const SecretBytes& s) { return of(s.bytes().data(), s.size()); }
  Bn add(const Bn& a, const Bn& b) { return op(a, b, BN_mod_add); }
  Bn sub(const Bn& a, const Bn& b) { return op(a, b, BN_mod_sub); }
  Bn mul(const Bn& a, const Bn& b) { return op(a, b, BN_mod_mul); }
  Bn neg(const Bn& a) {
    Bn zero(BN_secure_new());
    if (!zero) throw std::bad_alloc();
    BN_zero(zero.get());
    return sub(zero, a);
  }
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
    Bn v(BN_secure_new());
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
Point generatorTimes(const uint8_t* scalar) {
  secp256k1_pubkey key;
  if (!secp256k1_ec_pubkey_create(k1(), &key, scalar))
    throw std::invalid_argument("frost: a zero scalar");
  return serialize(key);
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

crypto::Digest sha256Of(std::initializer_list<std::pair<const uint8_t*, size_t>> parts) {
  Bytes all;
  for (const auto& [data, size] : parts) append(all, data, size);
  return crypto::sha256(all);
}
const uint8_t* bytesOf(std::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// BIP-340's tagged hash, reduced mod n as the crate's hasher_to_scalar does.
Scalar taggedScalar(std::string_view tag, const Bytes& message, ModN& mod) {
  auto tagHash = crypto::sha256(tag);
  Bytes all;
  append(all, tagHash);
  append(all, tagHash);
  append(all, message);
  auto digest = crypto::sha256(all);
  return ModN::bytes(mod.of(digest.data(), digest.size()));
}

// H4 and H5: SHA-256 over the context, the tag and the message.
crypto::Digest contextHash(std::string_view tag, const Bytes& message) {
  return sha256Of({{bytesOf(kContext), kContext.size()},
                   {bytesOf(tag), tag.size()},
                   {message.data(), message.size()}});
}

}  // namespace

Scalar hashToScalar(std::string_view tag, const Bytes& message) {
  // expand_message_xmd(SHA-256) to 48 bytes (L for a 256-bit order at k = 128), then mod n.
  Bytes dst(kContext.begin(), kContext.end());
  dst.insert(dst.end(), tag.begin(), tag.end());
  dst.push_back(static_cast<uint8_t>(dst.size()));
  Bytes first(64, 0);
  append(first, message);
  first.insert(first.end(), {0, 48, 0});
  append(first, dst);
  auto b0 = crypto::sha256(first);
  Bytes second;
  append(second, b0);
  second.push_back(1);
  append(second, dst);
  auto b1 = crypto::sha256(second);
  Bytes third;
  for (size_t i = 0; i < 32; ++i) third.push_back(b0[i] ^ b1[i]);
  third.push_back(2);
  append(third, dst);
  auto b2 = crypto::sha256(third);
  Bytes okm;
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

bool isScalar(const Scalar& bytes) {
  return secp256k1_ec_seckey_verify(k1(), bytes.data()) == 1;
}

bool isPoint(const Point& bytes) {
  secp256k1_pubkey key;
  return secp256k1_ec_pubkey_parse(k1(), &key, bytes.data(), bytes.size()) == 1;
}

Commitment commitmentOf(const Nonces& nonces) {
  return {generatorTimes(nonces.hiding.bytes().data()),
          generatorTimes(nonces.binding.bytes().data())};
}

Scalar signShare(const SigningPackage& package, const Scalar& self, const Nonces& nonces,
                 const SecretBytes& signingShare, const Point& verifyingKey) {
  if (!package.commitments.count(self) || !package.group.count(self))
    throw std::invalid_argument("frost: the signer is not in the signing package");
  ModN mod;
  // pre_sign: a BIP-340 key is even, so an odd verifying key negates the share with it.
  Bn share = mod.of(signingShare);
  Point key = verifyingKey;
  if (oddY(key)) {
    share = mod.neg(share);
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
  Bn challenge = mod.of(taggedScalar("BIP0340/challenge", challengeInput, mod));
  // An odd R is negated in the signature, so the nonces that sum to it are too.
  Bn hiding = mod.of(nonces.hiding), binding = mod.of(nonces.binding);
  if (oddY(*groupCommitment)) {
    hiding = mod.neg(hiding);
    binding = mod.neg(binding);
  }
  Bn z = mod.add(mod.add(hiding, mod.mul(binding, mod.of(ownRho))),
                 mod.mul(mod.mul(lambda, share), challenge));
  return ModN::bytes(z);
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
  Bn share = mod.of(key);
  if (oddY(verifyingKey)) share = mod.neg(share);
  Scalar tweak = taggedScalar("TapTweak", Bytes(xOf(verifyingKey), xOf(verifyingKey) + 32), mod);
  Point tweaked =
      add(oddY(verifyingKey) ? negated(verifyingKey) : verifyingKey, generatorTimes(tweak.data()));
  SigningPackage package{message, operators, {user}, adaptor};
  package.commitments[user] = commitmentOf(nonces);
  Scalar shareBytes = ModN::bytes(share);
  SecretBytes signingShare(Bytes(shareBytes.begin(), shareBytes.end()));
  crypto::wipe(shareBytes.data(), shareBytes.size());
  return signShare(package, user, nonces, signingShare, tweaked);
}

}  // namespace signing::frost
