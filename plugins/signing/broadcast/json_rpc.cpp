#include "json_rpc.hpp"

#include <chrono>

#include "signet/egress.hpp"

namespace signing::broadcast {

using namespace signet;

Poco::Dynamic::Var JsonRpc::call(const std::string& method, const json::Array& params) const {
  json::Object request = json::object();
  request->set("jsonrpc", "2.0");
  request->set("id", 1);
  request->set("method", method);
  request->set("params", params);
  // The node is the operator's own choice (broadcast settings): it may be on any address.
  auto answer =
      egress::exchange({.method = "POST",
                        .url = url_,
                        .headers = {},
                        .contentType = "application/json",
                        .body = json::stringify(request)},
                       {.peer = name_,
                        .deadline = egress::Clock::now() + std::chrono::seconds(timeoutSeconds_),
                        .allowHttp = allowHttp_,
                        .allowInternal = true});
  json::Object reply;
  try {
    reply = json::parseObject(answer.body, name_ + "'s answer");
  } catch (const Error&) {
    throw Error(Code::kUnavailable, name_ + " answered " + method + " with HTTP " +
                                        std::to_string(answer.status) + " and no JSON-RPC reply");
  }
  if (auto error = reply->getObject("error"))
    throw RpcError(error->optValue<int>("code", 0), error->optValue<std::string>("message", ""),
                   error->get("data"));
  if (!reply->has("result"))
    throw Error(Code::kUnavailable, name_ + " answered " + method + " without a result");
  return reply->get("result");
}

}  // namespace signing::broadcast
