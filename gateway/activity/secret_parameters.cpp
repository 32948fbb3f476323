#include "activity/secret_parameters.hpp"

namespace signet::activities {

namespace {
bool terminal(const std::string& status) {
  return status == kStatusCompleted || status == kStatusFailed || status == kStatusRejected;
}

// Replaces the secret fields present in `parameters`; true when one was.
bool redact(const ActivitySpec& spec, json::Object parameters) {
  bool changed = false;
  if (!parameters) return false;
  for (const auto& p : spec.parameters)
    if (p.secret && parameters->has(p.name) && parameters->get(p.name).toString() != kRedacted) {
      parameters->set(p.name, kRedacted);
      changed = true;
    }
  return changed;
}
}  // namespace

bool redactSecrets(const ActivitySpec& spec, ActivityRecord& record) {
  if (!terminal(record.status)) return false;
  bool any = false;
  for (const auto& p : spec.parameters) any = any || p.secret;
  if (!any) return false;
  bool changed = redact(spec, record.intent ? record.intent->getObject(spec.intentKey) : nullptr);
  // The submitter's vote keeps the signed request, parameters and all.
  for (size_t i = 0; record.votes && i < record.votes->size(); ++i) {
    auto vote = record.votes->getObject(static_cast<unsigned>(i));
    auto message = json::parseObject(vote->getValue<std::string>("message"), "stored vote");
    if (message->optValue<std::string>("type", "") != record.type) continue;
    if (redact(spec, message->getObject("parameters"))) {
      vote->set("message", json::stringify(message));
      changed = true;
    }
  }
  return changed;
}

void storeIntent(Db& db, const ActivityRecord& record) {
  db.exec("UPDATE activities SET intent = ? WHERE id = ?",
          {json::stringify(record.intent), record.id});
}

}  // namespace signet::activities
