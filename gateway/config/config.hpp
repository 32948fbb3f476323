// The gateway's configuration: a JSON file (signet.json in the data directory by default).
// Every field has a default, so `signet init` writes a file a person can read and edit.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "log/witnesses.hpp"
#include "server/client_address.hpp"
#include "signet/egress.hpp"
#include "signet/json.hpp"
#include "store/database.hpp"
#include "store/pkcs11_token.hpp"

namespace signet {

// Whether `pin` is "sha256:" and 64 lower-case hex digits.
bool isSha256Pin(const std::string& pin);

// Request rates (limits.rateLimit). Rates are per second and refill continuously; `burst` is
// the bucket's size. 0 turns a limit off. The hosted service documents per-minute buckets and
// 10 requests a second for each sub-organization by default, shared with its parent's plan
// rate; these defaults give an organization 50 a second and a minute's worth of a 10/s bucket
// as burst, and bound one client address to 200 a second.
struct RateLimits {
  double perIpPerSecond = 200;
  double perOrganizationPerSecond = 50;
  // What the auth proxy forwards for an organization (its proxy key's requests): a budget of
  // its own, so that strangers reaching the proxy cannot spend the organization's.
  double perAuthProxyPerSecond = 50;
  double burst = 600;
};

// The HTTP front end's bounds (server/http_server.hpp), from `limits`.
struct ServerLimits {
  size_t maxConnections = 0;  // 0: as many as the process's descriptor limit leaves room for
  size_t maxConnectionsPerAddress = 256;
  size_t maxHeadBytes = 64 * 1024;  // request line and headers
  size_t maxQueuedRequests = 1024;  // complete requests waiting for a handler slot; past it, 503
  // What a submitted activity may carry: its body is stored with it (intent and vote), denied
  // or not, so this bounds what any caller can make the store keep per request.
  size_t maxActivityBytes = 512 * 1024;
  int64_t headerTimeoutMs = 10'000;  // from a request's first byte to the end of its head
  int64_t bodyTimeoutMs = 30'000;    // then to the end of its body
  int64_t idleTimeoutMs = 5'000;     // a connection with no request in progress
  RateLimits rateLimit;
  // Outbound calls (limits.egress): in flight for API requests, and to one destination. The
  // first stays below `threads` (half of it by default when `threads` is small), so that
  // requests without outbound calls find a thread while others wait on the network.
  egress::Limits egress;
  // server.trustedProxies: the reverse proxies whose X-Forwarded-For says who the client is
  // (server/client_address.hpp). Empty: the connection's peer is the client.
  std::vector<Cidr> trustedProxies;
};

struct Config {
  std::filesystem::path dataDir;
  std::string listen = "127.0.0.1:8080";
  DatabaseConfig database;  // default: SQLite file signet.db in the data directory
  std::filesystem::path masterKeyFile;
  // masterKeyPkcs11: the master key is kept wrapped by an AES key in this PKCS#11 token
  // (MasterKey::wrap), in masterKeyFile.wrapped.
  std::optional<Pkcs11Settings> masterKeyPkcs11;
  std::filesystem::path pluginDir;  // default: SIGNET_PLUGIN_DIR, else <binary dir>/plugins
  std::vector<std::string> enabledPlugins;
  std::map<std::string, json::Object> pluginSettings;  // plugins.settings.<name>
  // plugins.pins.<name>: "sha256:<hex>" of the plugin's library, checked before it is loaded.
  std::map<std::string, std::string> pluginPins;
  size_t maxBodyBytes = 1 << 20;
  // The longest stamp header value: a longer one is refused with a JSON error naming it.
  size_t maxHeaderBytes = 8000;
  // Requests that run at once, each on a thread of the HTTP server's pool (which has one
  // thread more, to read while every one is taken); 0 sizes it for the machine (eight per
  // core, at least sixteen: handlers mostly wait on the database).
  int threads = 0;
  // Of those threads, how many poll and run at once (server/cpu_gate.hpp); 0: two a core. A
  // gateway whose requests wait long on the network (a distant PostgreSQL) may want more.
  int threadsRunning = 0;
  ServerLimits server;
  std::string corsAllowOrigin = "*";
  // WebAuthn relying-party ids whose rpIdHash an assertion may carry; empty accepts any
  // (the hosted service's rule is not published; an operator should set this).
  std::vector<std::string> webauthnRpIds;
  // Where clients reach this gateway, without a trailing slash: the `iss` of the ID tokens it
  // signs (oauth2_authenticate) and the base of its OpenID configuration. Default:
  // http://<listen> (https:// with TLS); `signet serve` makes it the address it listens on.
  std::string publicUrl;
  bool publicUrlConfigured = false;  // the file sets publicUrl
  // Where GET /metrics is served (metrics.listen, host:port). Empty: on the main listener, to
  // loopback clients only.
  std::string metricsListen;
  // TLS on the main listener (tls.certFile, tls.keyFile, or signet serve --tls-cert/--tls-key):
  // PEM files, re-read on SIGHUP. Empty: plain HTTP.
  std::string tlsCertFile;
  std::string tlsKeyFile;
  // The activity log (docs/activity-log.md): the origin its checkpoints name (log.origin, used
  // when the store's log key is made; default signet.local/log-<key>), and how often the head
  // is signed and kept while it grows (log.checkpointSeconds).
  std::string logOrigin;
  int logCheckpointSeconds = 60;
  // Witnesses asked to cosign each checkpoint kept (log.witnesses: [{url, verifierKey}]).
  std::vector<log_witnesses::Witness> logWitnesses;

  // Reads `file` (default <dataDir>/signet.json) and fills defaults. Errors name the file
  // and the field.
  static Config load(const std::filesystem::path& dataDir, const std::filesystem::path& file = {});
  // The file `signet init` writes, enabling the given plugins.
  static std::string defaultFileText(const std::vector<std::string>& enabledPlugins);
  // SIGNET_PLUGIN_DIR, else the plugins folder beside the signet binary.
  static std::filesystem::path defaultPluginDir();
};

}  // namespace signet
