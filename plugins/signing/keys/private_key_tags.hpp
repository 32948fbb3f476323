// Private key tags: create_private_key_tag, update_private_key_tag, delete_private_key_tags,
// list_private_key_tags (the same TagStore the core's user tags use).
#pragma once

#include "signet/plugin.hpp"
#include "signet/tag_store.hpp"

namespace signing {

inline constexpr size_t kMaxPrivateKeyTagsPerOrganization = 100;

const signet::TagStore& privateKeyTags();

signet::json::Object createPrivateKeyTag(signet::ActivityContext& ctx,
                                         const signet::json::Object& params);
signet::json::Object updatePrivateKeyTag(signet::ActivityContext& ctx,
                                         const signet::json::Object& params);
signet::json::Object deletePrivateKeyTags(signet::ActivityContext& ctx,
                                          const signet::json::Object& params);
signet::json::Object listPrivateKeyTags(signet::RequestContext& ctx,
                                        const signet::json::Object& body);

}  // namespace signing
