// EIP-712 digests: the EIP's own Mail example, and a richer case (arrays, fixed arrays,
// signed and wide integers as strings, bytesN, bytes, bool, a derived domain type) checked
// against viem's hashTypedData; EIP-7702 authorization digests against viem's
// hashAuthorization.
#include <gtest/gtest.h>

#include "chains/ethereum/eip712.hpp"
#include "signet/error.hpp"

using namespace signet;

namespace {
std::string hex(const crypto::Digest& d) {
  return "0x" + crypto::toHex(d);
}
}  // namespace

TEST(Eip712, MailExampleOfTheEip) {
  auto typed = json::parseObject(R"({
    "types": {
      "EIP712Domain": [{"name":"name","type":"string"},{"name":"version","type":"string"},
                       {"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
      "Person": [{"name":"name","type":"string"},{"name":"wallet","type":"address"}],
      "Mail": [{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},
    "primaryType": "Mail",
    "domain": {"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
    "message": {"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
                "to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
                "contents":"Hello, Bob!"}})",
                                 "t");
  EXPECT_EQ(hex(signing::eip712Digest(typed)),
            "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2");
}

TEST(Eip712, RicherTypesAsViemHashesThem) {
  auto typed = json::parseObject(R"({
    "types": {
      "Order": [{"name":"maker","type":"address"},{"name":"amounts","type":"uint256[]"},
                {"name":"delta","type":"int64"},{"name":"tag","type":"bytes4"},
                {"name":"data","type":"bytes"},{"name":"ok","type":"bool"},{"name":"legs","type":"Leg[2]"}],
      "Leg": [{"name":"id","type":"uint8"},{"name":"note","type":"string"}]},
    "primaryType": "Order",
    "domain": {"name":"Rich","chainId":"0xa"},
    "message": {"maker":"0x0000000000000000000000000000000000000001",
                "amounts":["1","1000000000000000000000"],"delta":"-5","tag":"0xdeadbeef",
                "data":"0x0102","ok":true,"legs":[{"id":1,"note":"a"},{"id":"2","note":"b"}]}})",
                                 "t");
  EXPECT_EQ(hex(signing::eip712Digest(typed)),
            "0xea2f33ad8c314846d791eb7a9c941bdb2b1ad7ad9fac6a06bf5bb6129f96d6b1");
  typed->getObject("message")->set("delta", "99999999999999999999");  // beyond int64
  EXPECT_THROW(signing::eip712Digest(typed), Error);
}

TEST(Eip7702, AuthorizationDigests) {
  EXPECT_EQ(hex(signing::eip7702AuthorizationDigest(json::parseObject(
                R"({"address":"0x63c0c19a282a1b52b07dd5a65b58948a07dae32b","chainId":1,"nonce":0})",
                "t"))),
            "0xf743228656c74db57ce53cafe32c6023a8aad310a4bcc217d125f9f7796520fc");
  EXPECT_EQ(
      hex(signing::eip7702AuthorizationDigest(json::parseObject(
          R"({"address":"0x63c0c19a282a1b52b07dd5a65b58948a07dae32b","chainId":11155111,"nonce":300})",
          "t"))),
      "0xc51ff1df4639041d07cc334a301aa06293d854e9579d1e877711b67af97513be");
}

TEST(Eip712, ViemSerializationWithoutDomainType) {
  // viem's serializeTypedData drops the domain when types has no EIP712Domain.
  auto typed = json::parseObject(
      R"({"domain":{},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!","amount":"12345678901234567890"},"primaryType":"Mail","types":{"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"},{"name":"amount","type":"uint256"}]}})",
      "t");
  // An empty domain hashes as EIP712Domain() (viem's hashTypedData agrees).
  EXPECT_EQ(hex(signing::eip712Digest(typed)),
            "0xaa569266fd714a82a0e2778526cd89c0cb8301e2143375bc90828bfc060cc56c");
}
