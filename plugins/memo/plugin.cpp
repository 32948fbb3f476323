// The memo plugin's registration, and nothing else.
#include "memo.hpp"

namespace {

void registerMemo(signet::Registry& r) {
  using signet::RolloutState;
  r.activity({.type = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
              .path = "signet_create_memo",
              .intentKey = "signetCreateMemoIntent",
              .resultKey = "signetCreateMemoResult",
              .resource = "MEMO",
              .action = "CREATE",
              .handler = memo::kCreateMemoV1.handler(memo::createMemo),
              .parameters = memo::kCreateMemoV1.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2",
              .path = "signet_create_memo",
              .intentKey = "signetCreateMemoIntentV2",
              .resultKey = "signetCreateMemoResult",
              .resource = "MEMO",
              .action = "CREATE",
              .handler = memo::kCreateMemoV2.handler(memo::createMemo),
              .rollout = {.state = RolloutState::kCanary},  // reaches no one until opened
              .parameters = memo::kCreateMemoV2.specs()});
  // clang-format off
  r.query({"signet_list_memos", memo::listMemos});
  r.migrations("memo", memo::migrations());
  r.route({"GET",  "/about",  signet::RouteAccess::kPublic,  memo::about});
  r.route({"POST", "/latest", signet::RouteAccess::kStamped, memo::latest});
  // clang-format on
  // A listener of its own when the settings give it an address (plugins.settings.memo.listen).
  if (auto address = signet::json::optionalString(r.settings(), "listen", "plugins.settings.memo"))
    r.listener({"memo", *address, {{"GET", "/about", signet::RouteAccess::kPublic, memo::about}}});
}

}  // namespace

// What the gateway reads from the file before loading it (signet/plugin_descriptor.hpp). The host
// refuses the plugin if these paths differ from what registerMemo registers.
SIGNET_PLUGIN(registerMemo, {.name = "memo",
                             .version = "0.1.0",
                             .description = "organization memos: the example plugin",
                             .submitPaths = {"signet_create_memo"},
                             .queryPaths = {"signet_list_memos"},
                             .routes = {"GET /about public", "POST /latest stamped"},
                             .listeners = {"memo"}})
