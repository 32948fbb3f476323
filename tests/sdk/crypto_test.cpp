#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"
#include "signet/json.hpp"

using namespace signet;

TEST(Keccak, PublishedVectors) {
  EXPECT_EQ(crypto::toHex(crypto::keccak256("")),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  EXPECT_EQ(crypto::toHex(crypto::keccak256("abc")),
            "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
  // Longer than one 136-byte block.
  std::string longInput(200, 'a');
  EXPECT_EQ(crypto::toHex(crypto::keccak256(longInput)).size(), 64u);
  EXPECT_NE(crypto::keccak256(longInput), crypto::keccak256(std::string(199, 'a')));
}

TEST(Encoding, HexAndBase64Url) {
  EXPECT_EQ(toHex(*fromHex("0xDEADbeef")), "deadbeef");
  EXPECT_FALSE(fromHex("abc"));
  EXPECT_FALSE(fromHex("zz"));
  EXPECT_EQ(base64UrlEncode(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(toString(*base64Decode("aGVsbG8=")), "hello");
  EXPECT_EQ(toString(*base64Decode("aGVsbG8")), "hello");
  EXPECT_FALSE(base64Decode("a"));
}

// RFC 4648 §10's vectors for standard base64, and RFC 3986's unreserved set kept as is.
TEST(Encoding, Base64AndPercentEncoding) {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) EXPECT_EQ(base64Encode(plain), encoded) << plain;
  EXPECT_EQ(base64Encode(std::string("\xfb\xff", 2)), "+/8=");
  EXPECT_EQ(percentEncode("aZ09-._~"), "aZ09-._~");
  EXPECT_EQ(percentEncode("a b+c/=?&\xc3\xa9"), "a%20b%2Bc%2F%3D%3F%26%C3%A9");
  EXPECT_EQ(formEncode({{"apiKey", "pk_test"}, {"walletAddress", "0xab"}, {"x y", "1&2"}}),
            "apiKey=pk_test&walletAddress=0xab&x%20y=1%262");
}

TEST(Curves, PointValidation) {
  // The P-256 fixture key, then the same x with a wrong parity bit (still a point), then an
  // x that is not on the curve.
  auto good = *fromHex("02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316");
  EXPECT_TRUE(crypto::normalizePublicKey(crypto::Curve::kP256, good));
  auto uncompressed = crypto::uncompressPublicKey(crypto::Curve::kP256, good);
  EXPECT_EQ(uncompressed.size(), 65u);
  EXPECT_EQ(*crypto::normalizePublicKey(crypto::Curve::kP256, uncompressed), good);
  auto bad = good;
  bad[32] ^= 0x01;
  bool anyInvalid = false;
  for (int i = 0; i < 8 && !anyInvalid; ++i) {
    bad[32] ^= static_cast<uint8_t>(i);
    anyInvalid = !crypto::normalizePublicKey(crypto::Curve::kP256, bad);
  }
  EXPECT_TRUE(anyInvalid);
  Bytes beyondField(33, 0xff);  // x >= p is never a coordinate
  beyondField[0] = 0x02;
  EXPECT_FALSE(crypto::normalizePublicKey(crypto::Curve::kSecp256k1, beyondField));
  // Ed25519: y = 2 is not on the curve (no square root); y = 1 (the identity encoding) is.
  Bytes y2(32, 0);
  y2[0] = 2;
  EXPECT_FALSE(crypto::normalizePublicKey(crypto::Curve::kEd25519, y2));
  Bytes y1(32, 0);
  y1[0] = 1;
  EXPECT_TRUE(crypto::normalizePublicKey(crypto::Curve::kEd25519, y1));
}

TEST(Aead, SealOpenAndTamper) {
  crypto::SecretBytes key(crypto::randomBytes(32));
  auto nonce = crypto::randomBytes(12);
  std::string msg = "mnemonic words";
  auto sealed = crypto::aesGcmSeal(key, nonce, reinterpret_cast<const uint8_t*>(msg.data()),
                                   msg.size(), toBytes("aad"));
  auto opened = crypto::aesGcmOpen(key, nonce, sealed, toBytes("aad"));
  ASSERT_TRUE(opened);
  EXPECT_EQ(toString(opened->bytes()), msg);
  EXPECT_FALSE(crypto::aesGcmOpen(key, nonce, sealed, toBytes("other")));
  sealed[0] ^= 1;
  EXPECT_FALSE(crypto::aesGcmOpen(key, nonce, sealed, toBytes("aad")));
}

TEST(Uuid, Format) {
  auto id = crypto::uuidV4();
  EXPECT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(id, crypto::uuidV4());
}

TEST(Uuid, IdsStayDistinctAcrossRefillsOfTheirPoolAndWellFormed) {
  std::set<std::string> seen;
  for (int i = 0; i < 5000; ++i) {  // a pool holds 32 ids' bytes: many refills
    auto id = i % 2 ? crypto::uuidV4() : crypto::uuidV7(1764000000000);
    ASSERT_TRUE(json::isUuid(id)) << id;
    ASSERT_EQ(id.find_first_not_of("0123456789abcdef-"), std::string::npos) << id;
    ASSERT_TRUE(seen.insert(id).second) << "repeated " << id;
  }
}

// The pools are per process: a forked child must not hand out the ids its parent hands out
// next, which it would if it inherited the parent's pool.
TEST(Uuid, AForkedChildDoesNotRepeatItsParentsNextIds) {
  crypto::uuidV4();  // the pool now holds bytes that the child would inherit
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string id = crypto::uuidV4();
    [[maybe_unused]] auto n = write(fds[1], id.data(), id.size());
    _exit(0);
  }
  close(fds[1]);
  std::string parents = crypto::uuidV4();
  char buf[64] = {};
  ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(n, 36);
  EXPECT_NE(std::string(buf, 36), parents);
}

// RFC 9562 appendix A.6's example: 2022-02-22 19:22:22 UTC is 0x017F22E279B0 ms, the first 48
// bits; then the version 7, and the variant 10 in the top bits of the ninth byte.
TEST(Uuid, Version7CarriesTheMillisecondsFirstAndSortsByThem) {
  auto id = crypto::uuidV7(0x017F22E279B0);
  EXPECT_EQ(id.substr(0, 13), "017f22e2-79b0");
  EXPECT_EQ(id[14], '7');
  EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
  EXPECT_TRUE(json::isUuid(id));
  EXPECT_NE(id, crypto::uuidV7(0x017F22E279B0));  // 74 random bits after the time
  // Later milliseconds sort after earlier ones, as strings too (what a TEXT index compares).
  std::string previous;
  for (int64_t ms : {int64_t{0}, int64_t{1}, int64_t{255}, int64_t{256}, int64_t{1} << 40,
                     int64_t{1764000000000}, (int64_t{1} << 48) - 1}) {
    std::string next = crypto::uuidV7(ms);
    EXPECT_LT(previous, next) << ms;
    previous = next;
  }
  EXPECT_EQ(crypto::uuidV7(-5).substr(0, 13), "00000000-0000");  // before 1970: the first
}

// RFC 5869 appendix A, test cases 1 (salt and info) and 3 (neither: the zero salt).
TEST(Hkdf, Rfc5869Vectors) {
  Bytes ikm(22, 0x0b);
  EXPECT_EQ(toHex(crypto::hkdfSha256(*fromHex("000102030405060708090a0b0c"), ikm,
                                     *fromHex("f0f1f2f3f4f5f6f7f8f9"), 42)
                      .bytes()),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  EXPECT_EQ(toHex(crypto::hkdfSha256({}, ikm, {}, 42).bytes()),
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
}

// Plain BIP-340 verifies under the key's own x-only public key; the Taproot form does not.
TEST(Schnorr, PlainSignaturesVerifyUnderTheUntweakedKey) {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kSecp256k1);
  Bytes pub = crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, priv);
  Bytes xonly(pub.begin() + 1, pub.end());
  auto message = crypto::sha256(std::string_view("spark"));
  EXPECT_TRUE(crypto::verifySchnorr(xonly, message, crypto::signSchnorr(priv, message)));
  EXPECT_FALSE(crypto::verifySchnorr(xonly, message, crypto::signTaprootKeyPath(priv, message)));
  EXPECT_TRUE(crypto::verifySchnorr(*crypto::taprootOutputKey(pub), message,
                                    crypto::signTaprootKeyPath(priv, message)));
}

// secp256k1 scalars: (a − b) + b = a, a shared point is the same from either side, zero results
// and non-scalars are refused.
TEST(Secp256k1, ScalarArithmeticAndSharedPoints) {
  const auto k1 = crypto::Curve::kSecp256k1;
  auto a = crypto::generatePrivateKey(k1), b = crypto::generatePrivateKey(k1);
  auto diff = crypto::addScalarsSecp256k1(a, *crypto::negateScalarSecp256k1(b));
  ASSERT_TRUE(diff);
  EXPECT_EQ(crypto::addScalarsSecp256k1(*diff, b)->bytes(), a.bytes());
  EXPECT_FALSE(crypto::addScalarsSecp256k1(a, *crypto::negateScalarSecp256k1(a)));
  crypto::SecretBytes two(*fromHex(std::string(63, '0') + "2"));
  EXPECT_EQ(crypto::mulScalarsSecp256k1(a, two)->bytes(),
            crypto::addScalarsSecp256k1(a, a)->bytes());
  EXPECT_FALSE(crypto::mulScalarsSecp256k1(a, crypto::SecretBytes(Bytes(32, 0))));
  auto ab = crypto::sharedPointSecp256k1(a, crypto::publicKeyFromPrivate(k1, b));
  ASSERT_TRUE(ab);
  EXPECT_EQ(ab->size(), 65u);
  EXPECT_EQ(*ab, *crypto::sharedPointSecp256k1(b, crypto::publicKeyFromPrivate(k1, a)));
  EXPECT_FALSE(crypto::sharedPointSecp256k1(a, Bytes(33, 7)));
}

// A secret in a plain buffer is wiped when its scope ends by a throw mid-use, not only on the
// way out that a hand-written wipe would cover. (The buffers outlive the guards, so that the
// test may look at them; under ASan this also checks the guard touches only what it owns.)
TEST(WipeOnExit, WipesTheBufferWhenItsScopeEndsByAThrow) {
  std::string hex(64, 'a');  // longer than any short-string buffer: on the heap
  Bytes scratch(32, 0x5a);
  try {
    crypto::WipeOnExit wipeHex(hex);
    crypto::WipeOnExit wipeScratch(scratch);
    throw std::runtime_error("the call between the secret and its wipe threw");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(hex, std::string(64, '\0'));
  EXPECT_EQ(scratch, Bytes(32, 0));
}
