#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

#include "signet/crypto.hpp"

namespace signet::crypto {

namespace {
// Given EVP_sha256() and its kind, OpenSSL 3 looks the implementation up by name on every call
// (an implicit fetch, under a lock: about half of a short hash's cost in a profile of signing).
// Fetched once, in a static of the function that hashes, each digest is kept for the life of
// the process.
const EVP_MD* fetched(const char* name, const EVP_MD* legacy) {
  // A failed fetch leaves errors on this thread's queue, where later TLS code would read them.
  ERR_set_mark();
  const EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  ERR_pop_to_mark();
  return md ? md : legacy;
}

Digest digestWith(const EVP_MD* md, const char* name, const uint8_t* data, size_t size) {
  Digest out;
  unsigned int len = 0;
  if (EVP_Digest(data, size, out.data(), &len, md, nullptr) != 1)
    throw std::runtime_error(std::string(name) + " failed");
  return out;
}
}  // namespace

Digest sha256(const uint8_t* data, size_t size) {
  static const EVP_MD* const md = fetched("SHA2-256", EVP_sha256());
  return digestWith(md, "SHA-256", data, size);
}

std::array<uint8_t, 20> hash160(const uint8_t* data, size_t size) {
  static const EVP_MD* const ripemd160 = fetched("RIPEMD-160", EVP_ripemd160());
  auto inner = sha256(data, size);
  std::array<uint8_t, 20> out;
  unsigned int len = 0;
  if (EVP_Digest(inner.data(), inner.size(), out.data(), &len, ripemd160, nullptr) != 1)
    throw std::runtime_error("RIPEMD-160 failed");
  return out;
}

Digest sha3_256(const uint8_t* data, size_t size) {
  static const EVP_MD* const md = fetched("SHA3-256", EVP_sha3_256());
  return digestWith(md, "SHA3-256", data, size);
}

Digest hmacSha256(const Bytes& key, const uint8_t* data, size_t size) {
  Digest out;
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data, size, out.data(), &len))
    throw std::runtime_error("HMAC-SHA256 failed");
  return out;
}

SecretBytes hkdfExtract(const Bytes& salt, const Bytes& ikm) {
  // An empty salt is HMAC's empty key, which HMAC pads to the same block as HashLen zeros.
  Digest prk = hmacSha256(salt, ikm.data(), ikm.size());
  SecretBytes out(Bytes(prk.begin(), prk.end()));
  wipe(prk.data(), prk.size());
  return out;
}

SecretBytes hkdfExpand(const SecretBytes& prk, const Bytes& info, size_t length) {
  if (length > 255 * 32) throw std::invalid_argument("HKDF-SHA256 output too long");
  // T(i) = HMAC(PRK, T(i-1) || info || i); the output is T(1) || T(2) || … cut to length.
  Bytes out, block;
  for (uint8_t i = 1; out.size() < length; ++i) {
    Bytes input = block;
    input.insert(input.end(), info.begin(), info.end());
    input.push_back(i);
    Digest t = hmacSha256(prk.bytes(), input.data(), input.size());
    block.assign(t.begin(), t.end());
    out.insert(out.end(), block.begin(), block.end());
    wipe(input.data(), input.size());
    wipe(t.data(), t.size());
  }
  wipe(out.data() + length, out.size() - length);
  out.resize(length);
  wipe(block.data(), block.size());
  return SecretBytes(std::move(out));
}

SecretBytes hkdfSha256(const Bytes& salt, const Bytes& ikm, const Bytes& info, size_t length) {
  return hkdfExpand(hkdfExtract(salt, ikm), info, length);
}

std::array<uint8_t, 64> hmacSha512(const Bytes& key, const uint8_t* data, size_t size) {
  std::array<uint8_t, 64> out;
  unsigned int len = 0;
  if (!HMAC(EVP_sha512(), key.data(), static_cast<int>(key.size()), data, size, out.data(), &len))
    throw std::runtime_error("HMAC-SHA512 failed");
  return out;
}

// Keccak-f[1600] with the original (pre-SHA-3) 0x01 padding that Ethereum uses.
namespace {
constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
constexpr int kRotations[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

inline uint64_t rotl(uint64_t v, int n) {
  return n == 0 ? v : (v << n) | (v >> (64 - n));
}

void keccakF(uint64_t a[25]) {
  for (uint64_t rc : kRoundConstants) {
    uint64_t c[5], b[25];
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; ++x) {
      uint64_t d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5) a[x + y] ^= d;
    }
    for (int x = 0; x < 5; ++x)
      for (int y = 0; y < 5; ++y)
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], kRotations[x + 5 * y]);
    for (int x = 0; x < 5; ++x)
      for (int y = 0; y < 25; y += 5)
        a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
    a[0] ^= rc;
  }
}

