// Field checks shared by the RLP transaction formats (Ethereum, Tempo): each refusal is
// InvalidArgument "invalid field <path>: <what>", so a client learns which field is wrong.
#pragma once

#include <string>
#include <vector>

#include "chains/ethereum/rlp.hpp"

namespace signing {

class RlpChecker {
 public:
  explicit RlpChecker(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& what) const;
  // A canonical unsigned integer of at most maxBytes (no leading zero byte).
  void uint(const RlpItem& i, const std::string& name, size_t maxBytes) const;
  void string(const RlpItem& i, const std::string& name) const;
  void sized(const RlpItem& i, const std::string& name, size_t size) const;
  const std::vector<RlpItem>& list(const RlpItem& i, const std::string& name) const;
  // An EIP-2930 access list: [[address, [storage key, ...]], ...].
  void accessList(const RlpItem& i, const std::string& name) const;

 private:
  const std::string& path_;
};

// A big-endian unsigned integer in decimal ("0" for no bytes).
std::string uintDecimal(const signet::Bytes& bigEndian);

}  // namespace signing
