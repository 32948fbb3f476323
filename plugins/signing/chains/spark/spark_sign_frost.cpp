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
frost::Point pointAt(const std::string& hex, const std::string& field) {
  return frost::pointOf(compressedSecp256k1Key(hex, field));
}

// Below the account: identity 0', leaf 1'/<leaf>', deposit 2', static deposit 3'/<index>',
// HTLC preimage 4' (the Spark SDK's DefaultSparkKeysGenerator).
std::vector<hd::Segment> keyPathOf(const SparkKeyDerivationParameters& d, uint32_t account,
                                   const std::string& path) {
  int named = 0;
  for (bool given : {d.identity.has_value(), d.signingLeaf.has_value(), d.deposit.has_value(),
                     d.staticDeposit.has_value(), d.htlcPreimage.has_value()})
    named += given ? 1 : 0;
  if (named != 1)
    throw invalidArgument("invalid field " + path +
                          ": name exactly one of identity, signingLeaf, deposit, staticDeposit, "
                          "htlcPreimage");
  if (d.signingLeaf) {
    const std::string& id = d.signingLeaf->leafId;
    if (id.empty()) throw invalidArgument("invalid field " + path + ".signingLeaf.leafId: empty");
    return sparkLeafPath(account, id);
  }
  std::vector<hd::Segment> keyPath{{kSparkPurpose, true}, {account, true}};
  if (d.staticDeposit) {
    const int64_t index = d.staticDeposit->index;
    if (index < 0 || index >= 0x80000000LL)
      throw invalidArgument("invalid field " + path + ".staticDeposit.index: " +
                            std::to_string(index) + " (expected 0 to 2^31 − 1)");
    keyPath.push_back({3, true});
    keyPath.push_back({static_cast<uint32_t>(index), true});
    return keyPath;
  }
  keyPath.push_back({d.identity ? 0u : d.deposit ? 2u : 4u, true});
  return keyPath;
}

SignatureRequest readRequest(const SparkSignatureRequestParameters& r, const std::string& at,
                             uint32_t account) {
  SignatureRequest out;
  out.keyPath = keyPathOf(r.derivation, account, at + ".derivation");
  auto message = fixedHex<frost::Scalar>(r.message, at + ".message", "a hex 32-byte sighash");
  out.message.assign(message.begin(), message.end());
  out.verifyingKey = pointAt(r.verifyingKey, at + ".verifyingKey");
  std::string adaptor = r.adaptorPublicKey.value_or("");
  if (!adaptor.empty()) out.adaptor = pointAt(adaptor, at + ".adaptorPublicKey");
  const std::string list = at + ".operatorCommitments";
  requireCount(r.operatorCommitments.size(), kMaxSparkOperators, list);
  for (size_t i = 0; i < r.operatorCommitments.size(); ++i) {
    const SparkOperatorCommitmentParameters& c = r.operatorCommitments[i];
    const std::string ct = list + "[" + std::to_string(i) + "]";
    auto id = fixedHex<frost::Scalar>(c.id, ct + ".id", "a hex 32-byte identifier");
    if (!frost::isScalar(id))
      throw invalidArgument("invalid field " + ct +
                            ".id: not a nonzero scalar below the group order");
    if (id == frost::sparkUserIdentifier())
      throw invalidArgument("invalid field " + ct +
                            ".id: it is the user's identifier, which the wallet signs "
                            "under; the commitments are the other participants'");
    if (!out.operators
             .emplace(id, frost::Commitment{pointAt(c.hiding, ct + ".hiding"),
                                            pointAt(c.binding, ct + ".binding")})
             .second)
      throw invalidArgument("invalid field " + ct + ".id: it appears twice");
  }
  return out;
}

const Shape<SparkStaticDepositParameters> kStaticDeposit = {
    field("index", &SparkStaticDepositParameters::index, {.decimal = true})};
using Derivation = SparkKeyDerivationParameters;
const Shape<Derivation> kDerivation = {
    field("identity", &Derivation::identity),
    field("signingLeaf", &Derivation::signingLeaf, sparkSigningLeafShape()),
    field("deposit", &Derivation::deposit),
    field("staticDeposit", &Derivation::staticDeposit, kStaticDeposit),
    field("htlcPreimage", &Derivation::htlcPreimage)};
const Shape<SparkOperatorCommitmentParameters> kOperatorCommitment = {
    field("id", &SparkOperatorCommitmentParameters::id),
    field("hiding", &SparkOperatorCommitmentParameters::hiding),
    field("binding", &SparkOperatorCommitmentParameters::binding)};
using SignatureParameters = SparkSignatureRequestParameters;
const Shape<SignatureParameters> kSignatureRequest = {
    field("derivation", &SignatureParameters::derivation, kDerivation),
    field("message", &SignatureParameters::message),
    field("verifyingKey", &SignatureParameters::verifyingKey),
    field("adaptorPublicKey", &SignatureParameters::adaptorPublicKey),
    field("operatorCommitments", &SignatureParameters::operatorCommitments, kOperatorCommitment)};

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

const Shape<SparkSignFrostParameters> kSparkSignFrost = {
    field("signWith", &SparkSignFrostParameters::signWith),
    field("signatures", &SparkSignFrostParameters::signatures, kSignatureRequest)};

Object sparkSignFrost(ActivityContext& ctx, const SparkSignFrostParameters& p) {
  SparkWallet wallet = openSparkWallet(ctx, p.signWith);
  requireCount(p.signatures.size(), kMaxSparkLeaves, "parameters.signatures");
  std::vector<SignatureRequest> requests;
  for (size_t i = 0; i < p.signatures.size(); ++i)
    requests.push_back(readRequest(
        p.signatures[i], "parameters.signatures[" + std::to_string(i) + "]", wallet.account));
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
