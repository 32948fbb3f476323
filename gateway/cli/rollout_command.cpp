// signet rollout set | list: the operator's side of staged rollout (activity/rollout.hpp).
// Overrides go to the store, where every gateway on it picks them up within two seconds; no
// restart. Every argument is checked before anything is written.
#include <Poco/DateTimeFormatter.h>
#include <Poco/DateTimeParser.h>
#include <Poco/Timestamp.h>

#include <algorithm>
#include <cctype>

#include <iomanip>
#include <iostream>

#include "activity/rollout.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"

namespace signet::cli {

namespace {

int parsePercent(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 3 &&
                std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(c); });
  int value = digits ? std::stoi(text) : -1;
  if (value < 0 || value > 100)
    throw UsageError("--percent must be a whole number from 0 to 100, not '" + text + "'");
  return value;
}

int64_t parseSunset(const std::string& text) {
  Poco::DateTime date;
  int zone = 0;
  if (!Poco::DateTimeParser::tryParse("%Y-%m-%d", text, date, zone) || text.size() != 10)
    throw UsageError("--sunset must be a date YYYY-MM-DD, not '" + text + "'");
  return date.timestamp().epochMicroseconds() / 1000;
}

void printRow(const ActivitySpec& spec, const RolloutAssignment& a) {
  std::cout << std::left << std::setw(48) << spec.type << " " << std::setw(10)
            << rolloutStateName(a.state) << (a.byOperator ? " operator" : " default ");
  if (a.state == RolloutState::kCanary) {
    std::cout << "  " << a.percent << "%";
    std::string ids;
    for (const auto& id : a.organizations) ids += (ids.empty() ? "" : ",") + id;
    if (!ids.empty()) std::cout << " + " << ids;
  }
  if (!a.replacement.empty()) std::cout << "  replacement " << a.replacement;
  if (a.sunsetMs)
    std::cout << "  sunset "
              << Poco::DateTimeFormatter::format(Poco::Timestamp(a.sunsetMs * 1000), "%Y-%m-%d");
  std::cout << "\n";
}

}  // namespace

int rolloutSetCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "orgs", "percent", "replacement", "sunset"}, {},
            {"the activity TYPE", "the STATE"});
  const std::string &type = args.word(0), &stateName = args.word(1);
  std::optional<RolloutState> state = parseRolloutState(stateName);
  if (!state && stateName != "default")
    throw UsageError("unknown state '" + stateName +
                     "' (disabled, canary, general, deprecated, retired, or default to return "
                     "to the plugin's)");
  auto only = [&](const char* option, bool allowed, const char* states) {
    if (args.has(option) && !allowed)
      throw UsageError(std::string("--") + option + " goes with " + states + ", not " + stateName);
  };
  only("orgs", state == RolloutState::kCanary, "canary");
  only("percent", state == RolloutState::kCanary, "canary");
  only("replacement", state == RolloutState::kDeprecated || state == RolloutState::kRetired,
       "deprecated or retired");
  only("sunset", state == RolloutState::kDeprecated, "deprecated");

  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  Gateway gateway(config);
  const ActivitySpec* spec = gateway.catalog().activityOfType(type);
  if (!spec)
    throw UsageError("unknown activity type '" + type +
                     "': no enabled plugin serves it (signet rollout list shows those that are)");
  RolloutAssignment a;
  if (state) a.state = *state;
  if (auto percent = args.get("percent")) a.percent = parsePercent(*percent);
  if (auto replacement = args.get("replacement")) {
    if (*replacement == type || !gateway.catalog().activityOfType(*replacement))
      throw UsageError("--replacement '" + *replacement +
                       "' is not another activity type an enabled plugin serves");
    a.replacement = *replacement;
  }
  int64_t now = gateway.nowMs();
  if (a.state == RolloutState::kDeprecated)  // RFC 8594: say when; 90 days unless told
    a.sunsetMs = args.get("sunset") ? parseSunset(*args.get("sunset"))
                                    : now + int64_t(90) * 24 * 60 * 60 * 1000;
  gateway.database().transaction([&](Db& db) {
    for (const auto& id : args.list("orgs")) {
      auto row = db.queryOne("SELECT parent_id FROM organizations WHERE id = ?", {id});
      if (!row) throw UsageError("--orgs names organization '" + id + "', which does not exist");
      if (row->optStr("parent_id") && !row->optStr("parent_id")->empty())
        throw UsageError("--orgs names '" + id + "', a sub-organization; it follows its parent " +
                         *row->optStr("parent_id"));
      a.organizations.insert(id);
    }
    if (stateName == "default")
      clearRollout(db, type);
    else
      storeRollout(db, type, a, now);
  });
  if (stateName == "default") {
    printRow(*spec, rolloutDefault(*spec));
  } else {
    a.byOperator = true;
    printRow(*spec, a);
  }
  std::cerr << "every gateway on this store applies it within two seconds\n";
  return 0;
}

int rolloutListCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config"}, {});
  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  Gateway gateway(config);
  std::map<std::string, RolloutAssignment> overrides;
  gateway.database().read([&](Db& db) { overrides = loadRollouts(db); });
  std::map<std::string, const ActivitySpec*> types;
  for (const auto& m : gateway.catalog().modules())
    if (m->enabled)
      for (const auto& a : m->activities) types[a.type] = &a;
  for (const auto& [type, spec] : types) {
    auto it = overrides.find(type);
    printRow(*spec, it != overrides.end() ? it->second : rolloutDefault(*spec));
  }
  return 0;
}

}  // namespace signet::cli
