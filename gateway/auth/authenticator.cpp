#include "auth/authenticator.hpp"

#include <algorithm>

#include "auth/attested_stamp.hpp"
#include "auth/webauthn.hpp"
#include "signet/jwt.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/ip_allowlists.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet {

namespace {
// The organizations a credential may live in for a request to `target`.
std::vector<std::string> eligibleOrganizations(const OrganizationRecord& target) {
  std::vector<std::string> out{target.id};
  if (target.parentId) out.push_back(*target.parentId);
  return out;
}

std::string describe(const OrganizationRecord& target) {
  return "organization " + target.id +
         (target.parentId ? " or its parent " + *target.parentId : " (which has no parent)");
}

Caller callerFor(DirectoryView& directory, const std::string& organizationId,
                 const std::string& userId) {
  auto user = directory.user(organizationId, userId);
  if (!user)
    throw unauthenticated("credential's user " + userId + " no longer exists in organization " +
                          organizationId);
  Caller c;
  c.userId = user->id;
  c.userName = user->name;
  c.organizationId = organizationId;
  auto quorum = directory.rootQuorum(organizationId);
  c.inRootQuorum = std::find(quorum.begin(), quorum.end(), user->id) != quorum.end();
  return c;
}

template <class Record>
const Record* pick(DirectoryView& directory, const std::vector<Record>& candidates,
                   const std::vector<std::string>& orgs, bool downward) {
  // Prefer the target organization, then its parent, then (when allowed) a child of the target.
  for (const auto& org : orgs)
    for (const auto& c : candidates)
      if (c.organizationId == org) return &c;
  if (downward)
    for (const auto& c : candidates) {
      auto holder = directory.organization(c.organizationId);
      if (holder && holder->parentId == orgs.front()) return &c;
    }
  return nullptr;
}

// The organization the request acts in once the credential is known.
std::string actingOrganization(const OrganizationRecord& target, const std::string& credentialOrg) {
  bool below =
      credentialOrg != target.id && (!target.parentId || credentialOrg != *target.parentId);
  return below ? credentialOrg : target.id;
}

template <class Record>
std::string elsewhere(const std::vector<Record>& candidates) {
  if (candidates.empty()) return "";
  return "; it is registered in organization " + candidates.front().organizationId;
}
}  // namespace

PresentedStamp Authenticator::present(const HttpRequestData& request) const {
  StampHeaders h;
  auto take = [&](const char* name, std::optional<std::string>& slot) {
    auto it = request.headers.find(asciiLower(name));
    if (it == request.headers.end()) return;
    for (const auto& repeated : request.repeatedHeaders)
      if (repeated == it->first)
        throw invalidArgument(std::string("the ") + name + " header is repeated; send exactly one");
    if (it->second.size() > config_.maxHeaderBytes)
      throw invalidArgument(std::string("the ") + name + " header is " +
                            std::to_string(it->second.size()) + " bytes, over the limit of " +
                            std::to_string(config_.maxHeaderBytes));
    if (it->second.empty()) throw unauthenticated(std::string("the ") + name + " header is empty");
    slot = it->second;
  };
  take("X-Stamp", h.apiKey);
  take("X-Stamp-WebAuthn", h.webauthn);
  take("X-Stamp-Attested", h.attested);
  h.client = request.peer;
  if (!h.apiKey && !h.webauthn && !h.attested)
    throw unauthenticated("the request is not stamped: send an X-Stamp or X-Stamp-WebAuthn header");
  if (h.attested && !attestedStampAllowedOn(request.path))
    throw unauthenticated(
        "X-Stamp-Attested authenticates only stamp_login and the get_activity "
        "polls after it, not " +
        request.path);
  // Verified over the exact received bytes, before anything parses them.
  std::optional<VerifiedApiKeyStamp> apiKey;
  if (h.apiKey) apiKey = verifyApiKeyStamp(*h.apiKey, request.body);
  return PresentedStamp(std::move(h), std::move(apiKey), request.body);
}

Resolution Authenticator::resolve(Db& db, const PresentedStamp& stamp,
                                  const std::string& targetOrganizationId, int64_t nowMs,
                                  bool apiKeysDownward, Reads reads) const {
  DirectoryView directory(reads == Reads::kCached ? &cache_ : nullptr, db);
  return resolve(directory, stamp, targetOrganizationId, nowMs, apiKeysDownward);
}

Resolution Authenticator::resolve(DirectoryView& directory, const PresentedStamp& stamp,
                                  const std::string& targetOrganizationId, int64_t nowMs,
                                  bool apiKeysDownward) const {
  Db& db = directory.db();
  auto target = directory.organization(targetOrganizationId);
  if (!target) throw notFound("organization " + targetOrganizationId + " not found");
  Resolution who = resolveCaller(db, directory, stamp, *target, nowMs, apiKeysDownward);
  // Before anything else the request would do or spend: an API key fenced out of this address
  // by its organization's IP allowlist goes no further.
  if (stamp.apiKey())
    ip_allowlists::check(directory, who.caller, !who.rateBudget.empty(), stamp.headers().client);
  // The acting organization is the target or one of its sub-organizations, so its parent is
  // known without another read.
  chargeRate(
      who,
      who.organizationId == target->id ? target->parentId : std::optional<std::string>(target->id),
      nowMs);
  return who;
}

