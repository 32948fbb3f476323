// A JSON-RPC 2.0 client for chain nodes (Ethereum's and Solana's APIs): one call per HTTP
// exchange, with the deadline, TLS and size bounds of signet/egress.hpp.
#pragma once

#include <Poco/Dynamic/Var.h>

#include <string>
#include <vector>

#include "signet/error.hpp"
#include "signet/json.hpp"

namespace signing::broadcast {

// The node answered with an error object: {code, message, data}.
class RpcError : public signet::Error {
 public:
  RpcError(int code, std::string message, Poco::Dynamic::Var data)
      : signet::Error(signet::Code::kFailedPrecondition, message),
        rpcCode_(code),
        rpcMessage_(std::move(message)),
        data_(std::move(data)) {}
  int rpcCode() const { return rpcCode_; }
  const std::string& rpcMessage() const { return rpcMessage_; }
  const Poco::Dynamic::Var& data() const { return data_; }

 private:
  int rpcCode_;
  std::string rpcMessage_;
  Poco::Dynamic::Var data_;
};

// Building calls and reading answers, for every caller of a node.
signet::json::Array params(std::initializer_list<Poco::Dynamic::Var> values);
// The value as an object; null when it is anything else (a node's null, a string).
signet::json::Object objectOf(const Poco::Dynamic::Var& value);
// A string member of `o`; empty when `o` is null or the member is absent or not a string.
std::string textOf(const signet::json::Object& o, const char* key);

class JsonRpc {
 public:
  JsonRpc(std::string url, std::string name, int timeoutSeconds, bool allowHttp)
      : url_(std::move(url)),
        name_(std::move(name)),
        timeoutSeconds_(timeoutSeconds),
        allowHttp_(allowHttp) {}
  // The `result` of the call. RpcError when the node answers an error; signet::Error
  // (kUnavailable) naming the node when it cannot be reached or does not answer in time.
  Poco::Dynamic::Var call(const std::string& method, const signet::json::Array& params) const;
  // Several calls in one exchange, a JSON-RPC batch, under one deadline: their results in the
  // order given. RpcError for the first call the node refused.
  struct Call {
    std::string method;
    signet::json::Array params;
  };
  std::vector<Poco::Dynamic::Var> batch(const std::vector<Call>& calls) const;
  const std::string& name() const { return name_; }
  // Answers of up to `bytes` (1 MiB unless set): a history follower's batches of whole blocks.
  JsonRpc& answersUpTo(size_t bytes) {
    maxAnswerBytes_ = bytes;
    return *this;
  }

 private:
  // The node's answer to `body`, a JSON text; `what` names the call in errors.
  std::string exchange(const std::string& body, const std::string& what) const;
  Poco::Dynamic::Var resultOf(const signet::json::Object& reply, const std::string& method) const;

  std::string url_, name_;
  int timeoutSeconds_;
  bool allowHttp_;
  size_t maxAnswerBytes_ = 1 << 20;
};

}  // namespace signing::broadcast
