#include "support/auth_fixtures.hpp"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "signet/bundles.hpp"
#include "signet/jwt.hpp"
#include "support/secret_witness.hpp"

namespace signet::test {

std::shared_ptr<ApiKeyStamper> SessionKey::stamper() const {
  return std::make_shared<ApiKeyStamper>(crypto::SecretBytes(privateKey.bytes()),
                                         stamp::Scheme::kP256);
}

SessionKey newSessionKey() {
  SessionKey k;
  k.privateKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  witnessSecret("session private key", toHex(k.privateKey.bytes()));
  k.publicKey = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, k.privateKey));
  return k;
}

void enableFeature(TestGateway& gw, const std::string& name, const std::string& value) {
  json::Object p = json::object();
  p->set("name", name);
  p->set("value", value);
  resultOf(
      gw.rootClient().submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                             gw.root().organizationId, p),
      "setOrganizationFeatureResult");
}

SubOrganization createSubOrganization(TestGateway& gw, const std::string& email,
                                      const std::string& phone, const json::Object& flags) {
  SubOrganization s;
  s.userKey = newKey();
  auto p = json::parseObject(
      R"({"subOrganizationName":"end user","rootQuorumThreshold":1,"rootUsers":[{"userName":"alice","userEmail":")" +
          email + R"(","userPhoneNumber":")" + phone +
          R"(","apiKeys":[{"apiKeyName":"own","publicKey":")" + s.userKey.publicKey +
          R"(","curveType":"API_KEY_CURVE_P256"}],"authenticators":[],"oauthProviders":[]}]})",
      "test");
  for (const auto& name : flags->getNames()) p->set(name, flags->get(name));
  auto r = resultOf(
      gw.rootClient().submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                             gw.root().organizationId, p),
      "createSubOrganizationResultV7");
  s.id = r->getValue<std::string>("subOrganizationId");
  s.userId = r->getArray("rootUserIds")->getElement<std::string>(0);
  return s;
}

std::pair<std::string, std::string> AttestedStamper::stamp(std::string_view body) {
  auto sig = crypto::signEcdsa(crypto::Curve::kP256, key_.privateKey, crypto::sha256(body));
  json::Object o = json::object();
  o->set("publicKeyAttestation", token_);
  o->set("scheme", scheme_);
  o->set("publicKey", key_.publicKey);
  o->set("signature", toHex(crypto::encodeDerSignature(sig)));
  return {"X-Stamp-Attested", base64UrlEncode(json::stringify(o))};
}

std::shared_ptr<ApiKeyStamper> stamperFromBundle(const SessionKey& target,
                                                 const std::string& credentialBundle) {
  auto key = bundles::openCredentialBundle(target.privateKey, credentialBundle);
  EXPECT_TRUE(key) << "the credential bundle does not open with the target key";
  if (key) witnessSecret("credential bundle key", toHex(key->bytes()));
  return key ? std::make_shared<ApiKeyStamper>(std::move(*key), stamp::Scheme::kP256) : nullptr;
}

std::string emailVerificationToken(TestGateway& gw, const std::string& email,
                                   const SessionKey& key) {
  json::Object init = json::object();
  init->set("otpType", "OTP_TYPE_EMAIL");
  init->set("contact", email);
  init->set("appName", "Demo");
  std::string otpId = resultOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                                      gw.root().organizationId, init),
                               "initOtpResult")
                          ->getValue<std::string>("otpId");
  json::Object v = json::object();
  v->set("otpId", otpId);
  v->set("otpCode", codeIn(newestOutboxMessage(gw)));
  v->set("publicKey", key.publicKey);
  std::string token = resultOf(gw.rootClient().submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP",
                                                      gw.root().organizationId, v),
                               "verifyOtpResult")
                          ->getValue<std::string>("verificationToken");
  witnessSecret("verification token", token);
  return token;
}

std::string codeIn(const std::string& message) {
  static const std::regex pattern(R"((?:code is: |Code: )([0-9A-Z]{6,9}))");
  std::smatch m;
  if (!std::regex_search(message, m, pattern)) return "";
  return m[1].str();
}

std::string newestOutboxMessage(const TestGateway& gw, const std::string& extension) {
  auto dir = gw.dataDir() / "outbox";
  for (int i = 0; i < 50; ++i) {
    std::filesystem::path newest;
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec))
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        if (name.size() > extension.size() &&
            name.compare(name.size() - extension.size(), extension.size(), extension) == 0 &&
            (newest.empty() || name > newest.filename().string()))
          newest = e.path();
      }
    if (!newest.empty()) {
      std::ifstream in(newest, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

json::Object loginClientSignature(const SessionKey& tokenKey, const std::string& verificationToken,
                                  const std::string& sessionPublicKey) {
  auto claims = jwt::decodeClaims(verificationToken);
  std::string message = R"({"login":{"publicKey":")" + sessionPublicKey + R"("},"tokenId":")" +
                        (*claims)->getValue<std::string>("id") + R"(","type":"USAGE_TYPE_LOGIN"})";
  auto sig = crypto::signEcdsa(crypto::Curve::kP256, tokenKey.privateKey, crypto::sha256(message));
  Bytes raw(sig.r.begin(), sig.r.end());
  raw.insert(raw.end(), sig.s.begin(), sig.s.end());
  json::Object o = json::object();
  o->set("publicKey", tokenKey.publicKey);
  o->set("scheme", "CLIENT_SIGNATURE_SCHEME_API_P256");
  o->set("message", message);
  o->set("signature", toHex(raw));
  return o;
}

json::Object gatewayJwtClaims(TestGateway& gw, const std::string& token, bool doubleHash) {
  auto claims =
      jwt::verifyEs256(token, *fromHex(gw.gateway().signerPublicKey()),
                       doubleHash ? jwt::Hashing::kDoubleSha256 : jwt::Hashing::kSingleSha256);
  EXPECT_TRUE(claims) << "does not verify under the gateway signer: " << token;
  return claims ? *claims : json::object();
}

}  // namespace signet::test
