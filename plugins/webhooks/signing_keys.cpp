#include "signing_keys.hpp"

#include "signet/encoding.hpp"

namespace webhooks {

using namespace signet;

namespace {
const char* kKind = "ed25519-private-key";
std::string secretId(const std::string& kid) {
  return "webhook-key:" + kid;
}

SigningKey createKey(RequestContext& ctx) {
  auto seed = crypto::generatePrivateKey(crypto::Curve::kEd25519);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, seed));
  // The kid names the key: a prefix of its own hash, so that two keys never share one.
  std::string kid = "whk_" + crypto::toHex(crypto::sha256(pub)).substr(0, 24);
  ctx.keyring().seal(secretId(kid), kKind, seed);
  ctx.db().exec(
      "INSERT INTO webhook_keys (kid, public_key, created_at_ms, retired_at_ms) VALUES (?, ?, ?, "
      "0)",
      {kid, pub, ctx.nowMs()});
  return {kid, pub};
}
}  // namespace

SigningKey currentKey(RequestContext& ctx) {
  auto row = ctx.db().queryOne(
      "SELECT kid, public_key FROM webhook_keys WHERE retired_at_ms = 0 ORDER BY created_at_ms "
      "DESC LIMIT 1");
  if (row) return {row->str("kid"), row->str("public_key")};
  return createKey(ctx);
}

SigningKey rotateKey(RequestContext& ctx) {
  currentKey(ctx);  // there is one to retire
  ctx.db().exec("UPDATE webhook_keys SET retired_at_ms = ? WHERE retired_at_ms = 0", {ctx.nowMs()});
  return createKey(ctx);
}

std::string signDelivery(RequestContext& ctx, const std::string& kid, int64_t timestampMs,
                         const std::string& eventId, const std::string& body) {
  std::string input =
      "v1.ed25519." + kid + "." + std::to_string(timestampMs) + "." + eventId + "." + body;
  auto seed = ctx.keyring().open(secretId(kid), kKind);
  return toHex(
      crypto::signEd25519(seed, reinterpret_cast<const uint8_t*>(input.data()), input.size()));
}

json::Object jwks(RequestContext& ctx, int64_t publishRetiredMs) {
  currentKey(ctx);
  json::Array keys = json::array();
  for (const auto& row : ctx.db().query(
           "SELECT kid, public_key, retired_at_ms FROM webhook_keys ORDER BY created_at_ms DESC")) {
    if (row.i64("retired_at_ms") != 0 && row.i64("retired_at_ms") + publishRetiredMs < ctx.nowMs())
      continue;
    json::Object k = json::object();
    k->set("kid", row.str("kid"));
    k->set("kty", "OKP");
    k->set("crv", "Ed25519");
    k->set("alg", "EdDSA");
    k->set("use", "sig");
    k->set("x", base64UrlEncode(*fromHex(row.str("public_key"))));
    k->set("turnkey_signature_algorithm", "ed25519");
    k->set("turnkey_signature_version", "v1");
    keys->add(k);
  }
  json::Object o = json::object();
  o->set("keys", keys);
  return o;
}

HttpReply jwksReply(RequestContext& ctx, int64_t publishRetiredMs) {
  HttpReply r;
  r.body = json::stringify(jwks(ctx, publishRetiredMs));
  r.headers.emplace_back("Cache-Control",
                         "public, max-age=86400, s-maxage=86400, stale-if-error=604800");
  return r;
}

}  // namespace webhooks
