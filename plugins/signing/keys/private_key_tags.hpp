// Private key tags: create_private_key_tag, update_private_key_tag, delete_private_key_tags,
// list_private_key_tags (the same TagStore the core's user tags use).
#pragma once

#include "signet/plugin.hpp"
#include "signet/tag_store.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

inline constexpr size_t kMaxPrivateKeyTagsPerOrganization = 100;

const signet::TagStore& privateKeyTags();

struct CreatePrivateKeyTagParameters {
  std::string privateKeyTagName;
  std::vector<std::string> privateKeyIds;
};
struct UpdatePrivateKeyTagParameters {
  std::string privateKeyTagId;
  std::optional<std::string> newPrivateKeyTagName;
  std::optional<std::vector<std::string>> addPrivateKeyIds, removePrivateKeyIds;
};
struct DeletePrivateKeyTagsParameters {
  std::vector<std::string> privateKeyTagIds;
};
extern const signet::Shape<CreatePrivateKeyTagParameters> kCreatePrivateKeyTag;
extern const signet::Shape<UpdatePrivateKeyTagParameters> kUpdatePrivateKeyTag;
extern const signet::Shape<DeletePrivateKeyTagsParameters> kDeletePrivateKeyTags;

signet::json::Object createPrivateKeyTag(signet::ActivityContext& ctx,
                                         const CreatePrivateKeyTagParameters& params);
signet::json::Object updatePrivateKeyTag(signet::ActivityContext& ctx,
                                         const UpdatePrivateKeyTagParameters& params);
signet::json::Object deletePrivateKeyTags(signet::ActivityContext& ctx,
                                          const DeletePrivateKeyTagsParameters& params);
signet::json::Object listPrivateKeyTags(signet::RequestContext& ctx,
                                        const signet::json::Object& body);

}  // namespace signing
