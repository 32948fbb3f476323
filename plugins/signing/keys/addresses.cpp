#include "keys/addresses.hpp"

#include <map>

#include "chains/tron/protobuf.hpp"
#include "signet/bech32.hpp"
#include "signet/error.hpp"

namespace signing {

using namespace signet;
using crypto::Curve;

namespace {
// Formats whose encoding the public sources do not settle: refused, naming what is unknown.
const std::map<std::string, std::string> kUnsettled = {
    {"P2SH", "the redeem script is not specified"},
    {"P2WSH", "the witness script is not specified"},
    {"TON_", "the wallet contract's flags, workchain and subwallet id are not specified"}};

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The 20 address bytes of an Ethereum or Tron account: keccak256(X ‖ Y)[12..32].
Bytes ethereumBytes(const Bytes& compressed) {
  Bytes full = crypto::uncompressPublicKey(Curve::kSecp256k1, compressed);
  auto h = crypto::keccak256(full.data() + 1, 64);
  return Bytes(h.begin() + 12, h.end());
}

}  // namespace

// EIP-55: a hex letter is upper-case when the matching nibble of keccak256(lower hex) >= 8.
std::string ethereumChecksumAddress(const Bytes& address) {
  std::string lower = toHex(address);
  auto h = crypto::keccak256(lower);
  std::string out = "0x";
  for (size_t i = 0; i < lower.size(); ++i) {
    int nibble = (h[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? static_cast<char>(std::toupper(static_cast<unsigned char>(lower[i])))
                       : lower[i];
  }
  return out;
}

namespace {

// Stellar StrKey for an account id: base32(version 6<<3 ‖ key ‖ CRC16-XModem little-endian).
std::string stellarAccount(const Bytes& key) {
  Bytes payload = concat({{6 << 3}, key});
  uint16_t crc = 0;
  for (uint8_t b : payload) {
    crc ^= static_cast<uint16_t>(b) << 8;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  payload.push_back(static_cast<uint8_t>(crc & 0xff));
  payload.push_back(static_cast<uint8_t>(crc >> 8));
  static constexpr char kBase32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : payload) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += kBase32[(acc >> bits) & 31];
    }
  }
  if (bits > 0) out += kBase32[(acc << (5 - bits)) & 31];
  return out;
}

// Spark: bech32m of the protobuf SparkAddress whose field 1 is the 33-byte identity key (what
// the Spark SDK's encodeSparkAddress writes when there is no invoice).
std::string sparkAddress(const std::string& hrp, const Bytes& identityKey) {
  Bytes payload;
  appendProtoBytes(payload, 1, identityKey);
  return bech32::encodeBytes(hrp, payload, bech32::Variant::kBech32m);
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void unsupported(const std::string& format, const std::string& why) {
  throw invalidArgument("address format " + format + " is not supported: " + why);
}
}  // namespace

Bytes hash160Of(const Bytes& b) {
  auto h = crypto::hash160(b.data(), b.size());
  return Bytes(h.begin(), h.end());
}

std::optional<BitcoinNetwork> bitcoinNetwork(const std::string& format) {
  if (format.rfind("ADDRESS_FORMAT_BITCOIN_MAINNET_", 0) == 0)
    return BitcoinNetwork{"bc", 0x00, 0x05};
  if (format.rfind("ADDRESS_FORMAT_BITCOIN_TESTNET_", 0) == 0)
    return BitcoinNetwork{"tb", 0x6f, 0xc4};
  if (format.rfind("ADDRESS_FORMAT_BITCOIN_SIGNET_", 0) == 0)
    return BitcoinNetwork{"tb", 0x6f, 0xc4};
  if (format.rfind("ADDRESS_FORMAT_BITCOIN_REGTEST_", 0) == 0)
    return BitcoinNetwork{"bcrt", 0x6f, 0xc4};
  return std::nullopt;
}

std::optional<Curve> curveOfFormat(const std::string& f) {
  for (const auto& [marker, why] : kUnsettled)
    if (f.find(marker) != std::string::npos) unsupported(f, why);
  if (f == "ADDRESS_FORMAT_COMPRESSED" || f == "ADDRESS_FORMAT_UNCOMPRESSED") return std::nullopt;
  static const std::map<std::string, Curve> kCurves = {
      {"ADDRESS_FORMAT_ETHEREUM", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_COSMOS", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_SEI", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_TRON", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_DOGE_MAINNET", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_DOGE_TESTNET", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_XRP", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_SPARK_MAINNET", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_SPARK_REGTEST", Curve::kSecp256k1},
      {"ADDRESS_FORMAT_SOLANA", Curve::kEd25519},
      {"ADDRESS_FORMAT_SUI", Curve::kEd25519},
      {"ADDRESS_FORMAT_APTOS", Curve::kEd25519},
      {"ADDRESS_FORMAT_XLM", Curve::kEd25519}};
  if (auto it = kCurves.find(f); it != kCurves.end()) return it->second;
  if (bitcoinNetwork(f) &&
      (endsWith(f, "_P2PKH") || endsWith(f, "_P2WPKH") || endsWith(f, "_P2TR")))
    return Curve::kSecp256k1;
  throw invalidArgument("unknown address format \"" + f + "\"");
}

void requireFormatForCurve(const std::string& format, Curve curve, const std::string& curveName,
                           const std::string& field) {
  std::optional<Curve> wanted;
  try {
    wanted = curveOfFormat(format);
  } catch (const Error& e) {
    throw invalidArgument("invalid field " + field + ": " + e.what());
  }
  if (wanted && *wanted != curve)
    throw invalidArgument("invalid field " + field + ": " + format + " addresses are made from " +
                          crypto::curveName(*wanted) + " keys, not " + curveName);
}

std::string addressFor(const std::string& f, Curve curve, const Bytes& publicKey) {
  auto wanted = curveOfFormat(f);
  if (wanted && *wanted != curve)
    unsupported(f, std::string("its addresses are made from ") + crypto::curveName(*wanted) +
                       " keys, not " + crypto::curveName(curve));
  if (f == "ADDRESS_FORMAT_COMPRESSED") return toHex(publicKey);
  if (f == "ADDRESS_FORMAT_UNCOMPRESSED") {
    if (curve == Curve::kEd25519) unsupported(f, "an Ed25519 key has no uncompressed form");
    return toHex(crypto::uncompressPublicKey(curve, publicKey));
  }
  if (f == "ADDRESS_FORMAT_ETHEREUM") return ethereumChecksumAddress(ethereumBytes(publicKey));
  if (f == "ADDRESS_FORMAT_TRON")
    return base58CheckEncode(concat({{0x41}, ethereumBytes(publicKey)}));
  if (f == "ADDRESS_FORMAT_COSMOS")
    return bech32::encodeBytes("cosmos", hash160Of(publicKey), bech32::Variant::kBech32);
  if (f == "ADDRESS_FORMAT_SEI")
    return bech32::encodeBytes("sei", hash160Of(publicKey), bech32::Variant::kBech32);
  if (f == "ADDRESS_FORMAT_DOGE_MAINNET")
    return base58CheckEncode(concat({{0x1e}, hash160Of(publicKey)}));
  if (f == "ADDRESS_FORMAT_DOGE_TESTNET")
    return base58CheckEncode(concat({{0x71}, hash160Of(publicKey)}));
  if (f == "ADDRESS_FORMAT_XRP")
    return base58CheckEncode(concat({{0x00}, hash160Of(publicKey)}), kBase58Ripple);
  if (f == "ADDRESS_FORMAT_SOLANA") return base58Encode(publicKey);
  if (f == "ADDRESS_FORMAT_SUI") {
    Bytes flagged = concat({{0x00}, publicKey});  // signature scheme flag 0 = Ed25519
    return "0x" + crypto::toHex(crypto::blake2b256(flagged.data(), flagged.size()));
  }
  if (f == "ADDRESS_FORMAT_APTOS") {
    Bytes authKey = concat({publicKey, {0x00}});  // single-key Ed25519 scheme byte
    return "0x" + crypto::toHex(crypto::sha3_256(authKey.data(), authKey.size()));
  }
  if (f == "ADDRESS_FORMAT_XLM") return stellarAccount(publicKey);
  if (f == "ADDRESS_FORMAT_SPARK_MAINNET") return sparkAddress("spark", publicKey);
  if (f == "ADDRESS_FORMAT_SPARK_REGTEST") return sparkAddress("sparkrt", publicKey);
  auto net = bitcoinNetwork(f);
  if (endsWith(f, "_P2PKH")) return base58CheckEncode(concat({{net->p2pkh}, hash160Of(publicKey)}));
  if (endsWith(f, "_P2WPKH")) return bech32::segwitAddress(net->hrp, 0, hash160Of(publicKey));
  auto output = crypto::taprootOutputKey(publicKey);
  if (!output) throw invalidArgument("not a secp256k1 public key for " + f);
  return bech32::segwitAddress(net->hrp, 1, *output);
}

}  // namespace signing
