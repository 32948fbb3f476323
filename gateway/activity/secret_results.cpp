#include "activity/secret_results.hpp"

#include "activity/secret_parameters.hpp"

namespace signet::activities {

namespace {
constexpr const char* kKind = "activity-result";

std::string secretId(const ActivityRecord& record, const std::string& field) {
  return "activity-result:" + record.id + ":" + field;
}

// The result object under the row's result key, or null.
json::Object resultOf(const ActivitySpec& spec, const ActivityRecord& record) {
  return record.result ? record.result->getObject(spec.resultKey) : nullptr;
}
}  // namespace

ActivityRecord withResultsRedacted(const ActivitySpec& spec, const ActivityRecord& record) {
  ActivityRecord stored = record;
  auto result = resultOf(spec, record);
  if (!result) return stored;
  // A copy of the result object: the record the request answers with keeps the values.
  json::Object redacted = json::parseObject(json::stringify(result), "result");
  for (const auto& field : spec.secretResults)
    if (redacted->has(field)) redacted->set(field, kRedacted);
  stored.result = json::object();
  stored.result->set(spec.resultKey, redacted);
  return stored;
}

void sealResults(Keyring& keyring, const ActivitySpec& spec, const ActivityRecord& record) {
  auto result = resultOf(spec, record);
  if (!result) return;
  for (const auto& field : spec.secretResults) {
    if (!result->has(field) || !result->get(field).isString()) continue;
    std::string value = result->getValue<std::string>(field);
    if (value == kRedacted) continue;
    keyring.seal(secretId(record, field), kKind,
                 crypto::SecretBytes(Bytes(value.begin(), value.end())));
  }
}

void openResults(Keyring& keyring, ActivityRecord& record) {
  if (!record.result) return;
  for (const auto& key : record.result->getNames()) {
    auto result = record.result->getObject(key);
    if (!result) continue;
    for (const auto& field : result->getNames()) {
      if (!result->get(field).isString() || result->getValue<std::string>(field) != kRedacted)
        continue;
      try {
        auto value = keyring.open(secretId(record, field), kKind);
        result->set(field, std::string(value.data(), value.data() + value.size()));
      } catch (const Error& e) {
        if (e.code() != Code::kNotFound) throw;  // redacted as stored, with nothing sealed
      }
    }
  }
}

int sealStoredInClear(Db& db, Keyring& keyring, const std::vector<const ActivitySpec*>& specs) {
  int changed = 0;
  for (const ActivitySpec* spec : specs) {
    bool results = hasSecretResults(*spec), parameters = hasSecretParameters(*spec);
    if (!results && !parameters) continue;
    for (const auto& row :
         db.query("SELECT organization_id, id FROM activities WHERE type = ?", {spec->type})) {
      // Held until this commits (PostgreSQL): a gateway already serving may vote on it meanwhile,
      // and the whole record is written back below.
      if (db.isPostgres())
        db.query("SELECT 1 FROM activities WHERE id = ? FOR UPDATE", {row.str("id")});
      auto record = find(db, row.str("organization_id"), row.str("id"));
      if (!record) continue;
      std::string before = json::stringify(record->result) + json::stringify(record->intent);
      ActivityRecord stored = *record;
      if (results) {
        sealResults(keyring, *spec, *record);
        stored = withResultsRedacted(*spec, stored);
      }
      if (parameters && !isTerminal(record->status)) {
        sealParameters(keyring, *spec, *record);
        stored = withParametersRedacted(*spec, stored);
      }
      if (json::stringify(stored.result) + json::stringify(stored.intent) == before) continue;
      update(db, stored);
      storeIntent(db, stored);
      // Events not yet handed to their module carry the activity as it was: as it is now.
      db.exec("UPDATE activity_events SET activity = ? WHERE activity_id = ?",
              {json::stringify(toJson(stored, Caller{})), stored.id});
      ++changed;
    }
  }
  return changed;
}

}  // namespace signet::activities
