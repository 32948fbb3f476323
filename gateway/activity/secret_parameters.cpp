#include "activity/secret_parameters.hpp"

namespace signet::activities {

namespace {
constexpr const char* kKind = "activity-intent";

std::string secretId(const ActivityRecord& record, const std::string& name) {
  return "activity-intent:" + record.id + ":" + name;
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

// Redacts the intent and the submitter's vote (which keeps the signed request, parameters and
// all) of `record`; true when anything changed.
bool redactIntentAndVotes(const ActivitySpec& spec, ActivityRecord& record) {
  bool changed = redact(spec, record.intent ? record.intent->getObject(spec.intentKey) : nullptr);
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

json::Object parametersOf(const ActivitySpec& spec, const ActivityRecord& record) {
  return record.intent ? record.intent->getObject(spec.intentKey) : nullptr;
}
}  // namespace

bool isTerminal(const std::string& status) {
  return status == kStatusCompleted || status == kStatusFailed || status == kStatusRejected;
}

bool hasSecretParameters(const ActivitySpec& spec) {
  for (const auto& p : spec.parameters)
    if (p.secret) return true;
  return false;
}

bool redactSecrets(const ActivitySpec& spec, ActivityRecord& record) {
  if (!isTerminal(record.status) || !hasSecretParameters(spec)) return false;
  return redactIntentAndVotes(spec, record);
}

void storeIntent(Db& db, const ActivityRecord& record) {
  db.exec("UPDATE activities SET intent = ? WHERE id = ?",
          {json::stringify(record.intent), record.id});
}

ActivityRecord withParametersRedacted(const ActivitySpec& spec, const ActivityRecord& record) {
  // A deep copy of what is redacted: the record in hand keeps the values to run with.
  ActivityRecord stored = record;
  stored.intent = json::parseObject(json::stringify(record.intent), "intent");
  if (record.votes)
    stored.votes = json::parseObject("{\"votes\":" + json::stringify(record.votes) + "}", "votes")
                       ->getArray("votes");
  redactIntentAndVotes(spec, stored);
  return stored;
}

void sealParameters(Keyring& keyring, const ActivitySpec& spec, const ActivityRecord& record) {
  auto parameters = parametersOf(spec, record);
  for (const auto& p : spec.parameters)
    if (p.secret && parameters && parameters->has(p.name) && parameters->get(p.name).isString()) {
      std::string value = parameters->getValue<std::string>(p.name);
      if (value != kRedacted)
        keyring.seal(secretId(record, p.name), kKind,
                     crypto::SecretBytes(Bytes(value.begin(), value.end())));
    }
}

void openParameters(Keyring& keyring, const ActivitySpec& spec, ActivityRecord& record) {
  auto parameters = parametersOf(spec, record);
  if (!parameters) return;
  for (const auto& p : spec.parameters) {
    if (!p.secret || !parameters->has(p.name) || parameters->get(p.name).toString() != kRedacted)
      continue;
    try {
      auto value = keyring.open(secretId(record, p.name), kKind);
      parameters->set(p.name, std::string(value.data(), value.data() + value.size()));
    } catch (const Error& e) {
      if (e.code() != Code::kNotFound) throw;  // stored redacted, as it was once run
    }
  }
}

void eraseSealedParameters(Keyring& keyring, const ActivitySpec& spec,
                           const ActivityRecord& record) {
  for (const auto& p : spec.parameters)
    if (p.secret) keyring.erase(secretId(record, p.name));
}

}  // namespace signet::activities
