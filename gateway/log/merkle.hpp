// RFC 9162's Merkle tree (§2.1): SHA-256, with a 0x00 prefix on leaves and 0x01 on interior
// nodes, so that a leaf can never pass for a node. Proofs are built and checked here; what a
// tree's subtrees hash to comes from the caller (the store, or leaves in memory).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace signet::merkle {

using Hash = std::array<uint8_t, 32>;

Hash leafHash(std::string_view leaf);
Hash nodeHash(const Hash& left, const Hash& right);
Hash emptyRoot();  // SHA-256 of nothing: the root of a tree of no leaves
std::string toHex(const Hash& h);
Hash fromHex(const std::string& hex);  // invalid_argument when not 64 hex digits

// A complete subtree: leaves [index << level, (index + 1) << level). Level 0 is a leaf.
struct Node {
  int level;
  uint64_t index;
  bool operator<(const Node& o) const {
    return level != o.level ? level < o.level : index < o.index;
  }
};
// Where a store keeps a complete subtree's hash: the number of hashes an append-only tree made
// before it, appending leaf by leaf, each leaf's hash first and then the subtrees it closes,
// lowest first. Every append so writes at the end of one ordered table.
uint64_t storedIndex(const Node& node);

// What a complete subtree hashes to. Every subtree a proof needs is one of these or made of
// them: a store keeps each complete subtree's hash as the tree grows, so that a proof reads
// O(log n) of them.
using NodeReader = std::function<Hash(const Node&)>;

// MTH(D[begin:end]) of RFC 9162 §2.1.1.
Hash rangeHash(uint64_t begin, uint64_t end, const NodeReader& read);
// The inclusion proof of leaf `index` in the tree of `size` leaves (§2.1.3.1), leaf to root.
std::vector<Hash> inclusionProof(uint64_t index, uint64_t size, const NodeReader& read);
// The consistency proof between the trees of `first` and `second` leaves (§2.1.4.1).
std::vector<Hash> consistencyProof(uint64_t first, uint64_t second, const NodeReader& read);
// The complete subtrees a proof or root will read, so that a store can fetch them in one go:
// `build` runs against a reader that records what it is asked.
std::vector<Node> nodesRead(const std::function<void(const NodeReader&)>& build);

// The checks of §2.1.3.2 and §2.1.4.2.
bool verifyInclusion(uint64_t index, uint64_t size, const Hash& leaf,
                     const std::vector<Hash>& proof, const Hash& root);
bool verifyConsistency(uint64_t first, uint64_t second, const Hash& firstRoot,
                       const Hash& secondRoot, const std::vector<Hash>& proof);

// The right edge of a tree: the complete subtrees its size decomposes into, largest first. It
// is all an append needs, and the root folds from it.
class Frontier {
 public:
  Frontier() = default;
  Frontier(uint64_t size, std::vector<Hash> subtrees);
  // Adds a leaf's hash; `made` receives the complete subtrees (level ≥ 1) it closes.
  void append(const Hash& leaf, std::vector<std::pair<Node, Hash>>& made);
  Hash root() const;
  uint64_t size() const { return size_; }
  const std::vector<Hash>& subtrees() const { return subtrees_; }

 private:
  uint64_t size_ = 0;
  std::vector<Hash> subtrees_;  // one per set bit of size_, highest bit first
};

}  // namespace signet::merkle
