#include "json_rpc.hpp"

#include <chrono>
#include <map>

#include "signet/egress.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
json::Object request(int id, const std::string& method, const json::Array& params) {
  json::Object r = json::object();
  r->set("jsonrpc", "2.0");
  r->set("id", id);
  r->set("method", method);
  r->set("params", params);
  return r;
}
}  // namespace

json::Array params(std::initializer_list<Poco::Dynamic::Var> values) {
  json::Array a = json::array();
  for (const auto& v : values) a->add(v);
  return a;
}

json::Object objectOf(const Poco::Dynamic::Var& value) {
  return value.type() == typeid(json::Object) ? value.extract<json::Object>() : nullptr;
}

std::string textOf(const json::Object& o, const char* key) {
  return o && o->has(key) && o->get(key).isString() ? o->get(key).toString() : "";
}

std::string JsonRpc::exchange(const std::string& body, const std::string& what) const {
  // The node is the operator's own choice (broadcast settings): it may be on any address.
  auto answer =
      egress::exchange({.method = "POST",
                        .url = url_,
                        .headers = {},
                        .contentType = "application/json",
                        .body = body},
                       {.peer = name_,
                        .deadline = egress::Clock::now() + std::chrono::seconds(timeoutSeconds_),
                        .allowHttp = allowHttp_,
                        .allowInternal = true,
                        .caFile = {},
                        .maxAnswerBytes = maxAnswerBytes_});
  if (answer.body.empty() || (answer.body[0] != '{' && answer.body[0] != '['))
    throw Error(Code::kUnavailable, name_ + " answered " + what + " with HTTP " +
                                        std::to_string(answer.status) + " and no JSON-RPC reply");
  return answer.body;
}

Poco::Dynamic::Var JsonRpc::resultOf(const json::Object& reply, const std::string& method) const {
  if (auto error = reply->getObject("error"))
    throw RpcError(error->optValue<int>("code", 0), error->optValue<std::string>("message", ""),
                   error->get("data"));
  if (!reply->has("result"))
    throw Error(Code::kUnavailable, name_ + " answered " + method + " without a result");
  return reply->get("result");
}

Poco::Dynamic::Var JsonRpc::call(const std::string& method, const json::Array& params) const {
  std::string body = exchange(json::stringify(request(1, method, params)), method);
  json::Object reply;
  try {
    reply = json::parseObject(body, name_ + "'s answer");
  } catch (const Error&) {
    throw Error(Code::kUnavailable, name_ + " answered " + method + " with no JSON-RPC reply");
  }
  return resultOf(reply, method);
}

std::vector<Poco::Dynamic::Var> JsonRpc::batch(const std::vector<Call>& calls) const {
  if (calls.empty()) return {};
  json::Array requests = json::array();
  for (size_t i = 0; i < calls.size(); ++i)
    requests->add(request(static_cast<int>(i), calls[i].method, calls[i].params));
  const std::string what = "a batch of " + std::to_string(calls.size()) + " calls";
  std::string body = exchange(json::stringify(requests), what);
  // A node answers a batch with an array, in any order, matched to the calls by id.
  json::Array replies;
  try {
    replies = json::parseArray(body, name_ + "'s answer");
  } catch (const Error&) {
  }
  if (!replies)
    throw Error(Code::kUnavailable, name_ + " answered " + what + " with no JSON-RPC batch reply");
  std::map<int, json::Object> byId;
  for (unsigned i = 0; i < replies->size(); ++i)
    if (auto reply = replies->getObject(i);
        reply && reply->has("id") && reply->get("id").isInteger())
      byId[reply->getValue<int>("id")] = reply;
  std::vector<Poco::Dynamic::Var> results;
  for (size_t i = 0; i < calls.size(); ++i) {
    auto reply = byId.find(static_cast<int>(i));
    if (reply == byId.end())
      throw Error(Code::kUnavailable,
                  name_ + " left " + calls[i].method + " of " + what + " unanswered");
    results.push_back(resultOf(reply->second, calls[i].method));
  }
  return results;
}

}  // namespace signing::broadcast
