// The HTTP listener: Poco's HTTPServer in front of the Router. Reads at most the configured
// body size, then hands the request over; logs one line per request (never bodies or stamps).
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <memory>
#include <string>

#include "server/router.hpp"

namespace signet {

class HttpServer {
 public:
  // `listen` is host:port; port 0 picks a free one (see port()). With `listener`, it serves
  // that plugin listener's routes only, with the same limits as the main server.
  HttpServer(Gateway& gateway, const std::string& listen, const ListenerSpec* listener = nullptr,
             const std::string& listenerModule = {});
  ~HttpServer();
  void start();
  void stop();
  uint16_t port() const;

 private:
  Gateway& gateway_;
  Router router_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace signet
