#include "log/merkle.hpp"

#include <map>
#include <stdexcept>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet::merkle {

namespace {

bool isPowerOfTwo(uint64_t n) {
  return n && !(n & (n - 1));
}
// The largest power of two smaller than n (n ≥ 2): where RFC 9162 splits a tree.
uint64_t split(uint64_t n) {
  uint64_t k = 1;
  while (k << 1 < n) k <<= 1;
  return k;
}
int log2Of(uint64_t powerOfTwo) {
  int l = 0;
  while ((uint64_t{1} << l) < powerOfTwo) ++l;
  return l;
}

void path(uint64_t m, uint64_t begin, uint64_t end, const NodeReader& read,
          std::vector<Hash>& out) {
  if (end - begin == 1) return;
  uint64_t k = split(end - begin);
  if (m < k) {
    path(m, begin, begin + k, read, out);
    out.push_back(rangeHash(begin + k, end, read));
  } else {
    path(m - k, begin + k, end, read, out);
    out.push_back(rangeHash(begin, begin + k, read));
  }
}

void subproof(uint64_t m, uint64_t begin, uint64_t end, bool whole, const NodeReader& read,
              std::vector<Hash>& out) {
  uint64_t n = end - begin;
  if (m == n) {
    if (!whole) out.push_back(rangeHash(begin, end, read));
    return;
  }
  uint64_t k = split(n);
  if (m <= k) {
    subproof(m, begin, begin + k, whole, read, out);
    out.push_back(rangeHash(begin + k, end, read));
  } else {
    subproof(m - k, begin + k, end, false, read, out);
    out.push_back(rangeHash(begin, begin + k, read));
  }
}

bool lsb(uint64_t v) {
  return v & 1;
}

// The verifications' "right-shift both fn and sn equally until LSB(fn) is set or fn is 0".
void shiftToSetBitOrZero(uint64_t& fn, uint64_t& sn) {
  while (!lsb(fn) && fn != 0) {
    fn >>= 1;
    sn >>= 1;
  }
}

}  // namespace

Hash leafHash(std::string_view leaf) {
  std::string data(1, '\0');
  data.append(leaf);
  return crypto::sha256(data);
}

Hash nodeHash(const Hash& left, const Hash& right) {
  uint8_t data[65];
  data[0] = 1;
  std::copy(left.begin(), left.end(), data + 1);
  std::copy(right.begin(), right.end(), data + 33);
  return crypto::sha256(data, sizeof data);
}

Hash emptyRoot() {
  return crypto::sha256(std::string_view());
}

std::string toHex(const Hash& h) {
  return signet::toHex(h.data(), h.size());
}

Hash fromHex(const std::string& hex) {
  auto bytes = signet::fromHex(hex);
  if (!bytes || bytes->size() != 32)
    throw std::invalid_argument("not a SHA-256 hash in hex: \"" + hex + "\"");
  Hash h;
  std::copy(bytes->begin(), bytes->end(), h.begin());
  return h;
}

uint64_t storedIndex(const Node& node) {
  // The subtree is made by the append of its last leaf, k - 1 = (index + 1) * 2^level - 1.
  // Before that append the tree had made, at each level l, floor((k - 1) / 2^l) hashes; within
  // it, the leaf and the `level - 1` subtrees below this one come first.
  uint64_t before = ((node.index + 1) << node.level) - 1;
  uint64_t made = 0;
  for (uint64_t n = before; n > 0; n >>= 1) made += n;
  return made + static_cast<uint64_t>(node.level);
}

Hash rangeHash(uint64_t begin, uint64_t end, const NodeReader& read) {
  uint64_t n = end - begin;
  if (n == 0) return emptyRoot();
  if (isPowerOfTwo(n) && begin % n == 0) {
    int level = log2Of(n);
    return read({level, begin >> level});
  }
  uint64_t k = split(n);
  return nodeHash(rangeHash(begin, begin + k, read), rangeHash(begin + k, end, read));
}

