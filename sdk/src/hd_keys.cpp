#include "signet/hd_keys.hpp"

#include <openssl/evp.h>

#include <secp256k1.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace signet::hd {

namespace {
const char* const kWords[2048] = {
#include "bip39_english.inc"
};

int wordIndex(const std::string& word) {
  // The list is sorted: binary search.
  int lo = 0, hi = 2047;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = std::strcmp(kWords[mid], word.c_str());
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

bool bitAt(const Bytes& b, size_t i) {
  return (b[i / 8] >> (7 - i % 8)) & 1;
}
}  // namespace

std::string mnemonicFromEntropy(const Bytes& entropy) {
  if (entropy.size() < 16 || entropy.size() > 32 || entropy.size() % 4 != 0)
    throw std::invalid_argument("BIP-39 entropy must be 16 to 32 bytes, a multiple of 4");
  auto hash = crypto::sha256(entropy);
  Bytes bits = entropy;
  bits.push_back(hash[0]);  // checksum: the first entropy_bits/32 bits of the hash
  size_t total = entropy.size() * 8 + entropy.size() / 4;
  std::string out;
  for (size_t w = 0; w < total / 11; ++w) {
    int index = 0;
    for (size_t k = 0; k < 11; ++k) index = (index << 1) | bitAt(bits, w * 11 + k);
    out += (w ? " " : "") + std::string(kWords[index]);
  }
  crypto::wipe(bits.data(), bits.size());
  return out;
}

std::string generateMnemonic(int words) {
  if (words < 12 || words > 24 || words % 3 != 0)
    throw std::invalid_argument("a mnemonic has 12, 15, 18, 21 or 24 words, not " +
                                std::to_string(words));
  Bytes entropy = crypto::randomBytes(static_cast<size_t>(words) / 3 * 4);
  std::string m = mnemonicFromEntropy(entropy);
  crypto::wipe(entropy.data(), entropy.size());
  return m;
}

std::optional<Bytes> entropyFromMnemonic(const std::string& mnemonic, std::string& why) {
  std::istringstream in(mnemonic);
  std::vector<int> indices;
  std::string word;
  while (in >> word) {
    int i = wordIndex(word);
    if (i < 0) {
      why = "word " + std::to_string(indices.size() + 1) + " is not in the BIP-39 English list";
      return std::nullopt;
    }
    indices.push_back(i);
  }
  size_t n = indices.size();
  if (n < 12 || n > 24 || n % 3 != 0) {
    why = "a mnemonic has 12, 15, 18, 21 or 24 words, not " + std::to_string(n);
    return std::nullopt;
  }
  size_t totalBits = n * 11, checksumBits = totalBits / 33, entropyBits = totalBits - checksumBits;
  Bytes bits((totalBits + 7) / 8, 0);
  for (size_t w = 0; w < n; ++w)
    for (size_t k = 0; k < 11; ++k)
      if ((indices[w] >> (10 - k)) & 1) bits[(w * 11 + k) / 8] |= 1 << (7 - (w * 11 + k) % 8);
  Bytes entropy(bits.begin(), bits.begin() + static_cast<long>(entropyBits / 8));
  auto hash = crypto::sha256(entropy);
  for (size_t k = 0; k < checksumBits; ++k)
    if (bitAt(bits, entropyBits + k) != ((hash[0] >> (7 - k)) & 1)) {
      why = "the checksum does not match";
      crypto::wipe(entropy.data(), entropy.size());
      return std::nullopt;
    }
  crypto::wipe(bits.data(), bits.size());
  return entropy;
}

crypto::SecretBytes seedFromMnemonic(const std::string& mnemonic, const std::string& passphrase) {
  std::string salt = "mnemonic" + passphrase;
  Bytes seed(64);
  if (PKCS5_PBKDF2_HMAC(mnemonic.data(), static_cast<int>(mnemonic.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), 2048, EVP_sha512(), 64, seed.data()) != 1)
    throw std::runtime_error("PBKDF2 failed");
  crypto::wipe(salt.data(), salt.size());
  return crypto::SecretBytes(std::move(seed));
}

std::optional<std::vector<Segment>> parsePath(const std::string& path, std::string& why) {
  if (path.rfind("m", 0) != 0) {
    why = "a path starts with m";
    return std::nullopt;
  }
  std::vector<Segment> out;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] != '/') {
      why = "expected / at position " + std::to_string(i);
      return std::nullopt;
    }
    size_t start = ++i;
    uint64_t value = 0;
    while (i < path.size() && std::isdigit(static_cast<unsigned char>(path[i]))) {
      value = value * 10 + static_cast<uint64_t>(path[i] - '0');
      if (value >= 0x80000000ULL) {
        why = "segment " + std::to_string(out.size() + 1) + " is 2^31 or more";
        return std::nullopt;
      }
      ++i;
    }
    if (i == start) {
      why = "segment " + std::to_string(out.size() + 1) + " is not a number";
      return std::nullopt;
    }
    Segment s{static_cast<uint32_t>(value), false};
    if (i < path.size() && (path[i] == '\'' || path[i] == 'h')) {
      s.hardened = true;
      ++i;
    }
    out.push_back(s);
  }
  if (out.size() > 255) {
    why = "more than 255 segments";
    return std::nullopt;
  }
  return out;
}

