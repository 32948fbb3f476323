#include "chains/spark/spark_keys.hpp"

namespace signing {

using namespace signet;

std::optional<uint32_t> sparkAccountOfIdentityPath(const std::string& path) {
  std::string why;
  auto s = hd::parsePath(path, why);
  if (!s || s->size() != 3) return std::nullopt;
  const auto& p = *s;
  if (!p[0].hardened || p[0].index != kSparkPurpose || !p[1].hardened || !p[2].hardened ||
      p[2].index != 0)
    return std::nullopt;
  return p[1].index;
}

std::vector<hd::Segment> sparkLeafPath(uint32_t account, const std::string& leafId) {
  auto d = crypto::sha256(leafId);
  uint32_t prefix = static_cast<uint32_t>(d[0]) << 24 | static_cast<uint32_t>(d[1]) << 16 |
                    static_cast<uint32_t>(d[2]) << 8 | d[3];
  return {{kSparkPurpose, true}, {account, true}, {1, true}, {prefix % 0x80000000u, true}};
}

}  // namespace signing
