#include "chains/spark/spark_sign_frost.hpp"

#include "chains/spark/spark_intent.hpp"
#include "chains/spark/spark_keys.hpp"

namespace signing {

using namespace signet;
using crypto::SecretBytes;
using json::Object;

namespace {
struct SignatureRequest {
  std::vector<hd::Segment> keyPath;
  Bytes message;
  frost::Point verifyingKey{};
  std::map<frost::Scalar, frost::Commitment> operators;
  std::optional<frost::Point> adaptor;
};

template <typename Fixed>
Fixed fixedHex(const std::string& hex, const std::string& field, const char* what) {
  auto bytes = fromHex(hex);
  Fixed out{};
  if (!bytes || bytes->size() != out.size())
    throw invalidArgument("invalid field " + field + ": \"" + hex + "\" is not " + what);
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

// A point as every Spark activity reads one (compressedSecp256k1Key), in FROST's form.
frost::Point pointAt(const Object& o, const std::string& key, const std::string& path) {
  return frost::pointOf(compressedSecp256k1Key(o, key, path));
}

// Below the account: identity 0', leaf 1'/<leaf>', deposit 2', static deposit 3'/<index>',
// HTLC preimage 4' (the Spark SDK's DefaultSparkKeysGenerator).
std::vector<hd::Segment> keyPathOf(const Object& derivation, uint32_t account,
                                   const std::string& path) {
  std::string kind;
  Object value;
  int named = 0;
  for (const char* k : {"identity", "signingLeaf", "deposit", "staticDeposit", "htlcPreimage"})
    if (auto v = json::optionalObject(derivation, k, path)) {
      kind = k;
      value = v;
      ++named;
    }
  if (named != 1)
    throw invalidArgument("invalid field " + path +
                          ": name exactly one of identity, signingLeaf, deposit, staticDeposit, "
                          "htlcPreimage");
  const std::string at = path + "." + kind;
  if (kind == "signingLeaf") {
    std::string id = json::requireString(value, "leafId", at);
    if (id.empty()) throw invalidArgument("invalid field " + at + ".leafId: empty");
    return sparkLeafPath(account, id);
  }
  std::vector<hd::Segment> keyPath{{kSparkPurpose, true}, {account, true}};
  if (kind == "staticDeposit") {
    auto given = json::optionalInt64String(value, "index", at);
    if (!given) throw invalidArgument("missing required field " + at + ".index");
    int64_t index = *given;
    if (index < 0 || index >= 0x80000000LL)
      throw invalidArgument("invalid field " + at + ".index: " + std::to_string(index) +
                            " (expected 0 to 2^31 − 1)");
    keyPath.push_back({3, true});
    keyPath.push_back({static_cast<uint32_t>(index), true});
    return keyPath;
  }
  keyPath.push_back({kind == "identity" ? 0u : kind == "deposit" ? 2u : 4u, true});
  return keyPath;
}

SignatureRequest readRequest(const Object& r, const std::string& at, uint32_t account) {
  SignatureRequest out;
  out.keyPath = keyPathOf(json::requireObject(r, "derivation", at), account, at + ".derivation");
  auto message = fixedHex<frost::Scalar>(json::requireString(r, "message", at), at + ".message",
                                         "a hex 32-byte sighash");
  out.message.assign(message.begin(), message.end());
  out.verifyingKey = pointAt(r, "verifyingKey", at);
  std::string adaptor = json::optionalString(r, "adaptorPublicKey", at).value_or("");
  if (!adaptor.empty()) out.adaptor = pointAt(r, "adaptorPublicKey", at);
  eachEntry(r, "operatorCommitments", at, kMaxSparkOperators,
            [&](const Object& c, const std::string& ct) {
              auto id = fixedHex<frost::Scalar>(json::requireString(c, "id", ct), ct + ".id",
                                                "a hex 32-byte identifier");
              if (!frost::isScalar(id))
                throw invalidArgument("invalid field " + ct +
                                      ".id: not a nonzero scalar below the group order");
              if (id == frost::sparkUserIdentifier())
                throw invalidArgument("invalid field " + ct +
                                      ".id: it is the user's identifier, which the wallet signs "
                                      "under; the commitments are the other participants'");
              if (!out.operators
                       .emplace(id, frost::Commitment{pointAt(c, "hiding", ct),
                                                      pointAt(c, "binding", ct)})
                       .second)
                throw invalidArgument("invalid field " + ct + ".id: it appears twice");
            });
  return out;
}

}  // namespace

frost::Nonces sparkFrostNonces(const SecretBytes& key, const Bytes& message,
                               const frost::Point& verifyingKey,
                               const std::optional<frost::Point>& adaptor,
                               const Bytes& operatorCommitments) {
  auto nonce = [&](const std::string& label) {
    // The adaptor is present or not (a byte says which), so that no two inputs read alike.
    Bytes bound(label.begin(), label.end());
    bound.insert(bound.end(), message.begin(), message.end());
    bound.insert(bound.end(), verifyingKey.begin(), verifyingKey.end());
    bound.push_back(adaptor ? 1 : 0);
    if (adaptor) bound.insert(bound.end(), adaptor->begin(), adaptor->end());
    bound.insert(bound.end(), operatorCommitments.begin(), operatorCommitments.end());
    auto seed = crypto::hmacSha256(key.bytes(), bound.data(), bound.size());
    Bytes input(seed.size() + key.size());  // sized once: no copy of the key left behind
    crypto::WipeOnExit wipeSeed(seed);
    crypto::WipeOnExit wipeInput(input);
    std::copy(seed.begin(), seed.end(), input.begin());
    std::copy(key.bytes().begin(), key.bytes().end(), input.begin() + seed.size());
    auto scalar = frost::hashToScalar("nonce", input);
    crypto::WipeOnExit wipeScalar(scalar);
    return SecretBytes(Bytes(scalar.begin(), scalar.end()));
  };
  return {nonce("signet spark frost hiding"), nonce("signet spark frost binding")};
}

Object sparkSignFrost(ActivityContext& ctx, const Object& p) {
  SparkWallet wallet = openSparkWallet(ctx, p);
  std::vector<SignatureRequest> requests;
  eachEntry(p, "signatures", "parameters", kMaxSparkLeaves,
            [&](const Object& r, const std::string& at) {
              requests.push_back(readRequest(r, at, wallet.account));
            });
  json::Array signatures = json::array();
  for (size_t i = 0; i < requests.size(); ++i) {
    const SignatureRequest& r = requests[i];
    SecretBytes key = hd::derive(crypto::Curve::kSecp256k1, wallet.seed, r.keyPath).privateKey;
    frost::Nonces nonces = sparkFrostNonces(key, r.message, r.verifyingKey, r.adaptor,
                                            frost::encodeCommitments(r.operators));
    frost::Scalar share{};
    try {
      share =
          frost::signAsSparkUser(r.message, key, nonces, r.verifyingKey, r.operators, r.adaptor);
    } catch (const std::invalid_argument& e) {  // a sum at the identity: points chosen to cancel
      throw invalidArgument("invalid field parameters.signatures[" + std::to_string(i) +
                            "]: " + e.what());
    }
    frost::Commitment own = frost::commitmentOf(nonces);
    Object out = json::object();
    out->set("signatureShare", toHex(share.data(), share.size()));
    out->set("hiding", toHex(own.hiding.data(), own.hiding.size()));
    out->set("binding", toHex(own.binding.data(), own.binding.size()));
    signatures->add(out);
  }
  Object out = json::object();
  out->set("signatures", signatures);
  return out;
}

}  // namespace signing
