#include "activity/rollout.hpp"

#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/Timestamp.h>

#include <algorithm>

#include "gateway.hpp"
#include "signet/crypto.hpp"

namespace signet {

namespace {

// How often the overrides are re-read: half the two seconds a change may take to arrive.
constexpr auto kRefresh = std::chrono::milliseconds(1000);

// ACTIVITY_TYPE_X_V3 -> 3; a type without a suffix is version 1.
int versionOf(const std::string& type) {
  auto at = type.rfind("_V");
  if (at == std::string::npos || at + 2 >= type.size()) return 1;
  for (size_t i = at + 2; i < type.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(type[i]))) return 1;
  return std::stoi(type.substr(at + 2));
}

std::string httpDate(int64_t ms) {
  return Poco::DateTimeFormatter::format(Poco::Timestamp(ms * 1000),
                                         Poco::DateTimeFormat::HTTP_FORMAT);
}

// The organization whose assignment applies: a sub-organization follows its parent.
std::string assignedOrganization(Db& db, const std::string& organizationId) {
  auto row = db.queryOne("SELECT parent_id FROM organizations WHERE id = ?", {organizationId});
  if (row && row->optStr("parent_id") && !row->optStr("parent_id")->empty())
    return *row->optStr("parent_id");
  return organizationId;
}

// The state in force: the operator's override, else the module's default.
RolloutAssignment effective(const std::map<std::string, RolloutAssignment>& overrides,
                            const ActivitySpec& spec) {
  auto it = overrides.find(spec.type);
  return it != overrides.end() ? it->second : rolloutDefault(spec);
}

bool admits(const RolloutAssignment& a, const std::string& assignedOrganization) {
  switch (a.state) {
    case RolloutState::kGeneral:
    case RolloutState::kDeprecated:
      return true;
    case RolloutState::kCanary:
      return a.organizations.count(assignedOrganization) ||
             rolloutBucket(assignedOrganization) < a.percent;
    case RolloutState::kDisabled:
    case RolloutState::kRetired:
      return false;
  }
  return false;
}

}  // namespace

const char* rolloutStateName(RolloutState state) {
  switch (state) {
    case RolloutState::kGeneral:
      return "general";
    case RolloutState::kCanary:
      return "canary";
    case RolloutState::kDisabled:
      return "disabled";
    case RolloutState::kDeprecated:
      return "deprecated";
    case RolloutState::kRetired:
      return "retired";
  }
  return "general";
}

std::optional<RolloutState> parseRolloutState(const std::string& name) {
  for (auto s : {RolloutState::kGeneral, RolloutState::kCanary, RolloutState::kDisabled,
                 RolloutState::kDeprecated, RolloutState::kRetired})
    if (name == rolloutStateName(s)) return s;
  return std::nullopt;
}

int rolloutBucket(const std::string& organizationId) {
  auto d = crypto::sha256(organizationId);
  uint32_t first = (uint32_t(d[0]) << 24) | (uint32_t(d[1]) << 16) | (uint32_t(d[2]) << 8) | d[3];
  return static_cast<int>(first % 100);
}

std::map<std::string, RolloutAssignment> loadRollouts(Db& db) {
  std::map<std::string, RolloutAssignment> out;
  for (const auto& r : db.query("SELECT activity_type, state, organization_ids, percent, "
                                "replacement, sunset_ms, updated_at_ms FROM activity_rollouts",
                                {})) {
    RolloutAssignment a;
    a.state = parseRolloutState(r.str("state")).value_or(RolloutState::kDisabled);
    for (const auto& id : json::stringsOf(
             json::parseArray(r.str("organization_ids"), "activity_rollouts"), "organizationIds"))
      a.organizations.insert(id);
    a.percent = static_cast<int>(r.i64("percent"));
    a.replacement = r.str("replacement");
    a.sunsetMs = r.i64("sunset_ms");
    a.sinceMs = r.i64("updated_at_ms");
    a.byOperator = true;
    out[r.str("activity_type")] = std::move(a);
  }
  return out;
}

void storeRollout(Db& db, const std::string& type, const RolloutAssignment& a, int64_t nowMs) {
  clearRollout(db, type);
  db.exec(
      "INSERT INTO activity_rollouts (activity_type, state, organization_ids, percent, "
      "replacement, sunset_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
      {type, std::string(rolloutStateName(a.state)),
       json::stringify(json::stringArray({a.organizations.begin(), a.organizations.end()})),
       static_cast<int64_t>(a.percent), a.replacement, a.sunsetMs, nowMs});
}

