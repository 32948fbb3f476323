#include "activity/secret_parameters.hpp"

#include <string_view>

namespace signet::activities {

namespace {
constexpr const char* kKind = "activity-intent";

// Calls `visit(holder, key, where)` for every string field `path` names in `parameters`
// (ActivitySpec::secrets: "a.b", "list[].field"); `where` is the path with the indices filled
// in ("list.0.field"), which names the field's sealed copy.
void forEachField(
    const json::Object& parameters, std::string_view path, const std::string& where,
    const std::function<void(json::Object, const std::string&, const std::string&)>& visit) {
  if (!parameters) return;
  size_t dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  std::string_view rest = dot == std::string_view::npos ? "" : path.substr(dot + 1);
  bool each = head.ends_with("[]");
  std::string name(each ? head.substr(0, head.size() - 2) : head);
  std::string at = where.empty() ? name : where + "." + name;
  if (!parameters->has(name)) return;
  if (!each) {
    if (rest.empty()) {
      if (parameters->get(name).isString()) visit(parameters, name, at);
    } else {
      forEachField(parameters->getObject(name), rest, at, visit);
    }
    return;
  }
  auto list = parameters->getArray(name);
  for (size_t i = 0; list && i < list->size(); ++i)
    forEachField(list->getObject(static_cast<unsigned>(i)), rest, at + "." + std::to_string(i),
                 visit);
}

void forEachSecret(
    const ActivitySpec& spec, const json::Object& parameters,
    const std::function<void(json::Object, const std::string&, const std::string&)>& visit) {
  for (const auto& path : spec.secrets) forEachField(parameters, path, "", visit);
}

std::string secretId(const ActivityRecord& record, const std::string& where) {
  return std::string(kKind) + ":" + record.id + ":" + where;
}

// Replaces the secret fields present in `parameters`; true when one was.
bool redact(const ActivitySpec& spec, const json::Object& parameters) {
  bool changed = false;
  forEachSecret(spec, parameters,
                [&](json::Object holder, const std::string& key, const std::string&) {
                  if (holder->getValue<std::string>(key) == kRedacted) return;
                  holder->set(key, kRedacted);
                  changed = true;
                });
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
  return !spec.secrets.empty();
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
  if (record.votes) stored.votes = json::parseArray(json::stringify(record.votes), "votes");
  redactIntentAndVotes(spec, stored);
  return stored;
}

void sealParameters(Keyring& keyring, const ActivitySpec& spec, const ActivityRecord& record) {
  forEachSecret(spec, parametersOf(spec, record),
                [&](json::Object holder, const std::string& key, const std::string& where) {
                  std::string value = holder->getValue<std::string>(key);
                  if (value != kRedacted)
                    keyring.seal(secretId(record, where), kKind,
                                 crypto::SecretBytes(Bytes(value.begin(), value.end())));
                });
}

void openParameters(Keyring& keyring, const ActivitySpec& spec, ActivityRecord& record) {
  forEachSecret(spec, parametersOf(spec, record),
                [&](json::Object holder, const std::string& key, const std::string& where) {
                  if (holder->getValue<std::string>(key) != kRedacted) return;
                  try {
                    auto value = keyring.open(secretId(record, where), kKind);
                    holder->set(key, std::string(value.data(), value.data() + value.size()));
                  } catch (const Error& e) {
                    if (e.code() != Code::kNotFound) throw;  // stored redacted, as once run
                  }
                });
}

void eraseSealedParameters(Keyring& keyring, const ActivitySpec& spec,
                           const ActivityRecord& record) {
  // The fields as the record in hand holds them: an array shortened since cannot be, since the
  // intent is what was signed.
  forEachSecret(spec, parametersOf(spec, record),
                [&](json::Object, const std::string&, const std::string& where) {
                  keyring.erase(secretId(record, where));
                });
}

}  // namespace signet::activities
