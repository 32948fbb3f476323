// An HTTP peer on loopback that records what it is sent and answers with a set status: the
// SMS provider of the delivery tests.
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace signet::test {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::string authorization;
  std::string contentType;
  std::string body;
  std::map<std::string, std::string> headers = {};  // every header, names lower-cased
};

class HttpRecorder {
 public:
  HttpRecorder();
  ~HttpRecorder();
  std::string url(const std::string& path) const;
  void answerWith(int status) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = status;
  }
  // The next answers' statuses, in order; then answerWith's again.
  void answerNextWith(std::vector<int> statuses) {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.insert(queued_.end(), statuses.begin(), statuses.end());
  }
  // Each answer is sent `ms` after its request arrived (a receiver of a set pace).
  void answerAfterMs(int ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    delayMs_ = ms;
  }
  std::vector<RecordedRequest> requests() const;
  // A slow peer: requests are recorded at once but answered only after release(), or after
  // 10 s, whichever comes first. heldTooLong() says whether the 10 s ran out.
  void holdAnswers();
  void release();
  bool heldTooLong() const;
  // Waits (bounded, 10 s) until `count` requests were recorded.
  bool waitForRequests(size_t count) const;
  void waitWhileHeld();  // for the request handler: holdAnswers(), then answerAfterMs()

  // For the request handler.
  void record(RecordedRequest r);
  int nextStatus();

 private:
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  mutable std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
  int status_ = 200;
  std::deque<int> queued_;
  mutable std::condition_variable changed_;
  bool holding_ = false;
  bool heldTooLong_ = false;
  int delayMs_ = 0;
};

}  // namespace signet::test
