// The memo plugin's registration, and nothing else.
#include "memo.hpp"

namespace {

void registerMemo(signet::Registry& r) {
  // clang-format off
  //          type                                path                  intent key                 result key                 resource  action
  r.activity({"ACTIVITY_TYPE_SIGNET_CREATE_MEMO", "signet_create_memo", "signetCreateMemoIntent", "signetCreateMemoResult", "MEMO", "CREATE", false, memo::createMemo});
  r.query({"signet_list_memos", memo::listMemos});
  r.migrations("memo", memo::migrations());
  // clang-format on
}

const signet::PluginDescriptor* descriptor() {
  static const signet::PluginDescriptor d{signet::kPluginAbiVersion, "memo", "0.1.0",
                                          "organization memos: the example plugin", registerMemo};
  return &d;
}

}  // namespace

SIGNET_PLUGIN(descriptor)
