// The stamp vectors of the official stampers' tests (tkhq/sdk api-key-stamper, tkhq/go-sdk
// stamper_test.go), plus the leniencies the gateway must keep.
#include <gtest/gtest.h>

#include "signet/json.hpp"
#include "signet/stamp.hpp"

using namespace signet;

namespace {
Bytes hex(const std::string& s) {
  return *fromHex(s);
}
}  // namespace

TEST(StampVectors, DocsStampDecodesAndVerifies) {
  const std::string header =
      "eyJwdWJsaWNLZXkiOiIwMzI3YTUwMDMyZTZmMDYzMWQ1NjA1YjZhZGEzMmI3NzkwNzRmMzQ2ZTgxYjY4ZTEyODAxNjQw"
      "ZjFjOWVlMDNkYWUiLCJzaWduYXR1cmUiOiIzMDQ0MDIyMDM2MjNkZWZkNjE4ZWIzZTIxOTk3MDQ5NjQwN2ViZTkyNDQ3"
      "MzE3ZGFkNzVlNDEyYmQ0YTYyNjdjM2I1ZTIyMjMwMjIwMjQ1Yjc0MDg0OGE3MmQwOGI2MGQ2Yzg0ZjMzOTczN2I2M2Ri"
      "M2JjYmFkYjNiZDBkY2IxYmZiODY1NzE1ZDhiNSIsInNjaGVtZSI6IlNJR05BVFVSRV9TQ0hFTUVfVEtfQVBJX1AyNTYi"
      "fQ";
  std::string error;
  auto s = stamp::decodeHeader(header, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->publicKey, "0327a50032e6f0631d5605b6ada32b779074f346e81b68e12801640f1c9ee03dae");
  EXPECT_EQ(s->scheme, "SIGNATURE_SCHEME_TK_API_P256");
  const std::string body = R"({"payload": "hello from TKHQ"})";
  EXPECT_TRUE(stamp::verify(stamp::Scheme::kP256, hex(s->publicKey), hex(s->signature), body));
  EXPECT_FALSE(stamp::verify(stamp::Scheme::kP256, hex(s->publicKey), hex(s->signature),
                             R"({"payload":"hello from TKHQ"})"));
  // Padded input decodes the same.
  auto padded = stamp::decodeHeader(header + "==", error);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->signature, s->signature);
}

TEST(StampVectors, FixtureKeyRfc6979Signature) {
  const std::string body = R"({"organizationId":"89881fc7-6ff3-4b43-b962-916698f8ff58"})";
  EXPECT_EQ(crypto::toHex(crypto::sha256(body)),
            "d6e4aee78fe66b8ce3b8599dfbb03066f8d2d49c93867efb19b7c42e45f28fe2");
  crypto::SecretBytes priv(hex("487f361ddfd73440e707f4daa6775b376859e8a3c9f29b3bb694a12927c0213c"));
  EXPECT_EQ(toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv)),
            "02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316");
  const std::string der =
      "3044022011b7c190037efe44fd52b78495748392c0ca18783529ea6d04111827e4acf0350220610500ff98fe8a"
      "41b147d4d466c3320cab5befbb14ba24ababab9fcd9eceea42";
  auto pub = hex("02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316");
  EXPECT_TRUE(stamp::verify(stamp::Scheme::kP256, pub, hex(der), body));
  // Our stamper's P-256 signatures use a random k (OpenSSL 3.0 has no RFC 6979), so check
  // that they verify and are low-S rather than comparing bytes.
  auto ours = stamp::sign(stamp::Scheme::kP256, priv, body);
  EXPECT_EQ(ours.publicKey, toHex(pub));
  EXPECT_TRUE(stamp::verify(stamp::Scheme::kP256, pub, hex(ours.signature), body));
  EXPECT_LT(crypto::parseDerSignature(hex(ours.signature))->s[0], 0x80);
}

TEST(StampVectors, Eip191WalletStamp) {
  const auto pub = hex("038318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed75");
  const auto sig = hex(
      "30440220487cdb8a88f2f4044b701cbb116075c4cabe5fe4657a6358b395c0aab70694db02203453a8057e442bd1"
      "aff0ecabe8a82c831f0edd7f2158b7c1feb3de9b1f20309b");
  EXPECT_TRUE(stamp::verify(stamp::Scheme::kSecp256k1Eip191, pub, sig, "MESSAGE"));
  EXPECT_FALSE(stamp::verify(stamp::Scheme::kSecp256k1, pub, sig, "MESSAGE"));
  crypto::SecretBytes priv(hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"));
  EXPECT_EQ(toHex(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, priv)), toHex(pub));
}

TEST(StampVectors, Eip191NonMinimalDerIsAccepted) {
  // TS toDerSignature copies 32-byte r and s verbatim and prefixes 00 only for a set top bit;
  // a leading zero byte in r then gives a non-minimal INTEGER. Build one and verify it.
  crypto::SecretBytes priv(hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"));
  auto pub = crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, priv);
  for (int i = 0; i < 2000; ++i) {
    std::string body = "message " + std::to_string(i);
    auto sig = crypto::signEcdsa(crypto::Curve::kSecp256k1, priv,
                                 stamp::messageDigest(stamp::Scheme::kSecp256k1Eip191, body));
    if (sig.r[0] != 0) continue;
    Bytes der{0x30, 0x44, 0x02, 0x20};
    der.insert(der.end(), sig.r.begin(), sig.r.end());
    der.insert(der.end(), {0x02, 0x20});
    der.insert(der.end(), sig.s.begin(), sig.s.end());
    EXPECT_TRUE(stamp::verify(stamp::Scheme::kSecp256k1Eip191, pub, der, body));
    return;
  }
  FAIL() << "no signature with a leading zero r byte in 2000 tries";
}

