// The gateway's metrics, served as Prometheus text at GET /metrics (docs/operations.md lists
// every family). One registry per process: the store, the HTTP front end, the pipeline and the
// plugin guard all count into it without knowing of each other. Every family is declared once
// in the table of metrics.cpp, with its type, help and histogram buckets, so that what a
// dashboard can rely on is read in one place. In the SDK because the store (sdk/store), which
// the SDK's test kit runs on, counts into it; a family a plugin would count into must be in
// that table too.
//
// Labels hold bounded values only (a route the catalog serves, a status code, an activity
// type, a plugin's name), never what a client chose freely, so that a client cannot grow the
// registry without end.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace signet {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class Metrics {
 public:
  static Metrics& global();

  // A counter of the table goes up by `amount`.
  void count(const std::string& family, const MetricLabels& labels = {}, double amount = 1);
  // A histogram of the table records one observation.
  void observe(const std::string& family, const MetricLabels& labels, double value);

  // A gauge's value, read when scraped (observability/scrape.cpp) rather than kept here.
  struct GaugeRow {
    std::string family;
    std::string help;
    MetricLabels labels;
    double value = 0;
  };

  // The exposition text (text/plain; version=0.0.4).
  // The exposition text (text/plain; version=0.0.4): the table's families, then `gauges`.
  std::string render(const std::vector<GaugeRow>& gauges = {});

 private:
  struct Histogram {
    std::vector<uint64_t> buckets;  // cumulative at render, per bucket here
    double sum = 0;
    uint64_t count = 0;
  };
  std::mutex mutex_;
  std::map<std::string, std::map<std::string, double>> counters_;       // family → labels → n
  std::map<std::string, std::map<std::string, Histogram>> histograms_;  // family → labels → h
};

// The seconds since `start` (steady clock), for histograms of durations.
double secondsSince(std::chrono::steady_clock::time_point start);

}  // namespace signet