std::vector<Hash> inclusionProof(uint64_t index, uint64_t size, const NodeReader& read) {
  if (index >= size)
    throw std::invalid_argument("leaf " + std::to_string(index) + " is not in a tree of " +
                                std::to_string(size));
  std::vector<Hash> out;
  path(index, 0, size, read, out);
  return out;
}

std::vector<Hash> consistencyProof(uint64_t first, uint64_t second, const NodeReader& read) {
  if (first > second)
    throw std::invalid_argument("a tree of " + std::to_string(first) +
                                " leaves cannot be a prefix of one of " + std::to_string(second));
  std::vector<Hash> out;
  if (first == 0 || first == second) return out;
  subproof(first, 0, second, true, read, out);
  return out;
}

std::vector<Node> nodesRead(const std::function<void(const NodeReader&)>& build) {
  std::map<Node, bool> asked;
  build([&](const Node& n) {
    asked[n] = true;
    return Hash{};
  });
  std::vector<Node> out;
  for (const auto& [n, _] : asked) out.push_back(n);
  return out;
}

bool verifyInclusion(uint64_t index, uint64_t size, const Hash& leaf,
                     const std::vector<Hash>& proof, const Hash& root) {
  if (index >= size) return false;
  uint64_t fn = index, sn = size - 1;
  Hash r = leaf;
  for (const auto& p : proof) {
    if (sn == 0) return false;
    if (lsb(fn) || fn == sn) {
      r = nodeHash(p, r);
      shiftToSetBitOrZero(fn, sn);
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

bool verifyConsistency(uint64_t first, uint64_t second, const Hash& firstRoot,
                       const Hash& secondRoot, const std::vector<Hash>& proof) {
  if (first > second) return false;
  if (first == second) return proof.empty() && firstRoot == secondRoot;
  if (first == 0) return proof.empty() && firstRoot == emptyRoot();
  std::vector<Hash> path = proof;
  if (isPowerOfTwo(first)) path.insert(path.begin(), firstRoot);
  if (path.empty()) return false;
  uint64_t fn = first - 1, sn = second - 1;
  while (lsb(fn)) {
    fn >>= 1;
    sn >>= 1;
  }
  Hash fr = path[0], sr = path[0];
  for (size_t i = 1; i < path.size(); ++i) {
    const Hash& c = path[i];
    if (sn == 0) return false;
    if (lsb(fn) || fn == sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      shiftToSetBitOrZero(fn, sn);
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return fr == firstRoot && sr == secondRoot && sn == 0;
}

Frontier::Frontier(uint64_t size, std::vector<Hash> subtrees)
    : size_(size), subtrees_(std::move(subtrees)) {
  if (static_cast<size_t>(__builtin_popcountll(size_)) != subtrees_.size())
    throw std::invalid_argument("a tree of " + std::to_string(size_) + " leaves has " +
                                std::to_string(__builtin_popcountll(size_)) +
                                " subtrees on its right edge, not " +
                                std::to_string(subtrees_.size()));
}

void Frontier::append(const Hash& leaf, std::vector<std::pair<Node, Hash>>& made) {
  const uint64_t index = size_;
  subtrees_.push_back(leaf);
  // The new leaf closes one subtree per trailing set bit of its index: each merges with the
  // subtree of the same size to its left.
  int level = 0;
  for (uint64_t i = index; lsb(i); i >>= 1) {
    Hash right = subtrees_.back();
    subtrees_.pop_back();
    Hash merged = nodeHash(subtrees_.back(), right);
    subtrees_.back() = merged;
    ++level;
    made.push_back({{level, index >> level}, merged});
  }
  ++size_;
}

Hash Frontier::root() const {
  if (subtrees_.empty()) return emptyRoot();
  Hash r = subtrees_.back();
  for (size_t i = subtrees_.size() - 1; i-- > 0;) r = nodeHash(subtrees_[i], r);
  return r;
}

}  // namespace signet::merkle