void clearRollout(Db& db, const std::string& type) {
  db.exec("DELETE FROM activity_rollouts WHERE activity_type = ?", {type});
}

RolloutAssignment rolloutDefault(const ActivitySpec& spec) {
  RolloutAssignment a;
  a.state = spec.rollout.state;
  a.replacement = spec.rollout.replacement;
  a.sinceMs = spec.rollout.deprecatedAt * 1000;
  a.sunsetMs = spec.rollout.sunsetAt * 1000;
  return a;
}

std::vector<RolloutView> rolloutsFor(Db& db, const std::vector<const ActivitySpec*>& specs,
                                     const std::string& organizationId) {
  auto overrides = loadRollouts(db);
  std::string assigned = assignedOrganization(db, organizationId);
  std::vector<RolloutView> out;
  for (const ActivitySpec* spec : specs) {
    RolloutAssignment a = effective(overrides, *spec);
    if (a.state == RolloutState::kGeneral) continue;
    bool admitted = admits(a, assigned);
    out.push_back({spec->type, std::move(a), admitted});
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.type < y.type; });
  return out;
}

std::shared_ptr<const std::map<std::string, RolloutAssignment>> RolloutGate::overrides(Db& db) {
  std::lock_guard lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  if (!overrides_ || now - loadedAt_ >= kRefresh) {
    overrides_ = std::make_shared<const Overrides>(loadRollouts(db));
    loadedAt_ = now;
  }
  return overrides_;
}

std::string RolloutGate::replacementFor(const Overrides& overrides, const ActivitySpec& spec,
                                        const RolloutAssignment& a) const {
  if (!a.replacement.empty()) return a.replacement;
  const ActivitySpec* newest = nullptr;
  for (const auto* other : gateway_.catalog().activitiesAt(spec.path))
    if (other != &spec && effective(overrides, *other).state == RolloutState::kGeneral &&
        (!newest || versionOf(other->type) > versionOf(newest->type)))
      newest = other;
  return newest ? newest->type : "";
}

// Why a canary does not admit the organization, naming the newest version it may use.
std::string RolloutGate::refusal(const Overrides& overrides, const ActivitySpec& spec,
                                 const std::string& organizationId,
                                 const std::string& assigned) const {
  const ActivitySpec* usable = nullptr;
  for (const auto* other : gateway_.catalog().activitiesAt(spec.path))
    if (other != &spec && admits(effective(overrides, *other), assigned) &&
        (!usable || versionOf(other->type) > versionOf(usable->type)))
      usable = other;
  return "activity type " + spec.type + " is in canary and not yet open to " +
         (assigned == organizationId
              ? "organization " + assigned
              : "organization " + organizationId + " (which follows " + assigned + ")") +
         (usable ? "; use " + usable->type + " instead"
                 : "; no version of /public/v1/submit/" + spec.path + " is open to it");
}

ResponseHeaders RolloutGate::admit(Db& db, const ActivitySpec& spec,
                                   const std::string& organizationId) {
  auto all = overrides(db);
  RolloutAssignment a = effective(*all, spec);
  switch (a.state) {
    case RolloutState::kGeneral:
      return {};
    case RolloutState::kDisabled:
      throw failedPrecondition("activity type " + spec.type + " (version " +
                               std::to_string(versionOf(spec.type)) + " of /public/v1/submit/" +
                               spec.path + ") is disabled in this gateway");
    case RolloutState::kRetired: {
      std::string use = replacementFor(*all, spec, a);
      throw failedPrecondition("activity type " + spec.type + " has been retired" +
                               (use.empty() ? std::string("; no other version replaces it")
                                            : "; use " + use + " instead"));
    }
    case RolloutState::kCanary: {
      // Only a canary depends on the organization, so only a canary looks up its parent.
      std::string assigned = assignedOrganization(db, organizationId);
      if (!admits(a, assigned))
        throw failedPrecondition(refusal(*all, spec, organizationId, assigned));
      return {};
    }
    case RolloutState::kDeprecated: {
      // RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 5829 (successor-version).
      ResponseHeaders headers;
      headers.emplace_back("Deprecation", "@" + std::to_string(a.sinceMs / 1000));
      if (a.sunsetMs) headers.emplace_back("Sunset", httpDate(a.sunsetMs));
      std::string use = replacementFor(*all, spec, a);
      if (const ActivitySpec* next = use.empty() ? nullptr : gateway_.catalog().activityOfType(use))
        headers.emplace_back("Link", "</public/v1/submit/" + next->path +
                                         ">; rel=\"successor-version\"; title=\"" + use + "\"");
      return headers;
    }
  }
  return {};
}

}  // namespace signet
