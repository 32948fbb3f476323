// One HTTP request as the front end read it (server/request_parser.hpp): what the router and
// the authenticate step (auth/authenticator.hpp) read, independent of the HTTP library.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace signet {

struct HttpRequestData {
  std::string method;
  std::string path;
  std::string query;                           // after '?', undecoded
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  bool bodyTooLarge = false;  // the server stopped reading at the limit
  size_t declaredLength = 0;
  // Headers the request repeated (lower-cased names): a repeated stamp is refused, not
  // resolved to one of its values.
  std::vector<std::string> repeatedHeaders;
  std::string peer;  // the client's address, as the connection came from it
};

}  // namespace signet
