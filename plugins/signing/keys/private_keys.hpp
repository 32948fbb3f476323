// Private keys: create_private_keys V2 (one address per requested format),
// delete_private_keys, get_private_key, list_private_keys.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct PrivateKeyParameters {
  std::string privateKeyName, curve;
  std::vector<std::string> addressFormats, privateKeyTags;
};
struct CreatePrivateKeysParameters {
  std::vector<PrivateKeyParameters> privateKeys;
};
struct DeletePrivateKeysParameters {
  std::vector<std::string> privateKeyIds;
  std::optional<bool> deleteWithoutExport;
};
extern const signet::Shape<CreatePrivateKeysParameters> kCreatePrivateKeys;
extern const signet::Shape<DeletePrivateKeysParameters> kDeletePrivateKeys;

signet::json::Object createPrivateKeys(signet::ActivityContext& ctx,
                                       const CreatePrivateKeysParameters& params);
signet::json::Object deletePrivateKeys(signet::ActivityContext& ctx,
                                       const DeletePrivateKeysParameters& params);
// Seals and records a key (create, or import_private_key); returns its id and addresses.
std::pair<std::string, signet::json::Array> storePrivateKey(
    signet::ActivityContext& ctx, const std::string& name, const std::string& curveName,
    const signet::crypto::SecretBytes& privateKey, const std::vector<std::string>& formats,
    bool imported);

signet::json::Object getPrivateKey(signet::RequestContext& ctx, const signet::json::Object& body);
signet::json::Object listPrivateKeys(signet::RequestContext& ctx, const signet::json::Object& body);

}  // namespace signing
