#include "chains/ethereum/rlp_checks.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include "signet/error.hpp"

namespace signing {

using namespace signet;

void RlpChecker::fail(const std::string& what) const {
  throw invalidArgument("invalid field " + path_ + ": " + what);
}

void RlpChecker::uint(const RlpItem& i, const std::string& name, size_t maxBytes) const {
  if (i.isList) fail(name + " is a list, not an integer");
  if (i.bytes.size() > maxBytes)
    fail(name + " is longer than " + std::to_string(maxBytes) + " bytes");
  if (!i.bytes.empty() && i.bytes[0] == 0) fail(name + " has a leading zero byte");
}

void RlpChecker::string(const RlpItem& i, const std::string& name) const {
  if (i.isList) fail(name + " is a list, not a byte string");
}

void RlpChecker::sized(const RlpItem& i, const std::string& name, size_t size) const {
  string(i, name);
  if (i.bytes.size() != size)
    fail(name + " has " + std::to_string(i.bytes.size()) + " bytes, not " + std::to_string(size));
}

const std::vector<RlpItem>& RlpChecker::list(const RlpItem& i, const std::string& name) const {
  if (!i.isList) fail(name + " is not a list");
  return i.items;
}

void RlpChecker::accessList(const RlpItem& i, const std::string& name) const {
  for (const auto& entry : list(i, name)) {
    const auto& pair = list(entry, "an access list entry");
    if (pair.size() != 2) fail("an access list entry is not [address, storage keys]");
    sized(pair[0], "an access list address", 20);
    for (const auto& key : list(pair[1], "access list storage keys"))
      sized(key, "an access list storage key", 32);
  }
}

std::string uintDecimal(const Bytes& bigEndian) {
  boost::multiprecision::cpp_int v;
  if (!bigEndian.empty()) boost::multiprecision::import_bits(v, bigEndian.begin(), bigEndian.end());
  return v.str();
}

}  // namespace signing
