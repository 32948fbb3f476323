#include "config_route.hpp"

#include <algorithm>
#include <cstdlib>

#include "config_store.hpp"
#include "sealed_key.hpp"
#include "signet/encoding.hpp"
#include "signet/stamp.hpp"

namespace auth_proxy {

using namespace signet;

namespace {

constexpr int64_t kClockSkewMs = 5 * 60 * 1000;

// The service key that stamped the body, once it is one of the trusted ones.
Bytes trustedStamper(const HttpCall& call, const TrustedProxies& trusted) {
  auto header = call.headers.find("x-stamp");
  if (header == call.headers.end())
    throw unauthenticated("the request is not stamped: a proxy stamps it with its service key");
  std::string why;
  auto decoded = stamp::decodeHeader(header->second, why);
  if (!decoded) throw unauthenticated("the X-Stamp header is malformed: " + why);
  if (decoded->scheme != stamp::schemeName(stamp::Scheme::kP256))
    throw unauthenticated("a proxy's service key is P-256; the stamp's scheme is " +
                          decoded->scheme);
  auto pub = fromHex(decoded->publicKey);
  auto sig = fromHex(decoded->signature);
  auto canonical = pub ? crypto::normalizePublicKey(crypto::Curve::kP256, *pub) : std::nullopt;
  if (!canonical || !sig || !stamp::verify(stamp::Scheme::kP256, *canonical, *sig, call.body))
    throw unauthenticated("the stamp's signature does not verify over the body");
  if (std::find(trusted.keys.begin(), trusted.keys.end(), *canonical) == trusted.keys.end())
    throw Error(Code::kPermissionDenied, "service key " + decoded->publicKey +
                                             " is not a proxy this coordinator trusts: add it to "
                                             "plugins.settings.auth-proxy.trustedProxyKeys");
  return *canonical;
}

HttpReply reply(int status, const json::Object& body) {
  HttpReply r;
  r.status = status;
  r.body = json::stringify(body);
  return r;
}

}  // namespace

HttpReply serveProxyConfig(RequestContext& ctx, const HttpCall& call,
                           const TrustedProxies& trusted) {
  Bytes serviceKey = trustedStamper(call, trusted);
  auto body = json::parseObject(call.body, "request body");
  std::string configId = json::requireString(body, "configId", "");
  auto ts = json::optionalInt64String(body, "timestampMs", "");
  if (!ts || std::llabs(*ts - ctx.nowMs()) > kClockSkewMs)
    throw invalidArgument("invalid field timestampMs: it must be within five minutes of now");
  auto config = json::isUuid(configId) ? configById(ctx.db(), configId) : std::nullopt;
  if (!config) throw notFound("unknown auth proxy config id \"" + configId + "\"");
  json::Object out = json::object();
  out->set("config", configJson(*config));
  out->set("signerPublicKey", ctx.signerPublicKey());
  if (config->enabled) {
    auto key = proxyConfigs().open(ctx.keyring(), proxyKeyPart(), config->configId);
    out->set("sealedApiKey", sealedKeyJson(sealProxyKey(key, serviceKey)));
  }
  return reply(200, out);
}

}  // namespace auth_proxy
