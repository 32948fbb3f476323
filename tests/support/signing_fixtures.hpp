// Request parameters the signing plugin's tests build again and again.
#pragma once

#include <string>
#include <vector>

#include "signet/json.hpp"

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

}  // namespace signet::test
