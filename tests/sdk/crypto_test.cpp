#include <gtest/gtest.h>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

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