void Authenticator::chargeRate(const Resolution& who, const std::optional<std::string>& parentId,
                               int64_t nowMs) const {
  const std::string& organizationId = who.organizationId;
  if (!who.rateBudget.empty()) {
    // A service key's requests (the auth proxy's, made for strangers) are charged to the
    // service's budget for the organization whose key it is, and never to the organization's.
    if (!serviceRates_.enabled()) return;
    std::string bucket = who.rateBudget + ":" + who.caller.organizationId;
    if (auto wait = serviceRates_.take(bucket, nowMs))
      throw Error(
          Code::kResourceExhausted,
          "rate limit: the " + who.rateBudget + " budget of organization " +
              who.caller.organizationId + " may make " +
              std::to_string(static_cast<int>(config_.server.rateLimit.perAuthProxyPerSecond)) +
              " requests a second (limits.rateLimit.perAuthProxyPerSecond); retry in " +
              std::to_string(*wait) + " ms")
          .retryAfter(static_cast<int>((*wait + 999) / 1000));
    return;
  }
  if (!rates_.enabled()) return;
  // A sub-organization's requests count against its own bucket and one its parent's
  // sub-organizations share, never the parent's own: sub-organizations anyone can make (a
  // sign-up through the auth proxy) cannot throttle the parent's keys.
  std::vector<std::string> buckets{organizationId};
  if (parentId) buckets.push_back("children:" + *parentId);
  if (auto wait = rates_.take(buckets, nowMs))
    throw Error(
        Code::kResourceExhausted,
        "rate limit: organization " + organizationId +
            (parentId ? " (with the other sub-organizations of " + *parentId + ")" : "") +
            " may make " +
            std::to_string(static_cast<int>(config_.server.rateLimit.perOrganizationPerSecond)) +
            " requests a second (limits.rateLimit.perOrganizationPerSecond); retry in " +
            std::to_string(*wait) + " ms")
        .retryAfter(static_cast<int>((*wait + 999) / 1000));
}

Resolution Authenticator::resolveCaller(Db& db, DirectoryView& directory,
                                        const PresentedStamp& stamp,
                                        const OrganizationRecord& target, int64_t nowMs,
                                        bool apiKeysDownward) const {
  auto orgs = eligibleOrganizations(target);
  const StampHeaders& headers = stamp.headers();
  const std::optional<VerifiedApiKeyStamp>& apiKey = stamp.apiKey();
  const std::string_view body = stamp.body();

  if (apiKey) {
    auto keys = directory.apiKeysByPublicKey(apiKey->publicKey);
    const ApiKeyRecord* key = pick(directory, keys, orgs, apiKeysDownward);
    if (!key)
      throw unauthenticated(std::string(kUnknownKeyMessage) + ": public key " + apiKey->publicKey +
                            " is not registered in " + describe(target) + elsewhere(keys));
    if (key->expiresAtMs && *key->expiresAtMs <= nowMs)
      throw unauthenticated("rpc error: code = " + std::string(kExpiredKeyMessage) + " " +
                            key->publicKey + ": API key " + key->id + " of user " + key->userId +
                            " in organization " + key->organizationId + " expired");
    auto expected = apiKeyCurve(key->curve);
    if (!expected || *expected != stamp::curveOf(apiKey->scheme))
      throw unauthenticated(std::string("X-Stamp scheme ") + stamp::schemeName(apiKey->scheme) +
                            " does not match API key " + key->id + " (" + key->curve + ")");
    Caller c = callerFor(directory, key->organizationId, key->userId);
    c.publicKey = apiKey->publicKey;
    c.scheme = stamp::schemeName(apiKey->scheme);
    c.signature = apiKey->signature;
    return {c, actingOrganization(target, key->organizationId), key->rateBudget.value_or("")};
  }

  if (headers.webauthn) {
    WebAuthnStamp assertion = parseWebAuthnStamp(*headers.webauthn);
    auto candidates = directory::authenticatorsByCredentialId(db, assertion.credentialId);
    const AuthenticatorRecord* authenticator = pick(directory, candidates, orgs, true);
    if (!authenticator)
      throw unauthenticated("no valid user found for authenticator " + assertion.credentialId +
                            " in " + describe(target) + elsewhere(candidates));
    int64_t counter = verifyAssertion(assertion, *authenticator, body, config_.webauthnRpIds);
    if (counter > authenticator->signCount)
      directory::updateSignCount(db, authenticator->id, counter);
    Caller c = callerFor(directory, authenticator->organizationId, authenticator->userId);
    c.publicKey = authenticator->publicKey;
    c.scheme = "SIGNATURE_SCHEME_TK_WEBAUTHN";
    c.signature = toHex(assertion.signature);
    return {c, actingOrganization(target, authenticator->organizationId)};
  }
  if (headers.attested)
    return resolveAttested(db, directory, *headers.attested, body, target, nowMs);
  throw unauthenticated("the request is not stamped: send an X-Stamp or X-Stamp-WebAuthn header");
}

