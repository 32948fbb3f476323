// Request parameters the signing plugin's tests build again and again.
#pragma once

#include <string>
#include <vector>

#include "signet/client.hpp"
#include "signet/json.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {

inline json::Object account(const std::string& curve, const std::string& path,
                            const std::string& format) {
  json::Object a = json::object();
  a->set("curve", curve);
  a->set("pathFormat", "PATH_FORMAT_BIP32");
  a->set("path", path);
  a->set("addressFormat", format);
  return a;
}

inline json::Object walletParams(const std::string& name,
                                 const std::vector<json::Object>& accounts) {
  json::Object p = json::object();
  p->set("walletName", name);
  json::Array list = json::array();
  for (const auto& a : accounts) list->add(a);
  p->set("accounts", list);
  return p;
}

inline json::Object signParams(const std::string& signWith, const std::string& payload,
                               const std::string& encoding, const std::string& hash) {
  json::Object p = json::object();
  p->set("signWith", signWith);
  p->set("payload", payload);
  p->set("encoding", encoding);
  p->set("hashFunction", hash);
  return p;
}

// The address of the one Ethereum account (m/44'/60'/0'/0/0) of a new wallet `name`, which
// `client` creates in `organizationId`.
inline std::string newEthereumAddress(const Client& client, const std::string& organizationId,
                                      const std::string& name) {
  return resultOf(client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", organizationId,
                                walletParams(name, {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0",
                                                            "ADDRESS_FORMAT_ETHEREUM")})),
                  "createWalletResult")
      ->getArray("addresses")
      ->getElement<std::string>(0);
}

}  // namespace signet::test
