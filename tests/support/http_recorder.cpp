#include "support/http_recorder.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include <Poco/String.h>

#include <sstream>
#include <thread>

namespace signet::test {

namespace {
class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(HttpRecorder& r) : recorder_(r) {}
  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& res) override {
    std::stringstream body;
    body << req.stream().rdbuf();
    std::map<std::string, std::string> headers;
    for (const auto& [name, value] : req) headers[Poco::toLower(name)] = value;
    recorder_.record({req.getMethod(), req.getURI(), req.get("Authorization", ""),
                      req.getContentType(), body.str(), headers});
    int status = recorder_.nextStatus();
    recorder_.waitWhileHeld();
    res.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    if (status >= 300 && status < 400) res.set("Location", "http://127.0.0.1:1/elsewhere");
    res.setContentType("application/json");
    res.send() << "{}";
  }

 private:
  HttpRecorder& recorder_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(HttpRecorder& r) : recorder_(r) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(recorder_);
  }

 private:
  HttpRecorder& recorder_;
};
}  // namespace

HttpRecorder::HttpRecorder() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket,
                                                    new Poco::Net::HTTPServerParams);
  server_->start();
}

HttpRecorder::~HttpRecorder() {
  server_->stopAll(true);
}

std::string HttpRecorder::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
}

void HttpRecorder::record(RecordedRequest r) {
  std::lock_guard<std::mutex> lock(mutex_);
  requests_.push_back(std::move(r));
  changed_.notify_all();
}

int HttpRecorder::nextStatus() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (queued_.empty()) return status_;
  int s = queued_.front();
  queued_.pop_front();
  return s;
}

void HttpRecorder::holdAnswers() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = true;
}

void HttpRecorder::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = false;
  changed_.notify_all();
}

bool HttpRecorder::heldTooLong() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return heldTooLong_;
}

void HttpRecorder::waitWhileHeld() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !holding_; }))
    heldTooLong_ = true;
  int delay = delayMs_;
  lock.unlock();
  if (delay) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
}

bool HttpRecorder::waitForRequests(size_t count) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, std::chrono::seconds(10),
                           [&] { return requests_.size() >= count; });
}

std::vector<RecordedRequest> HttpRecorder::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

}  // namespace signet::test
