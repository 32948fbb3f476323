// The hello plugin's registration, and nothing else: one activity, one query, its policy facts
// and its tables. SIGNET_PLUGIN declares what the gateway reads before loading the library.
#include "greetings.hpp"

namespace {

void registerHello(signet::Registry& r) {
  // Named fields; the handler and the parameters' shape come from one table (hello::kGreet).
  r.activity({.type = "ACTIVITY_TYPE_HELLO_GREET",
              .path = "hello_greet",
              .intentKey = "helloGreetIntent",
              .resultKey = "helloGreetResult",
              .resource = "HELLO",
              .action = "CREATE",
              .handler = hello::kGreet.handler(hello::greet),
              .parameters = hello::kGreet.specs(),
              .facts = hello::facts});
  r.query({"hello_list_greetings", hello::listGreetings});
  r.factKeywords({"hello"});  // the policy keywords its facts fill
  r.migrations("hello", hello::migrations());
}

}  // namespace

SIGNET_PLUGIN(registerHello, {.name = "hello",
                              .version = "0.1.0",
                              .description = "greetings: the out-of-tree example plugin",
                              .submitPaths = {"hello_greet"},
                              .queryPaths = {"hello_list_greetings"}})
