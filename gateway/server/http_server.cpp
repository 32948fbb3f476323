#include "server/http_server.hpp"

#include <Poco/Logger.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include <chrono>

namespace signet {

namespace {
class RequestHandler : public Poco::Net::HTTPRequestHandler {
 public:
  RequestHandler(Router& router, size_t maxBody) : router_(router), maxBody_(maxBody) {}

  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& resp) override {
    auto started = std::chrono::steady_clock::now();
    HttpRequestData data;
    data.method = req.getMethod();
    data.path = req.getURI();
    if (auto q = data.path.find('?'); q != std::string::npos) {
      data.query = data.path.substr(q + 1);
      data.path.resize(q);
    }
    for (const auto& [name, value] : req) data.headers[asciiLower(name)] = value;
    readBody(req, data);
    HttpResult result = router_.handle(data);
    if (data.bodyTooLarge) resp.setKeepAlive(false);
    resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(result.status));
    for (const auto& [name, value] : result.headers) resp.set(name, value);
    if (result.status == 204) {
      resp.setContentLength(0);
      resp.send();
    } else {
      // Exactly application/json for the API: the Rust client rejects a charset parameter.
      resp.setContentType(result.contentType);
      resp.setContentLength(static_cast<std::streamsize>(result.body.size()));
      resp.send() << result.body;
    }
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
    Poco::Logger::get("signet.http")
        .information("%s %s %d %z bytes %ld us", data.method, data.path, result.status,
                     data.body.size(), static_cast<long>(micros));
  }

 private:
  void readBody(Poco::Net::HTTPServerRequest& req, HttpRequestData& data) {
    std::istream& in = req.stream();
    char buf[8192];
    if (req.hasContentLength() && static_cast<size_t>(req.getContentLength()) > maxBody_) {
      data.bodyTooLarge = true;
      data.declaredLength = static_cast<size_t>(req.getContentLength());
    }
    size_t total = 0;
    while (in) {
      in.read(buf, sizeof buf);
      size_t n = static_cast<size_t>(in.gcount());
      total += n;
      if (!data.bodyTooLarge && total <= maxBody_) data.body.append(buf, n);
      if (total > maxBody_) {
        data.bodyTooLarge = true;
        data.declaredLength = std::max(data.declaredLength, total);
        data.body.clear();
      }
      // Drain a moderately oversized body so the client reads our answer instead of a reset;
      // past this bound, stop reading and let the connection close.
      if (total > kDrainFactor * maxBody_) break;
    }
  }

  static constexpr size_t kDrainFactor = 8;

  Router& router_;
  size_t maxBody_;
};

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  HandlerFactory(Router& router, size_t maxBody) : router_(router), maxBody_(maxBody) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new RequestHandler(router_, maxBody_);
  }

 private:
  Router& router_;
  size_t maxBody_;
};
}  // namespace

HttpServer::HttpServer(Gateway& gateway, const std::string& listen, const ListenerSpec* listener,
                       const std::string& listenerModule)
    : gateway_(gateway), router_(gateway, listener, listenerModule) {
  Poco::Net::SocketAddress address(listen);
  Poco::Net::ServerSocket socket(address, 128);
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(gateway.config().threads);
  params->setMaxQueued(256);
  params->setKeepAlive(true);
  params->setTimeout(Poco::Timespan(30, 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(
      new HandlerFactory(router_, gateway.config().maxBodyBytes), socket, params);
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::start() {
  server_->start();
}

void HttpServer::stop() {
  if (server_) server_->stopAll(false);
}

uint16_t HttpServer::port() const {
  return server_->port();
}

}  // namespace signet