Resolution Authenticator::resolveAttested(Db& db, DirectoryView& directory,
                                          const std::string& header, std::string_view body,
                                          const OrganizationRecord& target, int64_t nowMs) const {
  AttestedStamp stamp = verifyAttestedStamp(header, body);
  if (stamp.scheme == kAttestedOidcScheme)
    return resolveOidcAttested(db, directory, stamp, target, nowMs);
  auto fail = [](const std::string& why) {
    return unauthenticated("X-Stamp-Attested: " + why, "SIGNATURE_INVALID");
  };
  auto claims =
      jwt::verifyEs256(stamp.token, *fromHex(signerPublicKey_), jwt::Hashing::kSingleSha256);
  if (!claims) throw fail("the attestation is not a verification token signed by this gateway");
  const json::Object& c = *claims;
  std::string tokenId = c->optValue<std::string>("id", "");
  int64_t expMs = 0;
  try {
    expMs = std::stoll(c->get("exp").convert<std::string>());
  } catch (...) {
  }
  if (expMs <= nowMs) throw fail("verification token " + tokenId + " has expired");
  auto bound = fromHex(c->optValue<std::string>("public_key", ""));
  auto boundKey = bound ? crypto::normalizePublicKey(crypto::Curve::kP256, *bound) : std::nullopt;
  if (!boundKey || toHex(*boundKey) != stamp.publicKey)
    throw fail("verification token " + tokenId + " is not bound to public key " + stamp.publicKey);
  std::string issuer = c->optValue<std::string>("organization_id", "");
  auto orgs = eligibleOrganizations(target);
  if (std::find(orgs.begin(), orgs.end(), issuer) == orgs.end())
    throw fail("verification token " + tokenId + " was issued by organization " + issuer +
               ", not by " + describe(target));
  // The user with the token's contact: in the target, else (a client that knows only the
  // parent) in one of the target's sub-organizations.
  std::string type = c->optValue<std::string>("verification_type", "");
  std::string contact = c->optValue<std::string>("contact", "");
  auto user = directory::findUserByContact(db, target.id, type, contact);
  for (const auto& child : directory::subOrganizationIds(db, target.id)) {
    if (user) break;
    user = directory::findUserByContact(db, child, type, contact);
  }
  if (!user)
    throw unauthenticated(std::string(kUnknownKeyMessage) + ": no user with contact " + contact +
                          " (" + type + ") in organization " + target.id +
                          " or its sub-organizations");
  Caller caller = callerFor(directory, user->organizationId, user->id);
  caller.publicKey = stamp.publicKey;
  caller.scheme = kAttestedTokenScheme;
  caller.attestation = stamp.token;
  return {caller, actingOrganization(target, user->organizationId)};
}

Resolution Authenticator::resolveOidcAttested(Db& db, DirectoryView& directory,
                                              const AttestedStamp& stamp,
                                              const OrganizationRecord& target,
                                              int64_t nowMs) const {
  auto fail = [](const std::string& why) {
    return unauthenticated("X-Stamp-Attested: " + why, "SIGNATURE_INVALID");
  };
  if (!services_.verifyOidcToken)
    throw fail(std::string(kAttestedOidcScheme) +
               " needs OIDC token verification, which the 'sessions' plugin provides; it is not "
               "enabled in this gateway's config (plugins.enabled)");
  // The issuer's keys may be fetched here: resolving holds a read connection, never the write
  // lock, and the fetch is bounded by the configured timeout.
  OidcIdentity id;
  try {
    id = services_.verifyOidcToken(services_, db, stamp.token, "publicKeyAttestation", nowMs, true);
  } catch (const Error& e) {
    if (e.code() != Code::kInvalidArgument) throw;
    throw fail(e.what());
  }
  if (id.nonce != jwt::oidcNonce(stamp.publicKey))
    throw fail("the OIDC token's nonce does not bind it to public key " + stamp.publicKey +
               " (expected " + jwt::oidcNonce(stamp.publicKey) + ")");
  // The user with the token's identity: in the target, else in one of its sub-organizations.
  std::optional<std::string> userId, organizationId;
  auto search = [&](const std::string& org) {
    if (auto u = oauth_providers::userWithIdentity(db, org, id.issuer, id.subject, id.audiences)) {
      userId = *u;
      organizationId = org;
    }
  };
  search(target.id);
  for (const auto& child : directory::subOrganizationIds(db, target.id)) {
    if (userId) break;
    search(child);
  }
  if (!userId)
    throw unauthenticated(std::string(kUnknownKeyMessage) + ": no user with OAuth provider " +
                          id.issuer + " / " + id.subject + " in organization " + target.id +
                          " or its sub-organizations");
  Caller caller = callerFor(directory, *organizationId, *userId);
  caller.publicKey = stamp.publicKey;
  caller.scheme = kAttestedOidcScheme;
  caller.attestation = stamp.token;
  return {caller, actingOrganization(target, *organizationId)};
}

}  // namespace signet
