#include "otp_codes.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr const char* kCodeKind = "otp-code";
constexpr const char* kTargetKind = "p256-private-key";
constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

std::string codeSecretId(const std::string& otpId) {
  return "otp-code:" + otpId;
}
std::string targetSecretId(const std::string& otpId) {
  return "otp-target:" + otpId;
}

// What a person may type for a code: case-insensitive, Crockford's look-alikes (O for 0,
// I and L for 1), separators ignored.
std::string normalizeCode(const std::string& input) {
  std::string out;
  for (char c : input) {
    if (c == '-' || c == ' ') continue;
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (c == 'O') c = '0';
    if (c == 'I' || c == 'L') c = '1';
    out += c;
  }
  return out;
}

bool constantTimeEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Erases the sealed secrets of the organization's OTPs that can no longer be redeemed.
void sweepSecrets(ActivityContext& ctx) {
  for (const auto& row : ctx.db().query(
           "SELECT id FROM session_otps WHERE organization_id = ? AND secrets_erased = 0 AND "
           "(used = 1 OR attempts >= ? OR expires_at_ms <= ?)",
           {ctx.organizationId(), kMaxAttempts, ctx.nowMs()})) {
    ctx.keyring().erase(codeSecretId(row.str("id")));
    ctx.keyring().erase(targetSecretId(row.str("id")));
    ctx.db().exec("UPDATE session_otps SET secrets_erased = 1 WHERE id = ?", {row.str("id")});
  }
}
}  // namespace

std::string generateCode(int length, bool alphanumeric) {
  const int radix = alphanumeric ? 32 : 10;
  std::string code;
  while (static_cast<int>(code.size()) < length) {
    uint8_t b = crypto::randomBytes(1)[0];
    // Rejection sampling keeps every character equally likely.
    int limit = 256 - 256 % radix;
    if (b >= limit) continue;
    code += kCrockford[b % radix];
  }
  return code;
}

CreatedOtp createOtp(ActivityContext& ctx, const OtpRequest& r) {
  Db& db = ctx.db();
  const int64_t now = ctx.nowMs();
  sweepSecrets(ctx);
  auto recent = db.queryOne(
      "SELECT COUNT(*) AS n FROM session_otps WHERE organization_id = ? AND rate_key = ? AND "
      "created_at_ms > ?",
      {ctx.organizationId(), r.rateKey, now - kRateWindowMs});
  if (recent && recent->i64("n") >= kMaxRequestsPerWindow)
    throw resourceExhausted(std::string(kMaxOtpsMessage) + ": " +
                            std::to_string(kMaxRequestsPerWindow) + " codes were requested for " +
                            r.rateKey + " in the last 3 minutes; try again later");
  auto live = db.queryOne(
      "SELECT COUNT(*) AS n FROM session_otps WHERE organization_id = ? AND rate_key = ? AND used "
      "= 0 "
      "AND attempts < ? AND expires_at_ms > ?",
      {ctx.organizationId(), r.rateKey, kMaxAttempts, now});
  if (live && live->i64("n") >= kMaxLiveCodes)
    throw resourceExhausted(std::string(kMaxOtpsMessage) + ": " + r.rateKey + " already has " +
                            std::to_string(kMaxLiveCodes) + " live codes; use or let one expire");
  CreatedOtp out;
  out.id = ctx.newId();
  out.code = generateCode(r.length, r.alphanumeric);
  ctx.keyring().seal(codeSecretId(out.id), kCodeKind, crypto::SecretBytes(toBytes(out.code)));
  if (r.withTargetKey) {
    auto target = crypto::generatePrivateKey(crypto::Curve::kP256);
    out.targetPublicKey = toHex(crypto::uncompressPublicKey(
        crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, target)));
    ctx.keyring().seal(targetSecretId(out.id), kTargetKind, target);
  }
  db.exec(
      "INSERT INTO session_otps (id, organization_id, otp_type, contact, purpose, rate_key, "
      "attempts, used, has_target_key, secrets_erased, expires_at_ms, created_at_ms) VALUES (?, "
      "?, ?, ?, ?, ?, 0, 0, ?, 0, ?, ?)",
      {out.id, ctx.organizationId(), r.otpType, r.contact, r.purpose, r.rateKey,
       r.withTargetKey ? 1 : 0, now + r.expirationSeconds * 1000, now});
  return out;
}

