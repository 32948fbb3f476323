#include "activity/secret_results.hpp"

#include <map>

#include "activity/secret_parameters.hpp"
#include "signet/sealed_secret.hpp"

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

void openResults(Db& db, Keyring& keyring, std::span<ActivityRecord> records) {
  struct Redacted {
    json::Object result;
    std::string field, id;
  };
  std::vector<Redacted> redacted;
  for (const auto& record : records) {
    if (!record.result) continue;
    for (const auto& key : record.result->getNames()) {
      auto result = record.result->getObject(key);
      if (!result) continue;
      for (const auto& field : result->getNames())
        if (result->get(field).isString() && result->getValue<std::string>(field) == kRedacted)
          redacted.push_back({result, field, secretId(record, field)});
    }
  }
  if (redacted.empty()) return;
  // The cells of every one in one statement, its ids one JSON array, so that a page of
  // activities is one read, not one a secret (on PostgreSQL, a round trip each), and the
  // statement's text is the same for any number of them (the connection keeps one prepared).
  static const std::string kSqlite =
      "SELECT ids.value AS id, " + SealedSecret::column("ids.value") + " FROM json_each(?) AS ids";
  static const std::string kPostgres = "SELECT ids.value AS id, " +
                                       SealedSecret::column("ids.value") +
                                       " FROM json_array_elements_text(CAST(? AS JSON)) AS ids";
  std::vector<std::string> ids;
  for (const auto& r : redacted) ids.push_back(r.id);
  std::map<std::string, SealedSecret> sealed;
  for (const auto& row :
       db.query(db.isPostgres() ? kPostgres : kSqlite, {json::stringify(json::stringArray(ids))}))
    if (auto cells = SealedSecret::fromRow(row)) sealed.emplace(row.str("id"), std::move(*cells));
  for (auto& r : redacted) {
    auto found = sealed.find(r.id);
    if (found == sealed.end()) continue;  // redacted as stored, with nothing sealed
    auto value = keyring.open(r.id, kKind, found->second);
    r.result->set(r.field, std::string(value.data(), value.data() + value.size()));
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
