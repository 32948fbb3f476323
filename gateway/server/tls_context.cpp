#include "server/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/x509.h>

#include "signet/error.hpp"

namespace signet {

namespace {
// The TLS 1.2 suites the listeners accept: ECDHE key exchange with AES-GCM or ChaCha20-Poly1305
// only (the ECDHE suites of Mozilla's "intermediate" server-side TLS list; its DHE suites are
// left out). CBC suites, which padding-oracle attacks (Lucky Thirteen) have a long history
// against, are not accepted. TLS 1.3's suites are all AEAD and are left as OpenSSL has them.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's last error as text, emptying its queue.
std::string opensslError() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}
}  // namespace

TlsContext::TlsContext(std::string certFile, std::string keyFile)
    : certFile_(std::move(certFile)), keyFile_(std::move(keyFile)) {
  context_ = load();
}

std::shared_ptr<SSL_CTX> TlsContext::load() const {
  ERR_clear_error();
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) throw internalError("cannot create a TLS context: " + opensslError());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_set_cipher_list(ctx.get(), kTls12Ciphers) != 1)
    throw internalError("cannot set the TLS 1.2 cipher suites: " + opensslError());
  // Partial writes and a buffer that moves between retries: the loop writes what the socket
  // takes and resumes from its own string, which may have been reallocated meanwhile.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                  SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), certFile_.c_str()) != 1)
    throw invalidArgument("invalid TLS certificate file " + certFile_ +
                          " (tls.certFile, --tls-cert): " + opensslError());
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), keyFile_.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH)
      throw invalidArgument("the TLS key " + keyFile_ + " does not belong to the certificate " +
                            certFile_ + ": " + opensslError());
    throw invalidArgument("invalid TLS key file " + keyFile_ +
                          " (tls.keyFile, --tls-key): " + opensslError());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    throw invalidArgument("the TLS key " + keyFile_ + " does not belong to the certificate " +
                          certFile_ + ": " + opensslError());
  return ctx;
}

void TlsContext::reload() {
  auto fresh = load();  // throws, leaving the current one in place
  std::lock_guard lock(mutex_);
  context_ = std::move(fresh);
}

SSL* TlsContext::accept(int fd) const {
  std::shared_ptr<SSL_CTX> ctx;
  {
    std::lock_guard lock(mutex_);
    ctx = context_;
  }
  SSL* ssl = SSL_new(ctx.get());  // holds its own reference to the context
  if (!ssl) return nullptr;
  SSL_set_fd(ssl, fd);
  SSL_set_accept_state(ssl);
  return ssl;
}

std::string TlsContext::describe() const {
  std::shared_ptr<SSL_CTX> ctx;
  {
    std::lock_guard lock(mutex_);
    ctx = context_;
  }
  X509* cert = SSL_CTX_get0_certificate(ctx.get());
  if (!cert) return "no certificate";
  char subject[256] = "";
  X509_NAME_oneline(X509_get_subject_name(cert), subject, sizeof subject);
  std::string out = std::string(subject) + ", valid until ";
  BIO* bio = BIO_new(BIO_s_mem());
  ASN1_TIME_print(bio, X509_get0_notAfter(cert));
  char* text = nullptr;
  long n = BIO_get_mem_data(bio, &text);
  out.append(text, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

}  // namespace signet
