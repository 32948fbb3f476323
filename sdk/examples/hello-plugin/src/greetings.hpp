// The hello plugin's rules and handlers: a greeting per name, stored per organization.
#pragma once

#include <string>
#include <vector>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace hello {

// "Hello, <name>!" for a name of 1 to 64 characters with no control characters; otherwise
// signet::Error InvalidArgument naming parameters.name and the value, so that bad input is
// refused before anything is written.
std::string greetingFor(const std::string& name);

// ACTIVITY_TYPE_HELLO_GREET's parameters, and their shape: a name that is not a string of 1 to
// 64 bytes is refused before any policy runs (greetingFor adds the rule about control
// characters). The handler receives them read and checked.
struct GreetParameters {
  std::string name;
};
extern const signet::Shape<GreetParameters> kGreet;
// ACTIVITY_TYPE_HELLO_GREET: stores the greeting and returns {greetingId, greeting}.
signet::json::Object greet(signet::ActivityContext& ctx, const GreetParameters& params);
// hello_list_greetings: the organization's greetings, oldest first.
signet::json::Object listGreetings(signet::RequestContext& ctx, const signet::json::Object& body);
// Policy facts for a greeting: hello.name and hello.name_length, so that a policy can say
// who may greet whom ("hello.name_length <= 5").
signet::json::Object facts(signet::RequestContext& ctx, const signet::json::Object& params);
// The plugin's tables.
std::vector<signet::Migration> migrations();

}  // namespace hello