TEST(StampVectors, Ed25519Vector) {
  crypto::SecretBytes seed(hex("36868c5df554581c4658922960f9ff44aeea74deabfbc55a9a39a0098b4d2aaf"));
  auto pub = crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, seed);
  EXPECT_EQ(toHex(pub), "54dbf3006616c1afaec1ebceaa22a488b1856bfc7b0453a53fb097dd69fa64e5");
  const auto sig = hex(
      "097fc4ff4d37de666d3f49f679ea101a800ec6f3fa886a5034a98c3c2b3183af17c5b2f23326dcd833482a9c7ea4"
      "9ddad2c1c0823aee88bac72f93fcdc0a6901");
  EXPECT_TRUE(stamp::verify(stamp::Scheme::kEd25519, pub, sig, "hello from TKHQ!"));
  EXPECT_FALSE(stamp::verify(stamp::Scheme::kEd25519, pub, sig, "hello from TKHQ?"));
  EXPECT_EQ(stamp::sign(stamp::Scheme::kEd25519, seed, "hello from TKHQ!").signature, toHex(sig));
}

TEST(StampVectors, HighSIsAcceptedForP256AndSecp256k1) {
  for (auto scheme : {stamp::Scheme::kP256, stamp::Scheme::kSecp256k1}) {
    auto curve = stamp::curveOf(scheme);
    auto priv = crypto::generatePrivateKey(curve);
    auto pub = crypto::publicKeyFromPrivate(curve, priv);
    auto sig = crypto::signEcdsa(curve, priv, stamp::messageDigest(scheme, "body"));
    // s' = n - s is the same signature with a high S.
    const char* order = curve == crypto::Curve::kP256
                            ? "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
                            : "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
    auto n = hex(order);
    int borrow = 0;
    for (int i = 31; i >= 0; --i) {
      int v = n[i] - sig.s[i] - borrow;
      borrow = v < 0;
      sig.s[i] = static_cast<uint8_t>(v + (borrow ? 256 : 0));
    }
    EXPECT_GE(sig.s[0], 0x7f);
    EXPECT_TRUE(stamp::verify(scheme, pub, crypto::encodeDerSignature(sig), "body"))
        << stamp::schemeName(scheme);
  }
}

TEST(StampVectors, JsonKeyOrderIsFree) {
  // Go and Rust write publicKey, signature, scheme.
  std::string json =
      R"({"publicKey":"02aa","signature":"3001","scheme":"SIGNATURE_SCHEME_TK_API_P256"})";
  std::string error;
  auto s = stamp::decodeHeader(base64UrlEncode(json), error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->scheme, "SIGNATURE_SCHEME_TK_API_P256");
  EXPECT_FALSE(stamp::decodeHeader("!!!", error));
  EXPECT_FALSE(stamp::decodeHeader(base64UrlEncode(std::string(R"({"publicKey":"02"})")), error));
  EXPECT_NE(error.find("scheme"), std::string::npos);
}

namespace signet {
// decodeHeader reads the usual stamp without the JSON parser (stamp.cpp, plainStamp). Whatever
// the text, it must decode exactly as the parser reads it, or be refused as the parser refuses.
TEST(StampVectors, TheParserlessReadingAgreesWithTheParser) {
  const std::vector<std::string> texts = {
      R"({"publicKey":"02aa","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"3001"})",
      R"({"signature":"3001","publicKey":"02aa","scheme":"SIGNATURE_SCHEME_TK_API_P256"})",
      " {\n \"publicKey\" : \"02aa\" ,\t\"scheme\":\"S\", \"signature\":\"30\"\r\n} ",
      R"({"publicKey":"","scheme":"","signature":""})",
      R"({"publicKey":"02\u0061a","scheme":"S","signature":"30"})",  // an escape
      R"({"publicKey":"02aa","scheme":"S","signature":"30","extra":"1"})",
      R"({"publicKey":"02aa","publicKey":"02bb","scheme":"S","signature":"30"})",
      R"({"publicKey":"02aa","scheme":"S"})",
      R"({"publicKey":"02aa","scheme":"S","signature":30})",
      R"({"publicKey":"02 aa","scheme":"S","signature":"30"})",
      R"({"publicKey":"02aa","scheme":"S","signature":"30"} x)",
      R"({"publicKey":"02aa","scheme":"S","signature":"30",})",
      R"(["publicKey","02aa"])",
  };
  for (const auto& text : texts) {
    std::optional<stamp::ApiKeyStamp> expected;
    try {
      auto o = json::parseObject(text, "X-Stamp");
      expected = stamp::ApiKeyStamp{json::requireString(o, "publicKey", "X-Stamp"),
                                    json::requireString(o, "scheme", "X-Stamp"),
                                    json::requireString(o, "signature", "X-Stamp")};
    } catch (const std::exception&) {
    }
    std::string error;
    auto decoded = stamp::decodeHeader(base64UrlEncode(text), error);
    ASSERT_EQ(decoded.has_value(), expected.has_value()) << text << ": " << error;
    if (!expected) continue;
    EXPECT_EQ(decoded->publicKey, expected->publicKey) << text;
    EXPECT_EQ(decoded->scheme, expected->scheme) << text;
    EXPECT_EQ(decoded->signature, expected->signature) << text;
  }
}
}  // namespace signet
