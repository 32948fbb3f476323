// Reading one sample out of the gateway's Prometheus text (GET /metrics, Metrics::render).
#pragma once

#include <string>

namespace signet::test {

// The value of the sample `series` (name and labels exactly as exposed), or -1 when absent.
inline double metricSample(const std::string& text, const std::string& series) {
  size_t at = 0;
  while ((at = text.find(series + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + series.size() + 1));
    at += series.size();
  }
  return -1;
}

}  // namespace signet::test
