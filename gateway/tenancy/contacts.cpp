#include "tenancy/contacts.hpp"

#include <algorithm>

#include "signet/jwt.hpp"

namespace signet::contacts {

namespace {
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::string validateEmail(const std::string& input, const std::string& field) {
  std::string email = trim(input);
  auto at = email.find('@');
  bool ok = email.size() <= 254 && at != std::string::npos && at > 0 && at == email.rfind('@') &&
            email.find('.', at) != std::string::npos && email.back() != '.' &&
            std::none_of(email.begin(), email.end(), [](char c) {
              return std::isspace(static_cast<unsigned char>(c)) || c == ',';
            });
  if (!ok)
    throw invalidArgument("invalid field " + field + ": \"" + input + "\" is not an email address");
  return email;
}

std::string validatePhoneNumber(const std::string& input, const std::string& field) {
  std::string phone = trim(input);
  // E.164: a plus, a non-zero country code digit, at most 15 digits in all.
  bool ok = phone.size() >= 3 && phone.size() <= 16 && phone[0] == '+' && phone[1] >= '1' &&
            phone[1] <= '9' && std::all_of(phone.begin() + 1, phone.end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c));
            });
  if (!ok)
    throw invalidArgument("invalid field " + field + ": \"" + input +
                          "\" is not an E.164 phone number (like +14155550123)");
  return phone;
}

VerifiedContact spendVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field) {
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
  std::string org = claims->optValue<std::string>("organization_id", "");
  int64_t expMs = 0;
  try {
    expMs = std::stoll(claims->get("exp").convert<std::string>());
  } catch (...) {
  }
  if (v.tokenId.empty() || v.contact.empty())
    throw invalidArgument("invalid field " + field + ": the token has no id or contact");
  if (expMs <= ctx.nowMs())
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " has expired");
  if (!org.empty() && org != organizationId && (!parentId || org != *parentId))
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " was issued for organization " + org + ", not " + organizationId);
  if (ctx.db().queryOne("SELECT 1 FROM spent_verification_tokens WHERE id = ?", {v.tokenId}))
    throw invalidArgument("invalid field " + field + ": verification token " + v.tokenId +
                          " has already been used");
  ctx.db().exec("INSERT INTO spent_verification_tokens (id, spent_at_ms) VALUES (?, ?)",
                {v.tokenId, ctx.nowMs()});
  return v;
}

bool sameContact(const VerifiedContact& v, const std::string& type, const std::string& value) {
  if (v.type != type) return false;
  return type == "OTP_TYPE_EMAIL" ? lower(v.contact) == lower(value) : v.contact == value;
}

}  // namespace signet::contacts
