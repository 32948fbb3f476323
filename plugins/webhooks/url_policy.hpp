// Where deliveries may go. An endpoint URL must be https, name a host and carry no user-info;
// every address its host resolves to must be public: no loopback, private (RFC 1918, unique
// local), link-local (the cloud metadata service at 169.254.169.254 among them), shared,
// multicast, reserved or unspecified address. A delivery connects to the address that was
// checked, so a name that resolves elsewhere the second time (DNS rebinding) gains nothing.
// allowInsecureUrls (an operator's setting for development) lifts the https and address rules.
#pragma once

#include <Poco/Net/IPAddress.h>

#include <string>

namespace webhooks {

// The URL as stored, or InvalidArgument naming `field` and the value.
std::string checkUrl(const std::string& url, const std::string& field, bool allowInsecure);

struct Target {
  bool https = false;
  std::string host;  // as written: the Host header and the certificate's name
  uint16_t port = 0;
  std::string pathAndQuery;
  Poco::Net::IPAddress address;  // the checked address to connect to
};
// Resolves the URL's host now and picks an allowed address; a delivery error (std::runtime_error
// saying why) when there is none.
Target resolveTarget(const std::string& url, bool allowInsecure);

// Whether an address is one a delivery may reach without allowInsecureUrls.
bool isPublicAddress(const Poco::Net::IPAddress& address);

}  // namespace webhooks
