#include "revert.hpp"

#include "batch_executor.hpp"
#include "signet/encoding.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
const Bytes kErrorString = {0x08, 0xc3, 0x79, 0xa0};  // Error(string)
const Bytes kPanic = {0x4e, 0x48, 0x7b, 0x71};        // Panic(uint256)

bool startsWith(const Bytes& data, const Bytes& prefix) {
  return data.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), data.begin());
}

// The string of an ABI-encoded Error(string), or nullopt when malformed.
std::optional<std::string> errorString(const Bytes& data) {
  if (data.size() < 4 + 64) return std::nullopt;
  size_t at = 4 + 32;
  uint64_t length = 0;
  for (size_t i = at + 24; i < at + 32; ++i) length = length << 8 | data[i];
  if (at + 32 + length > data.size()) return std::nullopt;
  return std::string(data.begin() + static_cast<long>(at + 32),
                     data.begin() + static_cast<long>(at + 32 + length));
}

json::Object entry(const std::string& address, const std::string& type,
                   const std::string& display) {
  json::Object e = json::object();
  e->set("address", address);
  e->set("errorType", type);
  e->set("displayMessage", display);
  return e;
}
}  // namespace

json::Array revertChain(const std::string& address, const Bytes& data) {
  json::Array chain = json::array();
  std::string at = address;
  Bytes rest = data;
  for (int depth = 0; depth < 8; ++depth) {
    if (auto failed = decodeCallFailed(rest)) {
      json::Object params = json::object();
      params->set("index", static_cast<int64_t>(failed->index));
      params->set("to", "0x" + toHex(failed->to));
      json::Object custom = json::object();
      custom->set("errorName", "CallFailed");
      custom->set("paramsJson", json::stringify(params));
      auto e =
          entry(at, "custom", "call " + std::to_string(failed->index) + " of the batch reverted");
      e->set("custom", custom);
      chain->add(e);
      at = "0x" + toHex(failed->to);
      rest = failed->reason;
      continue;
    }
    json::Object native = json::object();
    if (rest.empty()) {
      native->set("nativeType", "execution_reverted");
      auto e = entry(at, "native", "execution reverted");
      e->set("native", native);
      chain->add(e);
    } else if (auto message = startsWith(rest, kErrorString) ? errorString(rest) : std::nullopt) {
      native->set("nativeType", "error_string");
      native->set("message", *message);
      auto e = entry(at, "native", "execution reverted: " + *message);
      e->set("native", native);
      chain->add(e);
    } else if (startsWith(rest, kPanic) && rest.size() == 36) {
      uint64_t code = 0;
      for (size_t i = 28; i < 36; ++i) code = code << 8 | rest[i];
      native->set("nativeType", "panic");
      native->set("panicCode", std::to_string(code));
      auto e = entry(at, "native", "panic " + std::to_string(code));
      e->set("native", native);
      chain->add(e);
    } else {
      json::Object unknown = json::object();
      unknown->set(
          "selector",
          "0x" + toHex(Bytes(rest.begin(), rest.begin() + std::min<size_t>(4, rest.size()))));
      unknown->set("data", "0x" + toHex(rest));
      auto e = entry(at, "unknown", "reverted with unknown error data");
      e->set("unknown", unknown);
      chain->add(e);
    }
    break;
  }
  return chain;
}

std::string revertSummary(const json::Array& chain) {
  if (!chain || chain->size() == 0) return "execution reverted";
  return chain->getObject(static_cast<unsigned>(chain->size() - 1))
      ->getValue<std::string>("displayMessage");
}

}  // namespace signing::broadcast
