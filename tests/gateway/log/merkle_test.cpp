// RFC 9162's tree as gateway/log/merkle.hpp builds it: the roots of the reference test vectors
// (the eight leaves of certificate-transparency's merkle_tree_test, also transparency-dev's),
// and every inclusion and consistency proof of trees up to 33 leaves checked by the RFC's own
// algorithms, and refused once altered.
#include <gtest/gtest.h>

#include "log/merkle.hpp"
#include "signet/encoding.hpp"

namespace signet::merkle {
namespace {

std::vector<std::string> vectorLeaves() {
  std::vector<std::string> out;
  for (const char* hex : {"", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                          "606162636465666768696a6b6c6d6e6f"}) {
    auto bytes = signet::fromHex(hex);
    out.emplace_back(bytes->begin(), bytes->end());
  }
  return out;
}

// A reader over leaves held in memory: every complete subtree computed from them.
NodeReader inMemory(const std::vector<Hash>& leaves) {
  return [&leaves](const Node& n) {
    std::function<Hash(uint64_t, uint64_t)> hashOf = [&](uint64_t begin, uint64_t end) {
      if (end - begin == 1) return leaves[begin];
      uint64_t half = (end - begin) / 2;
      return nodeHash(hashOf(begin, begin + half), hashOf(begin + half, end));
    };
    return hashOf(n.index << n.level, (n.index + 1) << n.level);
  };
}

TEST(MerkleTest, RootsOfTheReferenceVectors) {
  const char* roots[] = {"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                         "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                         "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
                         "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                         "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
                         "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
                         "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
                         "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};
  EXPECT_EQ(toHex(emptyRoot()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::vector<Hash> leaves;
  Frontier frontier;
  std::vector<std::pair<Node, Hash>> made;
  for (const auto& leaf : vectorLeaves()) {
    leaves.push_back(leafHash(leaf));
    frontier.append(leaves.back(), made);
    EXPECT_EQ(toHex(frontier.root()), roots[leaves.size() - 1]) << leaves.size();
    EXPECT_EQ(toHex(rangeHash(0, leaves.size(), inMemory(leaves))), roots[leaves.size() - 1]);
  }
  // Stored in the order appends make them: a leaf, then the subtrees it closes.
  EXPECT_EQ(storedIndex({0, 0}), 0u);
  EXPECT_EQ(storedIndex({0, 1}), 1u);
  EXPECT_EQ(storedIndex({1, 0}), 2u);
  EXPECT_EQ(storedIndex({0, 2}), 3u);
  EXPECT_EQ(storedIndex({0, 3}), 4u);
  EXPECT_EQ(storedIndex({1, 1}), 5u);
  EXPECT_EQ(storedIndex({2, 0}), 6u);
  EXPECT_EQ(storedIndex({0, 4}), 7u);
  {
    Frontier f;
    std::vector<std::pair<Node, Hash>> order;
    for (int i = 0; i < 100; ++i) {
      order.push_back({{0, f.size()}, Hash{}});
      f.append(Hash{}, order);
    }
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(storedIndex(order[i].first), i) << i;
  }
  // The subtrees an append closes are the ones a reader is asked for.
  for (const auto& [node, hash] : made) EXPECT_EQ(hash, inMemory(leaves)(node));
  EXPECT_EQ(made.size(), 4u + 2u + 1u);  // levels 1, 2 and 3 of eight leaves
  // The right edge round-trips through its stored form.
  Frontier again(frontier.size(), frontier.subtrees());
  EXPECT_EQ(again.root(), frontier.root());
  EXPECT_THROW(Frontier(7, {frontier.root()}), std::invalid_argument);
}

TEST(MerkleTest, EveryProofOfSmallTreesChecksAndNoAlteredOneDoes) {
  std::vector<Hash> leaves;
  for (int i = 0; i < 33; ++i) leaves.push_back(leafHash("leaf " + std::to_string(i)));
  auto read = inMemory(leaves);
  for (uint64_t n = 1; n <= leaves.size(); ++n) {
    Hash root = rangeHash(0, n, read);
    for (uint64_t i = 0; i < n; ++i) {
      auto proof = inclusionProof(i, n, read);
      EXPECT_TRUE(verifyInclusion(i, n, leaves[i], proof, root)) << i << " of " << n;
      EXPECT_FALSE(verifyInclusion(i, n, leaves[(i + 1) % leaves.size()], proof, root));
      if (!proof.empty()) {
        auto altered = proof;
        altered.back()[0] ^= 1;
        EXPECT_FALSE(verifyInclusion(i, n, leaves[i], altered, root)) << i << " of " << n;
        altered.pop_back();
        EXPECT_FALSE(verifyInclusion(i, n, leaves[i], altered, root)) << i << " of " << n;
      }
      EXPECT_FALSE(verifyInclusion(i, n, leaves[i], proof, leafHash("another root")));
    }
    for (uint64_t m = 1; m <= n; ++m) {
      Hash first = rangeHash(0, m, read);
      auto proof = consistencyProof(m, n, read);
      EXPECT_TRUE(verifyConsistency(m, n, first, root, proof)) << m << " to " << n;
      if (m < n) {
        Hash other = leafHash("not the first tree");
        EXPECT_FALSE(verifyConsistency(m, n, other, root, proof)) << m << " to " << n;
        auto altered = proof;
        altered.front()[31] ^= 0x80;
        EXPECT_FALSE(verifyConsistency(m, n, first, root, altered)) << m << " to " << n;
        altered = proof;
        altered.back()[0] ^= 1;
        EXPECT_FALSE(verifyConsistency(m, n, first, root, altered)) << m << " to " << n;
        altered = proof;
        altered.push_back(first);
        EXPECT_FALSE(verifyConsistency(m, n, first, root, altered)) << m << " to " << n;
        altered = proof;
        altered.pop_back();
        EXPECT_FALSE(verifyConsistency(m, n, first, root, altered)) << m << " to " << n;
      }
    }
  }
  // From the empty tree: nothing to prove, but its root is still the empty root.
  EXPECT_TRUE(verifyConsistency(0, 5, emptyRoot(), rangeHash(0, 5, read), {}));
  EXPECT_FALSE(verifyConsistency(0, 5, leaves[0], rangeHash(0, 5, read), {}));
  EXPECT_THROW(inclusionProof(3, 3, read), std::invalid_argument);
  EXPECT_THROW(consistencyProof(4, 3, read), std::invalid_argument);
}

TEST(MerkleTest, AProofReadsLogarithmicallyManyStoredSubtrees) {
  // 2^20 + 3 leaves: nothing is read but the subtrees the proof is made of.
  const uint64_t n = (uint64_t{1} << 20) + 3;
  auto nodes = nodesRead([&](const NodeReader& r) { inclusionProof(123456, n, r); });
  EXPECT_LE(nodes.size(), 2u * 21u);
  auto more = nodesRead([&](const NodeReader& r) { consistencyProof(654321, n, r); });
  EXPECT_LE(more.size(), 2u * 21u * 2u);
}

}  // namespace
}  // namespace signet::merkle
