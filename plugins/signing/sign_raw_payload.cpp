#include "sign_raw_payload.hpp"

#include "chains/ethereum/eip712.hpp"
#include "keys/key_material.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
struct Request {
  std::string encoding, hashFunction;
};

Bytes decodePayload(const std::string& payload, const std::string& encoding,
                    const std::string& field) {
  if (encoding == "PAYLOAD_ENCODING_HEXADECIMAL") {
    auto bytes = fromHex(payload);
    if (!bytes) throw invalidArgument("invalid field " + field + ": not hex");
    return *bytes;
  }
  if (encoding == "PAYLOAD_ENCODING_TEXT_UTF8") return toBytes(payload);
  // Typed data and authorizations are hashed here, into the 32-byte digest NO_OP signs.
  if (encoding == "PAYLOAD_ENCODING_EIP712") {
    auto d = eip712Digest(json::parseObject(payload, field));
    return Bytes(d.begin(), d.end());
  }
  if (encoding == "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
    auto d = eip7702AuthorizationDigest(json::parseObject(payload, field));
    return Bytes(d.begin(), d.end());
  }
  throw invalidArgument("invalid field parameters.encoding: \"" + encoding + "\"");
}

std::string combination(crypto::Curve curve, const Request& r) {
  return std::string(crypto::curveName(curve)) + " with " + r.encoding + " and " + r.hashFunction;
}

Object signOne(const SigningKey& key, const Bytes& message, const Request& r) {
  auto fail = [&]() -> Object {
    throw failedPrecondition("unsupported signing combination: " + combination(key.curve, r));
  };
  Object out = json::object();
  auto put = [&](const uint8_t* rs, int v) {
    out->set("r", toHex(rs, 32));
    out->set("s", toHex(rs + 32, 32));
    out->set("v", v == 0 ? "00" : "01");
  };
  if (key.curve == crypto::Curve::kEd25519) {
    if (r.hashFunction != "HASH_FUNCTION_NOT_APPLICABLE") return fail();
    Bytes sig = crypto::signEd25519(key.privateKey, message.data(), message.size());
    put(sig.data(), 0);
    return out;
  }
  bool structured = r.encoding == "PAYLOAD_ENCODING_EIP712" ||
                    r.encoding == "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION";
  if (structured && (r.hashFunction != "HASH_FUNCTION_NO_OP" ||
                     key.curve != crypto::Curve::kSecp256k1 || key.taproot || key.schnorr))
    return fail();
  crypto::Digest digest;
  if (r.hashFunction == "HASH_FUNCTION_NO_OP") {
    if (message.size() != 32)
      throw invalidArgument(
          "invalid field parameters.payload: HASH_FUNCTION_NO_OP signs a 32-byte "
          "digest, got " +
          std::to_string(message.size()) + " bytes");
    std::copy(message.begin(), message.end(), digest.begin());
  } else if (r.hashFunction == "HASH_FUNCTION_SHA256") {
    digest = crypto::sha256(message);
  } else if (r.hashFunction == "HASH_FUNCTION_KECCAK256") {
    digest = crypto::keccak256(message.data(), message.size());
  } else {
    return fail();
  }
  if (key.curve == crypto::Curve::kSecp256k1 && (key.taproot || key.schnorr)) {
    Bytes sig = key.taproot ? crypto::signTaprootKeyPath(key.privateKey, digest)
                            : crypto::signSchnorr(key.privateKey, digest);
    put(sig.data(), 0);
  } else if (key.curve == crypto::Curve::kSecp256k1) {
    auto rec = crypto::signSecp256k1Recoverable(key.privateKey, digest);
    Bytes rs(rec.sig.r.begin(), rec.sig.r.end());
    rs.insert(rs.end(), rec.sig.s.begin(), rec.sig.s.end());
    put(rs.data(), rec.recoveryId);
  } else {
    auto sig = crypto::signEcdsa(crypto::Curve::kP256, key.privateKey, digest);
    Bytes rs(sig.r.begin(), sig.r.end());
    rs.insert(rs.end(), sig.s.begin(), sig.s.end());
    put(rs.data(), 0);
  }
  return out;
}

}  // namespace

using P1 = SignRawPayloadParameters;
const Shape<P1> kSignRawPayload = {field("signWith", &P1::signWith), field("payload", &P1::payload),
                                   field("encoding", &P1::encoding),
                                   field("hashFunction", &P1::hashFunction)};
using PN = SignRawPayloadsParameters;
const Shape<PN> kSignRawPayloads = {
    field("signWith", &PN::signWith), field("payloads", &PN::payloads),
    field("encoding", &PN::encoding), field("hashFunction", &PN::hashFunction)};

Object signRawPayload(ActivityContext& ctx, const SignRawPayloadParameters& p) {
  Request r{p.encoding, p.hashFunction};
  Bytes message = decodePayload(p.payload, r.encoding, "parameters.payload");
  SigningKey key = resolveSignWith(ctx, p.signWith);
  return signOne(key, message, r);
}

Object signRawPayloads(ActivityContext& ctx, const SignRawPayloadsParameters& p) {
  if (p.payloads.empty())
    throw invalidArgument("invalid field parameters.payloads: must not be empty");
  Request r{p.encoding, p.hashFunction};
  std::vector<Bytes> messages;
  for (size_t i = 0; i < p.payloads.size(); ++i)
    messages.push_back(
        decodePayload(p.payloads[i], r.encoding, "parameters.payloads[" + std::to_string(i) + "]"));
  SigningKey key = resolveSignWith(ctx, p.signWith);
  json::Array signatures =
      json::array();  // in input order: Solana's signAllTransactions relies on it
  for (const auto& m : messages) signatures->add(signOne(key, m, r));
  Object out = json::object();
  out->set("signatures", signatures);
  return out;
}

}  // namespace signing