void absorbBlock(uint64_t state[25], const uint8_t* block, size_t rate) {
  for (size_t i = 0; i < rate / 8; ++i) {
    uint64_t lane = 0;
    for (int j = 7; j >= 0; --j) lane = lane << 8 | block[8 * i + j];
    state[i] ^= lane;
  }
  keccakF(state);
}
}  // namespace

Digest keccak256(const uint8_t* data, size_t size) {
  constexpr size_t kRate = 136;
  uint64_t state[25] = {};
  while (size >= kRate) {
    absorbBlock(state, data, kRate);
    data += kRate;
    size -= kRate;
  }
  uint8_t last[kRate] = {};
  if (size > 0) std::memcpy(last, data, size);  // an empty input may come with no pointer
  last[size] ^= 0x01;
  last[kRate - 1] ^= 0x80;
  absorbBlock(state, last, kRate);
  Digest out;
  for (size_t i = 0; i < 32; ++i) out[i] = static_cast<uint8_t>(state[i / 8] >> (8 * (i % 8)));
  return out;
}

void randomBytes(uint8_t* out, size_t size) {
  if (RAND_bytes(out, static_cast<int>(size)) != 1)
    throw std::runtime_error("the system random source failed");
}

Bytes randomBytes(size_t size) {
  Bytes b(size);
  randomBytes(b.data(), size);
  return b;
}

namespace {
// Ids draw their random bits from a pool of each thread's, filled 512 bytes at a time. A
// RAND_bytes call costs about as much for 512 bytes as for 16 (OpenSSL checks for a fork with
// a getpid system call and takes its generator's lock on every call), and a signed activity
// makes four or five ids: its own, its vote's, its evaluation's, its event's and the request's.
// The bytes are the same generator's. Only ids come from the pool: key material is drawn when
// it is made, so no future key waits in memory. A forked child starts its pools afresh, so it
// never hands out the ids its parent will.
std::atomic<uint64_t> forkGeneration{0};
[[maybe_unused]] const int atForkRegistered =
    pthread_atfork(nullptr, nullptr, [] { forkGeneration.fetch_add(1); });

void idRandomBytes(uint8_t* out, size_t size) {
  struct Pool {
    uint8_t bytes[512];
    size_t used = sizeof bytes;
    uint64_t generation = 0;
  };
  thread_local Pool pool;
  const uint64_t generation = forkGeneration.load(std::memory_order_relaxed);
  if (pool.used + size > sizeof pool.bytes || pool.generation != generation) {
    randomBytes(pool.bytes, sizeof pool.bytes);
    pool.used = 0;
    pool.generation = generation;
  }
  std::memcpy(out, pool.bytes + pool.used, size);
  pool.used += size;
}

// The version goes into the high nibble of byte 6 and the RFC 9562 variant (10) into the top
// bits of byte 8; the rest is as given. Written as 8-4-4-4-12 lowercase hex digits.
std::string uuidString(uint8_t (&b)[16], int version) {
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | (version << 4));
  b[8] = (b[8] & 0x3f) | 0x80;
  std::string out = signet::toHex(b, sizeof b);
  for (size_t at : {20, 16, 12, 8}) out.insert(at, 1, '-');  // from the back: offsets hold
  return out;
}
}  // namespace

std::string uuidV4() {
  uint8_t b[16];
  idRandomBytes(b, sizeof b);
  return uuidString(b, 4);
}

std::string uuidV7(int64_t unixMs) {
  uint8_t b[16];
  idRandomBytes(b, sizeof b);
  uint64_t ms = static_cast<uint64_t>(std::max<int64_t>(unixMs, 0));
  for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (40 - 8 * i));  // big-endian
  return uuidString(b, 7);
}

void wipe(void* data, size_t size) {
  if (data && size) OPENSSL_cleanse(data, size);
}

const char* curveName(Curve c) {
  switch (c) {
    case Curve::kP256:
      return "P-256";
    case Curve::kSecp256k1:
      return "secp256k1";
    case Curve::kEd25519:
      return "Ed25519";
  }
  return "?";
}

bool constantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace signet::crypto
