#include "signet/metrics.hpp"

#include <cmath>
#include <cstdio>

#include "signet/error.hpp"

namespace signet {

namespace {

enum class Type { kCounter, kHistogram };

struct Family {
  const char* name;
  Type type;
  const char* help;
  std::vector<double> buckets;  // histograms: upper bounds, ascending (+Inf is implied)
};

const std::vector<double> kSeconds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                      0.1,    0.25,  0.5,    1,     2.5,  5,     10};

// Every counter and histogram the gateway keeps. Gauges come from their sources at scrape time.
const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"signet_http_requests_total",
       Type::kCounter,
       "HTTP requests answered, by listener, route and status",
       {}},
      {"signet_http_request_duration_seconds", Type::kHistogram,
       "Time from a complete request to its answer, by listener and route", kSeconds},
      {"signet_activities_total",
       Type::kCounter,
       "Activities answered to a submission, by activity type and the status answered (a refused "
       "submission stores none: see signet_http_requests_total)",
       {}},
      {"signet_policy_outcomes_total",
       Type::kCounter,
       "Policy decisions on activities: ALLOW, DENY, CONSENSUS_NEEDED, AUTHENTICATORS_NEEDED",
       {}},
      {"signet_store_pool_wait_seconds", Type::kHistogram,
       "Time a caller waited for a database connection", kSeconds},
      {"signet_store_commit_batch_size",
       Type::kHistogram,
       "Writes committed together in one transaction (group commit)",
       {1, 2, 4, 8, 16, 32, 64, 128}},
      {"signet_store_commit_seconds", Type::kHistogram,
       "Time the COMMIT of a group-commit transaction took (on SQLite, mostly the log's sync)",
       kSeconds},
      {"signet_store_write_queued_seconds", Type::kHistogram,
       "Time a write waited for a batch to take it (for the batch before it to commit, or for a "
       "free lane): on PostgreSQL, long waits say database.writeLanes could be raised",
       kSeconds},
      {"signet_store_write_seconds", Type::kHistogram,
       "Time a write took from joining the group-commit queue to its batch's commit: what a "
       "request's durability adds to its answer (waiting for a batch, the batch, the commit)",
       kSeconds},
      {"signet_store_commit_failures_total",
       Type::kCounter,
       "Group-commit transactions that could not begin or commit; every write in them failed",
       {}},
      {"signet_sqlite_checkpoint_seconds", Type::kHistogram,
       "SQLite WAL checkpoints and how long each took, by where it ran: on the checkpointer's "
       "thread, or inside a commit (every write waits then) when the log grew past its bound",
       kSeconds},
      {"signet_plugin_failures_total",
       Type::kCounter,
       "Exceptions a plugin's code threw that were not an answer, by plugin and site",
       {}},
      {"signet_refusals_total",
       Type::kCounter,
       "Requests and connections the front end refused, by reason",
       {}},
  };
  return table;
}

const Family& family(const std::string& name, Type type) {
  for (const auto& f : families())
    if (name == f.name) {
      if (f.type != type) throw internalError("metric " + name + " used as another type");
      return f;
    }
  throw internalError("metric " + name + " is not in the table of sdk/src/metrics.cpp");
}

// A label value as the exposition format wants it: backslash, quote and newline escaped.
std::string escaped(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string labelText(const MetricLabels& labels, const std::string& extra = {}) {
  if (labels.empty() && extra.empty()) return {};
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ',';
    out += name + "=\"" + escaped(value) + "\"";
  }
  if (!extra.empty()) {
    if (out.size() > 1) out += ',';
    out += extra;
  }
  return out + "}";
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The label text with `le` added inside the braces, for a histogram's bucket lines.
std::string withLe(const std::string& labels, const std::string& le) {
  std::string extra = "le=\"" + le + "\"";
  if (labels.empty()) return "{" + extra + "}";
  return labels.substr(0, labels.size() - 1) + "," + extra + "}";
}

}  // namespace

Metrics& Metrics::global() {
  static Metrics metrics;
  return metrics;
}

void Metrics::count(const std::string& name, const MetricLabels& labels, double amount) {
  family(name, Type::kCounter);
  std::string key = labelText(labels);
  std::lock_guard lock(mutex_);
  counters_[name][key] += amount;
}

void Metrics::observe(const std::string& name, const MetricLabels& labels, double value) {
  const Family& f = family(name, Type::kHistogram);
  std::string key = labelText(labels);
  std::lock_guard lock(mutex_);
  Histogram& h = histograms_[name][key];
  if (h.buckets.empty()) h.buckets.assign(f.buckets.size(), 0);
  for (size_t i = 0; i < f.buckets.size(); ++i)
    if (value <= f.buckets[i]) {
      ++h.buckets[i];
      break;
    }
  h.sum += value;
  ++h.count;
}

std::string Metrics::render(const std::vector<GaugeRow>& rows) {
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& f : families()) {
    out += std::string("# HELP ") + f.name + " " + f.help + "\n";
    if (f.type == Type::kCounter) {
      out += std::string("# TYPE ") + f.name + " counter\n";
      auto it = counters_.find(f.name);
      if (it == counters_.end()) continue;
      for (const auto& [labels, value] : it->second)
        out += f.name + labels + " " + number(value) + "\n";
      continue;
    }
    out += std::string("# TYPE ") + f.name + " histogram\n";
    auto it = histograms_.find(f.name);
    if (it == histograms_.end()) continue;
    for (const auto& [labels, h] : it->second) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += h.buckets[i];
        out += std::string(f.name) + "_bucket" + withLe(labels, number(f.buckets[i])) + " " +
               std::to_string(cumulative) + "\n";
      }
      out += std::string(f.name) + "_bucket" + withLe(labels, "+Inf") + " " +
             std::to_string(h.count) + "\n";
      out += std::string(f.name) + "_sum" + labels + " " + number(h.sum) + "\n";
      out += std::string(f.name) + "_count" + labels + " " + std::to_string(h.count) + "\n";
    }
  }
  // Gauges grouped by family, in the order their sources gave them.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const GaugeRow*>> byFamily;
  for (const auto& row : rows) {
    if (!byFamily.count(row.family)) order.push_back(row.family);
    byFamily[row.family].push_back(&row);
  }
  for (const auto& name : order) {
    const auto& list = byFamily[name];
    out += "# HELP " + name + " " + list.front()->help + "\n";
    out += "# TYPE " + name + " gauge\n";
    for (const GaugeRow* row : list)
      out += name + labelText(row->labels) + " " + number(row->value) + "\n";
  }
  return out;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace signet
