#include "auth/attestation.hpp"

#include <cbor.h>

#include <memory>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace signet {

namespace {
constexpr const char* kTransports[] = {
    "AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL",
    "AUTHENTICATOR_TRANSPORT_NFC", "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID"};

struct CborFree {
  void operator()(cbor_item_t* item) const { cbor_decref(&item); }
};
using CborPtr = std::unique_ptr<cbor_item_t, CborFree>;

// Whether every length the first CBOR item of `data` declares fits in the bytes that follow its
// header, with definite lengths only (CTAP2's canonical form, which authenticators send) and
// at most 16 levels. libcbor's cbor_load allocates, and clears, what a header declares before
// it reads a single element: ten bytes declaring an array of a billion items made it commit
// gigabytes (the attestation fuzz target found it). Checked first, the worst case is a
// container as large as the input.
bool cborLengthsFit(const uint8_t* data, size_t size) {
  std::vector<uint64_t> pending{1};  // items still to read, per open container
  size_t pos = 0;
  while (!pending.empty()) {
    if (pending.back() == 0) {
      pending.pop_back();
      continue;
    }
    --pending.back();
    if (pos >= size) return false;
    const uint8_t major = data[pos] >> 5, info = data[pos] & 31;
    ++pos;
    uint64_t value = info;
    if (info >= 24 && info <= 27) {
      size_t n = size_t{1} << (info - 24);
      if (size - pos < n) return false;
      value = 0;
      for (size_t i = 0; i < n; ++i) value = (value << 8) | data[pos + i];
      pos += n;
    } else if (info > 27) {
      return false;  // reserved, or an indefinite length
    }
    const uint64_t left = size - pos;
    switch (major) {
      case 2:  // byte and text strings: their bytes follow
      case 3:
        if (value > left) return false;
        pos += static_cast<size_t>(value);
        break;
      case 4:  // each element takes a byte at least
        if (value > left) return false;
        pending.push_back(value);
        break;
      case 5:
        if (value > left / 2) return false;
        pending.push_back(value * 2);
        break;
      case 6:  // a tag, then its item
        pending.push_back(1);
        break;
      default:  // integers, simple values and floats: the header was all of it
        break;
    }
    if (pending.size() > 16) return false;
  }
  return true;
}

// cbor_load, after the lengths are checked; null for anything it would not take.
CborPtr loadCbor(const uint8_t* data, size_t size) {
  if (!cborLengthsFit(data, size)) return nullptr;
  cbor_load_result result;
  CborPtr item(cbor_load(data, size, &result));
  if (result.error.code != CBOR_ERR_NONE) return nullptr;
  return item;
}

Bytes decodeB64(const std::string& text, const std::string& key, const std::string& field) {
  auto bytes = base64Decode(text);
  if (!bytes) throw invalidArgument("invalid field " + field + "." + key + ": not base64url");
  return *bytes;
}

// Map lookup by text key ("fmt") or integer key (COSE labels, negative allowed).
cbor_item_t* mapGet(cbor_item_t* map, const std::string* textKey, int64_t intKey) {
  if (!cbor_isa_map(map)) return nullptr;
  cbor_pair* pairs = cbor_map_handle(map);
  for (size_t i = 0; i < cbor_map_size(map); ++i) {
    cbor_item_t* k = pairs[i].key;
    if (textKey) {
      if (cbor_isa_string(k) && cbor_string_is_definite(k) &&
          std::string(reinterpret_cast<const char*>(cbor_string_handle(k)),
                      cbor_string_length(k)) == *textKey)
        return pairs[i].value;
    } else if (cbor_isa_uint(k) && intKey >= 0 &&
               cbor_get_int(k) == static_cast<uint64_t>(intKey)) {
      return pairs[i].value;
    } else if (cbor_isa_negint(k) && intKey < 0 &&
               cbor_get_int(k) == static_cast<uint64_t>(-1 - intKey)) {
      return pairs[i].value;
    }
  }
  return nullptr;
}

cbor_item_t* text(cbor_item_t* map, const std::string& key) {
  return mapGet(map, &key, 0);
}
cbor_item_t* label(cbor_item_t* map, int64_t key) {
  return mapGet(map, nullptr, key);
}

std::optional<Bytes> bytesOf(cbor_item_t* item) {
  if (!item || !cbor_isa_bytestring(item) || !cbor_bytestring_is_definite(item))
    return std::nullopt;
  return Bytes(cbor_bytestring_handle(item),
               cbor_bytestring_handle(item) + cbor_bytestring_length(item));
}

std::optional<int64_t> intOf(cbor_item_t* item) {
  if (!item) return std::nullopt;
  if (cbor_isa_uint(item)) return static_cast<int64_t>(cbor_get_int(item));
  if (cbor_isa_negint(item)) return -1 - static_cast<int64_t>(cbor_get_int(item));
  return std::nullopt;
}

std::string uuidOf(const uint8_t* b) {
  std::string h = toHex(b, 16);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

void checkClientData(const AttestationParameters& attestation, const std::string& challenge,
                     const std::string& field) {
  Bytes raw = decodeB64(attestation.clientDataJson, "clientDataJson", field);
  json::Object clientData;
  try {
    clientData = json::parseObject(toString(raw), field + ".clientDataJson");
  } catch (const Error& e) {
    throw invalidArgument(std::string("invalid field ") + field + ".clientDataJson: " + e.what());
  }
  std::string type = clientData->optValue<std::string>("type", "");
  if (type != "webauthn.create")
    throw invalidArgument("invalid field " + field + ".clientDataJson: type is \"" + type +
                          "\", not webauthn.create");
  // Web clients send base64url(32 random bytes); React Native a 64-character hex string
  // whose ASCII bytes are the challenge. Either way the ceremony's challenge must match.
  std::string seen = clientData->optValue<std::string>("challenge", "");
  auto seenBytes = base64Decode(seen);
  auto givenBytes = base64Decode(challenge);
  bool matches = seen == challenge || (seenBytes && givenBytes && *seenBytes == *givenBytes) ||
                 (seenBytes && toString(*seenBytes) == challenge);
  if (!matches)
    throw invalidArgument("invalid field " + field +
                          ".challenge: it is not the challenge of the webauthn.create ceremony");
}
}  // namespace

const Shape<AuthenticatorParameters>& authenticatorShape() {
  using A = AttestationParameters;
  static const Shape<A> attestation = {
      field("credentialId", &A::credentialId), field("clientDataJson", &A::clientDataJson),
      field("attestationObject", &A::attestationObject), field("transports", &A::transports)};
  using P = AuthenticatorParameters;
  static const Shape<P> shape = {
      field("authenticatorName", &P::authenticatorName, {.displayName = true}),
      field("challenge", &P::challenge), field("attestation", &P::attestation, attestation)};
  return shape;
}

void parseAuthenticatorParams(const AuthenticatorParameters& params, const std::string& field,
                              AuthenticatorRecord& record) {
  record.name = params.authenticatorName;
  if (record.name.empty())
    throw invalidArgument("invalid field " + field + ".authenticatorName: must not be empty");
  const std::string& challenge = params.challenge;
  std::string af = field + ".attestation";
  const AttestationParameters& attestation = params.attestation;
  checkClientData(attestation, challenge, af);

  record.transports = attestation.transports.value_or(std::vector<std::string>{});
  for (size_t i = 0; i < record.transports.size(); ++i)
    if (std::find(std::begin(kTransports), std::end(kTransports), record.transports[i]) ==
        std::end(kTransports))
      throw invalidArgument("invalid field " + af + ".transports[" + std::to_string(i) + "]: \"" +
                            record.transports[i] + "\" is not an AUTHENTICATOR_TRANSPORT_* value");

  Bytes object = decodeB64(attestation.attestationObject, "attestationObject", af);
  CborPtr root = loadCbor(object.data(), object.size());
  if (!root || !cbor_isa_map(root.get()))
    throw invalidArgument("invalid field " + af + ".attestationObject: not a CBOR map");
  cbor_item_t* fmt = text(root.get(), "fmt");
  if (!fmt || !cbor_isa_string(fmt))
    throw invalidArgument("invalid field " + af + ".attestationObject: no fmt");
  record.attestationType =
      std::string(reinterpret_cast<const char*>(cbor_string_handle(fmt)), cbor_string_length(fmt));
  auto authData = bytesOf(text(root.get(), "authData"));
  if (!authData || authData->size() < 37 + 18)
    throw invalidArgument("invalid field " + af +
                          ".attestationObject: authData is missing or short");
  const Bytes& ad = *authData;
  if (!(ad[32] & 0x40))
    throw invalidArgument("invalid field " + af +
                          ".attestationObject: authData has no attested credential data");
  record.signCount = int64_t{ad[33]} << 24 | int64_t{ad[34]} << 16 | int64_t{ad[35]} << 8 | ad[36];
  record.aaguid = uuidOf(ad.data() + 37);
  size_t idLength = size_t{ad[53]} << 8 | ad[54];
  if (55 + idLength >= ad.size())
    throw invalidArgument("invalid field " + af +
                          ".attestationObject: credential id overruns authData");
  Bytes credentialId(ad.begin() + 55, ad.begin() + 55 + static_cast<long>(idLength));
  record.credentialId = base64UrlEncode(credentialId);
  // The SDK sends base64url(rawId); it must be the credential the authenticator attested.
  auto given = base64Decode(attestation.credentialId);
  if (!given || *given != credentialId)
    throw invalidArgument("invalid field " + af +
                          ".credentialId: it is not the credential id inside the attestation");

  size_t keyOffset = 55 + idLength;
  CborPtr cose = loadCbor(ad.data() + keyOffset, ad.size() - keyOffset);
  if (!cose || !cbor_isa_map(cose.get()))
    throw invalidArgument("invalid field " + af +
                          ".attestationObject: the credential key is not a COSE map");
  auto kty = intOf(label(cose.get(), 1));
  auto alg = intOf(label(cose.get(), 3));
  if (kty == 2 && alg == -7) {
    auto crv = intOf(label(cose.get(), -1));
    auto x = bytesOf(label(cose.get(), -2));
    auto y = bytesOf(label(cose.get(), -3));
    if (crv != 1 || !x || !y || x->size() != 32 || y->size() != 32)
      throw invalidArgument("invalid field " + af +
                            ".attestationObject: ES256 key is not a P-256 point");
    Bytes point{0x04};
    point.insert(point.end(), x->begin(), x->end());
    point.insert(point.end(), y->begin(), y->end());
    auto compressed = crypto::normalizePublicKey(crypto::Curve::kP256, point);
    if (!compressed)
      throw invalidArgument("invalid field " + af +
                            ".attestationObject: ES256 key is not on P-256");
    record.algorithm = -7;
    record.publicKey = toHex(*compressed);
  } else if (kty == 3 && alg == -257) {
    auto n = bytesOf(label(cose.get(), -1));
    auto e = bytesOf(label(cose.get(), -2));
    if (!n || !e || n->size() < 256)
      throw invalidArgument("invalid field " + af +
                            ".attestationObject: RS256 key is not a 2048-bit RSA key");
    record.algorithm = -257;
    record.publicKey = toHex(*n);
    record.rsaExponent = toHex(*e);
  } else {
    throw invalidArgument("invalid field " + af + ".attestationObject: unsupported key (kty " +
                          std::to_string(kty.value_or(0)) + ", alg " +
                          std::to_string(alg.value_or(0)) +
                          "); ES256 (-7) and RS256 (-257) are supported");
  }
}

}  // namespace signet