namespace {
const secp256k1_context* k1() {
  static secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  return ctx;
}

// I = HMAC-SHA512(key, data) split into IL (key material) and IR (chain code).
struct Split {
  crypto::SecretBytes left, right;
};
Split hmacSplit(const Bytes& key, const Bytes& data) {
  auto i = crypto::hmacSha512(key, data.data(), data.size());
  Split s{crypto::SecretBytes(Bytes(i.begin(), i.begin() + 32)),
          crypto::SecretBytes(Bytes(i.begin() + 32, i.end()))};
  crypto::wipe(i.data(), i.size());
  return s;
}

const char* masterSalt(crypto::Curve curve) {
  switch (curve) {
    case crypto::Curve::kSecp256k1:
      return "Bitcoin seed";
    case crypto::Curve::kEd25519:
      return "ed25519 seed";
    case crypto::Curve::kP256:
      return "Nist256p1 seed";
  }
  return "";
}

// k_child = IL + k_parent mod n, on secp256k1 or P-256. nullopt when IL >= n or the sum is 0.
std::optional<crypto::SecretBytes> addScalars(crypto::Curve curve, const crypto::SecretBytes& il,
                                              const crypto::SecretBytes& parent);
}  // namespace

ExtendedKey derive(crypto::Curve curve, const crypto::SecretBytes& seed,
                   const std::vector<Segment>& path) {
  auto salt = std::string(masterSalt(curve));
  Bytes data = seed.bytes();
  Split master = hmacSplit(toBytes(salt), data);
  crypto::wipe(data.data(), data.size());
  // SLIP-10: for the ECDSA curves an invalid master key is retried on I itself.
  while (curve != crypto::Curve::kEd25519 && !crypto::isValidPrivateKey(curve, master.left)) {
    Bytes again = master.left.bytes();
    again.insert(again.end(), master.right.bytes().begin(), master.right.bytes().end());
    master = hmacSplit(toBytes(salt), again);
    crypto::wipe(again.data(), again.size());
  }
  ExtendedKey key{std::move(master.left), std::move(master.right)};
  for (size_t depth = 0; depth < path.size(); ++depth) {
    const Segment& s = path[depth];
    if (curve == crypto::Curve::kEd25519 && !s.hardened)
      throw std::invalid_argument("segment " + std::to_string(depth + 1) + " (" +
                                  std::to_string(s.index) +
                                  ") is not hardened: Ed25519 keys derive only hardened segments");
    uint32_t index = s.index | (s.hardened ? 0x80000000u : 0);
    for (;;) {
      Bytes d;
      if (s.hardened) {
        d.push_back(0);
        d.insert(d.end(), key.privateKey.bytes().begin(), key.privateKey.bytes().end());
      } else {
        d = crypto::publicKeyFromPrivate(curve, key.privateKey);  // 33-byte compressed
      }
      for (int shift = 24; shift >= 0; shift -= 8)
        d.push_back(static_cast<uint8_t>(index >> shift));
      Split child = hmacSplit(key.chainCode.bytes(), d);
      crypto::wipe(d.data(), d.size());
      if (curve == crypto::Curve::kEd25519) {
        key = {std::move(child.left), std::move(child.right)};
        break;
      }
      if (auto sum = addScalars(curve, child.left, key.privateKey)) {
        key = {std::move(*sum), std::move(child.right)};
        break;
      }
      // BIP-32 skips to the next index; SLIP-10 retries with 0x01 || IR || index. Both
      // happen with probability below 2^-127; we follow SLIP-10, which BIP-32 curves share.
      Bytes retry{0x01};
      retry.insert(retry.end(), child.right.bytes().begin(), child.right.bytes().end());
      for (int shift = 24; shift >= 0; shift -= 8)
        retry.push_back(static_cast<uint8_t>(index >> shift));
      Split again = hmacSplit(key.chainCode.bytes(), retry);
      if (auto sum = addScalars(curve, again.left, key.privateKey)) {
        key = {std::move(*sum), std::move(again.right)};
        break;
      }
    }
  }
  return key;
}

namespace {
std::optional<crypto::SecretBytes> addScalars(crypto::Curve curve, const crypto::SecretBytes& il,
                                              const crypto::SecretBytes& parent) {
  if (!crypto::isValidPrivateKey(curve, il)) return std::nullopt;
  if (curve == crypto::Curve::kSecp256k1) {
    Bytes out = parent.bytes();
    if (!secp256k1_ec_seckey_tweak_add(k1(), out.data(), il.data())) return std::nullopt;
    return crypto::SecretBytes(std::move(out));
  }
  return crypto::addScalarsP256(il, parent);
}
}  // namespace

}  // namespace signet::hd
