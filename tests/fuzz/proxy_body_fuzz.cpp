// Fuzz target: the auth proxy's request bodies (plugins/auth-proxy/endpoints.hpp), which come
// from anyone on the internet with a configuration id. The first byte picks the endpoint, the
// rest is the body, parsed as the proxy parses it and handed to the endpoint with a
// configuration that allows every method. The coordinator is a loopback port nobody serves, so
// an endpoint reads and checks the body up to its first call, which then fails as the proxy's
// own handler sees it fail (a signet::Error, or the HTTP client's Poco exception). Anything
// else escaping, a crash or a sanitizer report, is a finding.
#include <Poco/Exception.h>

#include "../../plugins/auth-proxy/endpoints.hpp"
#include "fuzz_input.hpp"
#include "signet/crypto.hpp"

namespace {

const auth_proxy::LoadedConfig& config() {
  static const auth_proxy::LoadedConfig c = [] {
    auth_proxy::LoadedConfig c;
    c.configId = "3f0c7a8e-1b2d-4c5e-9f60-718293a4b5c6";
    c.organizationId = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
    c.enabled = true;
    c.settings = auth_proxy::effectiveSettings(signet::json::object());
    auto key = signet::crypto::generatePrivateKey(signet::crypto::Curve::kP256);
    c.signerPublicKey = signet::toHex(signet::crypto::uncompressPublicKey(
        signet::crypto::Curve::kP256,
        signet::crypto::publicKeyFromPrivate(signet::crypto::Curve::kP256, key)));
    c.stamper =
        std::make_shared<signet::ApiKeyStamper>(std::move(key), signet::stamp::Scheme::kP256);
    return c;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& table = auth_proxy::endpoints();
  const auto& endpoint = table[data[0] % table.size()];
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::refusesWithErrorOnly([&] {
    auto body = text.find_first_not_of(" \t\r\n") == std::string::npos
                    ? signet::json::object()
                    : signet::json::parseObject(text, "request body");
    const auth_proxy::Coordinator nobody{"http://127.0.0.1:9"};
    auth_proxy::CoordinatorCalls coordinator(nobody, config());
    auth_proxy::AbuseLimits limits;  // fresh: the limits count nothing across inputs
    auth_proxy::LimitSettings limitSettings;
    const std::string peer = "127.0.0.2";
    auth_proxy::ProxyCall call{config(),      coordinator,      body, peer, limits,
                               limitSettings, 1'790'000'000'000};
    auth_proxy::checkFields(endpoint, body);  // as the proxy does, before the endpoint runs
    try {
      endpoint.handler(call);
    } catch (const Poco::Exception&) {
      // The coordinator cannot be reached: the proxy answers that as Unavailable.
    }
  });
  return 0;
}