void deleteOtp(ActivityContext& ctx, const std::string& otpId) {
  ctx.keyring().erase(codeSecretId(otpId));
  ctx.keyring().erase(targetSecretId(otpId));
  ctx.db().exec("DELETE FROM session_otps WHERE id = ?", {otpId});
}

OtpRecord redeemOtp(ActivityContext& ctx, const std::string& otpId, const std::string& code,
                    const std::string& purpose) {
  auto invalid = [&](const std::string& why) {
    return invalidArgument(std::string(kInvalidOtpMessage) + ": " + why);
  };
  auto row = ctx.db().queryOne(
      "SELECT otp_type, contact, purpose, attempts, used, expires_at_ms FROM session_otps WHERE "
      "id = ? AND organization_id = ?",
      {otpId, ctx.organizationId()});
  if (!row || row->str("purpose") != purpose)
    throw invalid("no OTP " + otpId + " was initiated in organization " + ctx.organizationId() +
                  (purpose == "auth" ? " by init_otp_auth" : " by init_otp"));
  OtpRecord r{otpId,
              ctx.organizationId(),
              row->str("otp_type"),
              row->str("contact"),
              row->str("purpose"),
              row->i64("expires_at_ms")};
  if (row->i64("used") != 0) throw invalid("OTP " + otpId + " has already been used");
  if (row->i64("attempts") >= kMaxAttempts)
    throw invalid("OTP " + otpId + " is locked after " + std::to_string(kMaxAttempts) +
                  " failed attempts; request a new code");
  if (r.expiresAtMs <= ctx.nowMs()) throw invalid("OTP " + otpId + " has expired");
  auto stored = ctx.keyring().open(codeSecretId(otpId), kCodeKind);
  if (!constantTimeEquals(normalizeCode(code), toString(stored.bytes()))) {
    int remaining = kMaxAttempts - static_cast<int>(row->i64("attempts")) - 1;
    // The try counts even though this activity fails and rolls back.
    ctx.onFailure([otpId](Db& db) {
      db.exec("UPDATE session_otps SET attempts = attempts + 1 WHERE id = ?", {otpId});
    });
    throw invalid("the code does not match OTP " + otpId + "; " +
                  (remaining > 0 ? std::to_string(remaining) + " attempts left"
                                 : std::string("the OTP is now locked")));
  }
  // Spent: the code and the target key are of no further use.
  ctx.keyring().erase(codeSecretId(otpId));
  ctx.keyring().erase(targetSecretId(otpId));
  ctx.db().exec("UPDATE session_otps SET used = 1, secrets_erased = 1 WHERE id = ?", {otpId});
  return r;
}

crypto::SecretBytes otpTargetKey(ActivityContext& ctx, const std::string& otpId) {
  auto row = ctx.db().queryOne(
      "SELECT has_target_key, used, attempts FROM session_otps WHERE id = ? AND "
      "organization_id = ?",
      {otpId, ctx.organizationId()});
  const std::string prefix = std::string(kInvalidOtpMessage) + ": OTP " + otpId;
  if (!row || row->i64("has_target_key") == 0)
    throw invalidArgument(prefix +
                          " has no encryption target (it was not initiated with "
                          "INIT_OTP_V3 in organization " +
                          ctx.organizationId() + ")");
  // Spent or locked codes have had their target key erased.
  if (row->i64("used") != 0) throw invalidArgument(prefix + " has already been used");
  if (row->i64("attempts") >= kMaxAttempts)
    throw invalidArgument(prefix + " is locked after " + std::to_string(kMaxAttempts) +
                          " failed attempts; request a new code");
  return ctx.keyring().open(targetSecretId(otpId), kTargetKind);
}

void deleteOrganizationOtps(ActivityContext& ctx, const std::string& organizationId) {
  for (const auto& row :
       ctx.db().query("SELECT id FROM session_otps WHERE organization_id = ?", {organizationId})) {
    ctx.keyring().erase(codeSecretId(row.str("id")));
    ctx.keyring().erase(targetSecretId(row.str("id")));
  }
  ctx.db().exec("DELETE FROM session_otps WHERE organization_id = ?", {organizationId});
}

}  // namespace sessions
