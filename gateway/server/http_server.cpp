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
// A request line as the log may show it: control bytes and non-ASCII escaped as \xNN, so that
// what a client sends cannot move the operator's cursor or forge log lines.
std::string printable(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Why a request's framing is refused before its body is read, or empty. Both Content-Length
// and Transfer-Encoding, or two lengths, is how requests are smuggled past a proxy that reads
// them the other way; a length that is not a plain decimal of sane size is refused outright.
std::string framingProblem(const Poco::Net::HTTPServerRequest& req) {
  size_t lengths = 0;
  std::string length;
  for (const auto& [name, value] : req)
    if (asciiLower(name) == "content-length") {
      ++lengths;
      length = value;
    }
  if (lengths > 1) return "the request has " + std::to_string(lengths) + " Content-Length headers";
  if (lengths == 1 && req.has("Transfer-Encoding"))
    return "the request has both Content-Length and Transfer-Encoding";
  if (req.has("Transfer-Encoding") && asciiLower(req.get("Transfer-Encoding")) != "chunked")
    return "Transfer-Encoding " + printable(req.get("Transfer-Encoding")) +
           " is not supported; send chunked or a Content-Length";
  if (lengths == 1 &&
      (length.empty() || length.find_first_not_of("0123456789") != std::string::npos))
    return "Content-Length " + printable(length) + " is not a decimal length";
  if (lengths == 1 && length.size() > 15)
    return "Content-Length " + printable(length) + " is beyond any body this server accepts";
  return {};
}

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
    for (const auto& [name, value] : req) {
      std::string key = asciiLower(name);
      if (!data.headers.emplace(key, value).second) data.repeatedHeaders.push_back(key);
    }
    HttpResult result;
    if (std::string problem = framingProblem(req); !problem.empty()) {
      // The body's extent is unknown, so the connection cannot carry another request.
      result = errorResult(invalidArgument(problem));
      resp.setKeepAlive(false);
    } else {
      readBody(req, data);
      result = router_.handle(data);
      if (data.bodyTooLarge) resp.setKeepAlive(false);
    }
    resp.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(result.status));
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
        .information("%s %s %d %z bytes %ld us", printable(data.method), printable(data.path),
                     result.status, data.body.size(), static_cast<long>(micros));
  }

 private:
  void readBody(Poco::Net::HTTPServerRequest& req, HttpRequestData& data) {
    // Without a length or chunks an HTTP/1.1 request has no body (RFC 9112 §6.3). Reading one
    // anyway waits for the connection to close: a browser's preflight took 30 s.
    if (!req.hasContentLength() && !req.getChunkedTransferEncoding()) return;
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
  // An idle keep-alive connection holds a worker thread; give it back after a few seconds.
  params->setKeepAliveTimeout(Poco::Timespan(3, 0));
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
