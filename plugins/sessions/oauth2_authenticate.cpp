#include "oauth2_authenticate.hpp"

#include <chrono>

#include "oauth2_credentials.hpp"
#include "signet/bundles.hpp"
#include "signet/egress.hpp"
#include "signet/jwt.hpp"
#include "signet/key_params.hpp"

namespace sessions {

using namespace signet;

namespace {
using Request = OAuth2AuthenticateParameters;
}  // namespace

const Shape<Request> kOauth2Authenticate = {
    field("oauth2CredentialId", &Request::oauth2CredentialId),
    field("authCode", &Request::authCode, {.maxLength = 2048}),
    field("redirectUri", &Request::redirectUri, {.maxLength = 2048}),
    field("codeVerifier", &Request::codeVerifier, {.maxLength = 2048}),
    field("nonce", &Request::nonce, {.maxLength = 2048}),
    field("bearerTokenTargetPublicKey", &Request::bearerTokenTargetPublicKey)};

namespace {
// The key the bearer token is sealed to, if any: checked by the preparer before the code is
// exchanged, and by the handler before it is spent, so that a bad key wastes neither.
std::optional<Bytes> bearerKeyOf(const Request& r) {
  const auto& target = r.bearerTokenTargetPublicKey;
  if (!target || target->empty()) return std::nullopt;
  return p256PublicKeyParam(*target, "parameters.bearerTokenTargetPublicKey");
}

// Where the code's answer is kept between preparer and handler, and what marks it spent: the
// code bound to its credential, hashed (the code itself is a secret).
std::string codeKey(const Request& r) {
  auto d = crypto::sha256(r.oauth2CredentialId + "\n" + r.authCode);
  return toHex(Bytes(d.begin(), d.end()));
}

struct Provider {
  std::string name;     // "x" or "discord": the subject's prefix
  std::string display;  // for messages
  const OAuth2Endpoints* endpoints;
};

Provider providerOf(const OAuth2Credential& c, const OAuth2Settings& s) {
  if (c.provider == "OAUTH2_PROVIDER_X") return {"x", "X", &s.x};
  return {"discord", "Discord", &s.discord};
}

json::Object answerObject(const egress::Answer& a, const std::string& what) {
  try {
    return json::parseObject(a.body, what);
  } catch (const Error&) {
    throw Error(Code::kUnavailable,
                what + " did not answer a JSON object (HTTP " + std::to_string(a.status) + ")");
  }
}

// The code exchanged for an access token, and the user it belongs to.
ExchangedCode exchangeCode(const Request& r, const OAuth2Credential& c,
                           const crypto::SecretBytes& secret, const OAuth2Settings& s,
                           int64_t nowMs) {
  Provider provider = providerOf(c, s);
  // The endpoints are the operator's (plugins.settings.sessions.oauth2): any address may be used.
  egress::Rules rules{.deadline = egress::Clock::now() + std::chrono::seconds(s.timeoutSeconds),
                      .allowHttp = s.allowHttp,
                      .allowInternal = true,
                      .caFile = s.caFile};
  // The client authenticates with HTTP Basic (RFC 6749 §2.3.1), which both providers accept for
  // confidential clients; the client id is in the body as well, as X's PKCE guide shows it.
  std::string credentials =
      c.clientId + ":" + std::string(secret.data(), secret.data() + secret.size());
  egress::Request token{.method = "POST",
                        .url = provider.endpoints->tokenUrl,
                        .headers = {{"Authorization", "Basic " + base64Encode(credentials)}},
                        .contentType = "application/x-www-form-urlencoded",
                        .body = formEncode({{"grant_type", "authorization_code"},
                                            {"code", r.authCode},
                                            {"redirect_uri", r.redirectUri},
                                            {"code_verifier", r.codeVerifier},
                                            {"client_id", c.clientId}})};
  std::fill(credentials.begin(), credentials.end(), '\0');
  std::string what = provider.display + " token endpoint";
  rules.peer = what;
  auto answer = egress::exchange(token, rules);
  std::fill(token.headers[0].second.begin(), token.headers[0].second.end(), '\0');
  if (answer.status >= 400 && answer.status < 500) {
    // The provider refused the code: a bad, spent or expired code, a redirect URI or PKCE
    // verifier that does not match. Its error and description say which (RFC 6749 §5.2).
    json::Object error = answerObject(answer, what);
    throw invalidArgument(
        "invalid field parameters.authCode: the " + what + " (" + provider.endpoints->tokenUrl +
        ") refused the code with HTTP " + std::to_string(answer.status) + ": " +
        error->optValue<std::string>("error", "no error code") + " (" +
        error->optValue<std::string>("error_description", "no description") + ")");
  }
  if (answer.status != 200)
    throw Error(Code::kUnavailable, "the " + what + " (" + provider.endpoints->tokenUrl +
                                        ") answered HTTP " + std::to_string(answer.status));
  std::string accessToken = answerObject(answer, what)->optValue<std::string>("access_token", "");
  if (accessToken.empty())
    throw Error(Code::kUnavailable, "the " + what + " answered without an access_token");

  what = provider.display + " user-info endpoint";
  rules.peer = what;
  auto user = egress::exchange({.url = provider.endpoints->userInfoUrl,
                                .headers = {{"Authorization", "Bearer " + accessToken}}},
                               rules);
  if (user.status != 200)
    throw Error(Code::kUnavailable, "the " + what + " (" + provider.endpoints->userInfoUrl +
                                        ") answered HTTP " + std::to_string(user.status));
  json::Object profile = answerObject(user, what);
  // X wraps the user in "data" (GET /2/users/me); Discord answers the user itself.
  json::Object who = provider.name == "x" ? profile->getObject("data") : profile;
  std::string id = who ? who->optValue<std::string>("id", "") : "";
  if (id.empty()) throw Error(Code::kUnavailable, "the " + what + " answered no user id");
  ExchangedCode out{provider.name + ":" + id,
                    crypto::SecretBytes(Bytes(accessToken.begin(), accessToken.end()))};
  std::fill(accessToken.begin(), accessToken.end(), '\0');
  return out;
}

bool spent(Db& db, const std::string& key) {
  return db.queryOne("SELECT 1 FROM oauth2_spent_codes WHERE code_hash = ?", {key}).has_value();
}

OAuth2Credential credentialOf(RequestContext& ctx, const Request& r) {
  auto c = findOAuth2Credential(ctx.db(), ctx.organizationId(), r.oauth2CredentialId);
  if (!c)
    throw notFound("OAuth 2.0 credential " + r.oauth2CredentialId +
                   " (parameters.oauth2CredentialId) not found in organization " +
                   ctx.organizationId());
  return *c;
}
}  // namespace

ActivityPreparer oauth2Preparer(std::shared_ptr<const PluginState> state) {
  return [state](RequestContext& ctx, const json::Object& p) {
    Request r = kOauth2Authenticate.read(p);
    bearerKeyOf(r);
    auto credential = credentialOf(ctx, r);
    std::string key = codeKey(r);
    if (spent(ctx.db(), key))
      throw invalidArgument("invalid field parameters.authCode: this code was already used");
    auto secret = oauth2Credentials().open(ctx.keyring(), clientSecretPart(), credential.id);
    state->oauth2Exchanges.put(
        key, exchangeCode(r, credential, secret, state->settings.oauth2, ctx.nowMs()), ctx.nowMs());
  };
}

json::Object oauth2Authenticate(ActivityContext& ctx, const Request& r, const PluginState& state) {
  const auto bearerKey = bearerKeyOf(r);
  auto credential = credentialOf(ctx, r);
  std::string key = codeKey(r);
  if (spent(ctx.db(), key))
    throw invalidArgument("invalid field parameters.authCode: this code was already used");
  auto exchanged = state.oauth2Exchanges.take(key, ctx.nowMs());
  if (!exchanged)
    throw failedPrecondition(
        "the provider's answer for this code is no longer held (it is kept for a minute after "
        "the exchange); start the login again with a new code");
  ctx.db().exec("INSERT INTO oauth2_spent_codes (code_hash, spent_at_ms) VALUES (?, ?)",
                {key, ctx.nowMs()});

  const GatewayFacts& self = ctx.services().gateway;
  int64_t now = ctx.nowMs() / 1000;
  json::Object claims = json::object();
  claims->set("iss", self.publicUrl);
  claims->set("sub", exchanged->subject);
  claims->set("aud", credential.clientId);
  claims->set("iat", now);
  claims->set("exp", now + state.settings.oauth2.tokenLifetimeSeconds);
  claims->set("nonce", r.nonce);
  if (bearerKey)
    claims->set("encrypted_bearer_token",
                bundles::credentialBundle(*bearerKey, exchanged->bearerToken));
  json::Object header = json::object();
  header->set("alg", "ES256");
  header->set("typ", "JWT");
  header->set("kid", self.oidcIssuerKeyId);
  std::string token =
      jwt::signEs256([&ctx](const crypto::Digest& d) { return ctx.signAsOidcIssuer(d); },
                     json::stringify(header), json::stringify(claims), jwt::Hashing::kSingleSha256);
  json::Object result = json::object();
  result->set("oidcToken", token);
  return result;
}

}  // namespace sessions
