#include "tenancy/contacts.hpp"

#include <algorithm>

#include "signet/jwt.hpp"

namespace signet::contacts {

namespace {
// The spent_verification_tokens row of a use: the token id for a login (as before uses had
// kinds), the id with "/signup" for a sign-up.
std::string spentKey(const VerifiedContact& v, TokenUse use) {
  return use == TokenUse::kSignup ? v.tokenId + "/signup" : v.tokenId;
}
const char* useName(TokenUse use) {
  return use == TokenUse::kSignup ? "a sign-up" : "a login";
}
}  // namespace

VerifiedContact checkVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field, TokenUse use) {
  auto verified =
      jwt::verifyEs256(token, *fromHex(ctx.signerPublicKey()), jwt::Hashing::kSingleSha256);
  if (!verified)
    throw invalidArgument("invalid field " + field +
                          ": not a verification token signed by this gateway");
  json::Object claims = *verified;
  VerifiedContact v;
  v.tokenId = claims->optValue<std::string>("id", "");
  v.type = claims->optValue<std::string>("verification_type", "");
  v.contact = claims->optValue<std::string>("contact", "");
  if (claims->has("public_key")) v.publicKey = claims->getValue<std::string>("public_key");
  v.organizationId = claims->optValue<std::string>("organization_id", "");
  try {
    v.expiresAtMs = std::stoll(claims->get("exp").convert<std::string>());
  } catch (...) {
  }
  if (v.tokenId.empty() || v.contact.empty())
    throw invalidArgument("invalid field " + field + ": the token has no id or contact");
  if (v.expiresAtMs <= ctx.nowMs())
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " has expired");
  const std::string& org = v.organizationId;
  if (!org.empty() && org != organizationId && (!parentId || org != *parentId))
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " was issued for organization " + org + ", not " + organizationId);
  if (ctx.db().queryOne("SELECT 1 FROM spent_verification_tokens WHERE id = ?", {spentKey(v, use)}))
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " has already been used for " + useName(use));
  return v;
}

void spend(RequestContext& ctx, const VerifiedContact& token, const std::string& field,
           TokenUse use) {
  // The primary key makes a concurrent second use fail inside its own transaction.
  if (ctx.db().queryOne("SELECT 1 FROM spent_verification_tokens WHERE id = ?",
                        {spentKey(token, use)}))
    throw invalidArgument("invalid field " + field + ": verification token " + token.tokenId +
                          " has already been used for " + useName(use));
  ctx.db().exec("INSERT INTO spent_verification_tokens (id, spent_at_ms) VALUES (?, ?)",
                {spentKey(token, use), ctx.nowMs()});
}

VerifiedContact spendVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field, TokenUse use) {
  auto v = checkVerificationToken(ctx, token, organizationId, parentId, field, use);
  spend(ctx, v, field, use);
  return v;
}

bool sameContact(const VerifiedContact& v, const std::string& type, const std::string& value) {
  if (v.type != type) return false;
  return type == "OTP_TYPE_EMAIL" ? asciiLower(v.contact) == asciiLower(value) : v.contact == value;
}

}  // namespace signet::contacts
