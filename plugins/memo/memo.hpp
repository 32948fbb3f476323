#pragma once

#include "signet/plugin.hpp"

namespace memo {
inline constexpr size_t kMaxMemoBytes = 1024;
std::vector<signet::Migration> migrations();
signet::json::Object createMemo(signet::ActivityContext& ctx, const signet::json::Object& params);
signet::json::Object listMemos(signet::RequestContext& ctx, const signet::json::Object& body);
}  // namespace memo
