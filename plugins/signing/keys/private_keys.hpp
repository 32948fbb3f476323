// Private keys: create_private_keys V2 (one address per requested format),
// delete_private_keys, get_private_key, list_private_keys.
#pragma once

#include "signet/plugin.hpp"

namespace signing {

signet::json::Object createPrivateKeys(signet::ActivityContext& ctx,
                                       const signet::json::Object& params);
signet::json::Object deletePrivateKeys(signet::ActivityContext& ctx,
                                       const signet::json::Object& params);
// Seals and records a key (create, or import_private_key); returns its id and addresses.
std::pair<std::string, signet::json::Array> storePrivateKey(
    signet::ActivityContext& ctx, const std::string& name, const std::string& curveName,
    const signet::crypto::SecretBytes& privateKey, const std::vector<std::string>& formats,
    bool imported);

signet::json::Object getPrivateKey(signet::RequestContext& ctx, const signet::json::Object& body);
signet::json::Object listPrivateKeys(signet::RequestContext& ctx, const signet::json::Object& body);

}  // namespace signing
