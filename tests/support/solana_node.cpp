#include "support/solana_node.hpp"

#include <Poco/PipeStream.h>

#include <cstdlib>

#include "signet/client.hpp"
#include "support/child_process.hpp"

namespace signet::test {

bool SolanaNode::required() {
  const char* v = std::getenv("SIGNET_REQUIRE_CHAINS");
  return v && std::string(v) == "1";
}

SolanaNode::SolanaNode() {
  in_ = std::make_unique<Poco::Pipe>();
  out_ = std::make_unique<Poco::Pipe>();
  const char* node = std::getenv("SIGNET_NODE");  // else the first node on PATH
  try {
    process_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
        node && *node ? node : "node", {SIGNET_TEST_SOURCE_DIR "/conformance/solana_rpc.mjs"},
        in_.get(), out_.get(), nullptr));
  } catch (const Poco::Exception& e) {
    unavailable_ = "node could not be started: " + e.displayText();
    return;
  }
  // solana rpc URL control URL, or unavailable: WHY (it then exits).
  Poco::PipeInputStream from(*out_);
  std::string line;
  std::getline(from, line);
  const std::string prefix = "solana rpc ";
  auto control = line.find(" control ");
  if (line.rfind(prefix, 0) != 0 || control == std::string::npos) {
    unavailable_ = line.empty() ? "tests/conformance/solana_rpc.mjs did not start" : line;
    return;
  }
  url_ = line.substr(prefix.size(), control - prefix.size());
  controlUrl_ = line.substr(control + 9);
}

SolanaNode::~SolanaNode() {
  if (process_) endChild(*in_, *process_);
}

Poco::Dynamic::Var SolanaNode::control(const std::string& method, json::Array params) {
  json::Object call = json::object();
  call->set("jsonrpc", "2.0");
  call->set("id", 1);
  call->set("method", method);
  call->set("params", params);
  auto r = Client(controlUrl_, nullptr).post("/", json::stringify(call));
  auto answer = json::parseObject(r.body, "solana_rpc.mjs control");
  if (answer->has("error"))
    throw std::runtime_error(method + ": " + json::stringify(answer->get("error")));
  return answer->get("result");
}

void SolanaNode::airdrop(const std::string& address, uint64_t lamports) {
  json::Array p = json::array();
  p->add(address);
  p->add(std::to_string(lamports));
  control("airdrop", p);
}

uint64_t SolanaNode::balance(const std::string& address) {
  return std::stoull(control("balance", json::stringArray({address})).convert<std::string>());
}

int64_t SolanaNode::advance(int blocks) {
  json::Array p = json::array();
  p->add(blocks);
  return control("advance", p).convert<int64_t>();
}

void SolanaNode::pause() {
  control("pause");
}

void SolanaNode::resume() {
  control("resume");
}

void SolanaNode::dropTransactions(bool on) {
  json::Array p = json::array();
  p->add(on);
  control("dropTransactions", p);
}

void SolanaNode::landFailures(bool on) {
  json::Array p = json::array();
  p->add(on);
  control("landFailures", p);
}

int SolanaNode::statusCalls(const std::string& signature) {
  return control("statusCalls", json::stringArray({signature})).convert<int>();
}

json::Object SolanaNode::landed(const std::string& signature) {
  auto v = control("landed", json::stringArray({signature}));
  return v.type() == typeid(json::Object) ? v.extract<json::Object>() : nullptr;
}

int SolanaNode::queued() {
  return control("queued").convert<int>();
}

}  // namespace signet::test
