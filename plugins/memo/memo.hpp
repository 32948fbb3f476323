#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace memo {
inline constexpr size_t kMaxMemoBytes = 1024;
inline constexpr size_t kMaxTitleBytes = 100;
std::vector<signet::Migration> migrations();
// V1 and V2; V2 adds a title. V2 ships as canary, to show a version rolled out in stages.
// signet_create_memo's parameters, every version's: V2 added the title.
struct MemoParameters {
  std::optional<std::string> title;
  std::string text;
};
extern const signet::Shape<MemoParameters> kCreateMemoV1, kCreateMemoV2;
signet::json::Object createMemo(signet::ActivityContext& ctx, const MemoParameters& params);
signet::json::Object listMemos(signet::RequestContext& ctx, const signet::json::Object& body);
// GET /plugins/memo/about (public, also on the memo listener): what the plugin is, as text.
signet::HttpReply about(signet::RequestContext& ctx, const signet::HttpCall& call);
// POST /plugins/memo/latest (stamped): the caller's organization's latest memo and who asks.
signet::HttpReply latest(signet::RequestContext& ctx, const signet::HttpCall& call);
}  // namespace memo
