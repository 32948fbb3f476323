#include "support/http_recorder.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include <sstream>

namespace signet::test {

namespace {
class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(HttpRecorder& r) : recorder_(r) {}
  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& res) override {
    std::stringstream body;
    body << req.stream().rdbuf();
    recorder_.record({req.getMethod(), req.getURI(), req.get("Authorization", ""),
                      req.getContentType(), body.str()});
    res.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(recorder_.status()));
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
}

std::vector<RecordedRequest> HttpRecorder::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

}  // namespace signet::test
