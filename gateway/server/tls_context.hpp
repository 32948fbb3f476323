// The main listener's TLS: a server certificate and key (PEM files), TLS 1.2 or newer, read
// again on reload() (SIGHUP) so that a renewed certificate is served without a restart. A
// connection keeps the context it began with; new connections get the newest.
//
// The server speaks OpenSSL directly rather than through Poco's NetSSL sockets: its event loop
// drives non-blocking connections itself (http_server.hpp says why), and OpenSSL's SSL_read and
// SSL_write fit that loop as they are.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>

namespace signet {

class TlsContext {
 public:
  // Throws InvalidArgument naming the file when either cannot be read, or the key does not
  // belong to the certificate.
  TlsContext(std::string certFile, std::string keyFile);

  // Reads the files again. On failure the current certificate stays in use, and the error
  // (naming the file) is thrown for the caller to log.
  void reload();

  // A new server-side connection on `fd`, in accept state; the caller frees it (SSL_free).
  SSL* accept(int fd) const;

  // The certificate's subject and expiry, for the log line that says what is served.
  std::string describe() const;

 private:
  std::shared_ptr<SSL_CTX> load() const;

  std::string certFile_;
  std::string keyFile_;
  mutable std::mutex mutex_;
  std::shared_ptr<SSL_CTX> context_;
};

}  // namespace signet
