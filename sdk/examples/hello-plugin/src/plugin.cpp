// The hello plugin's registration, and nothing else: one activity, one query, its policy facts
// and its tables. SIGNET_PLUGIN declares what the gateway reads before loading the library.
#include "greetings.hpp"

namespace {

void registerHello(signet::Registry& r) {
  // clang-format off
  //          type                          path           intent key          result key          resource  action
  r.activity({"ACTIVITY_TYPE_HELLO_GREET", "hello_greet", "helloGreetIntent", "helloGreetResult", "HELLO", "CREATE", false, hello::greet});
  r.query({"hello_list_greetings", hello::listGreetings});
  // clang-format on
  r.factProvider({"hello"}, hello::facts);
  r.migrations("hello", hello::migrations());
}

}  // namespace

SIGNET_PLUGIN(registerHello, {.name = "hello",
                              .version = "0.1.0",
                              .description = "greetings: the out-of-tree example plugin",
                              .submitPaths = {"hello_greet"},
                              .queryPaths = {"hello_list_greetings"}})
