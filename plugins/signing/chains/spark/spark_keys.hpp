// Where a Spark wallet's keys sit below its seed (the Spark SDK's DefaultSparkKeysGenerator):
// m/8797555'/<account>'/0' is the identity key (a Spark address names it), /1' the base of the
// leaf signing keys, /2' deposit, /3' static deposit, /4' HTLC preimage.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/hd_keys.hpp"

namespace signing {

inline constexpr uint32_t kSparkPurpose = 8797555;

// The account number of an identity-key path m/8797555'/<account>'/0'; nullopt otherwise.
std::optional<uint32_t> sparkAccountOfIdentityPath(const std::string& path);

// A leaf's signing key: m/8797555'/<account>'/1'/<sha256(leafId)[0..4] big-endian mod 2^31>'.
std::vector<signet::hd::Segment> sparkLeafPath(uint32_t account, const std::string& leafId);

}  // namespace signing
