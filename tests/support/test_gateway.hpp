// A real gateway for tests: a fresh data directory, a fresh database (SQLite file, or a new
// PostgreSQL database on the server named by SIGNET_TEST_PG), a root organization, and the
// HTTP server on an ephemeral loopback port.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gateway.hpp"
#include "server/http_server.hpp"
#include "signet/client.hpp"
#include "tenancy/bootstrap.hpp"

namespace signet::test {

std::string backendName(Backend b);
// Whether SIGNET_TEST_PG names a PostgreSQL server, and whether SIGNET_REQUIRE_POSTGRES=1 asks
// that the PostgreSQL cases run (scripts/test.sh sets both, so that CI cannot skip them).
bool postgresAvailable();
bool postgresRequired();

// In a test that needs PostgreSQL: skips without a server, or fails when one is required.
#define SIGNET_NEED_POSTGRES()                                                                 \
  do {                                                                                         \
    if (!::signet::test::postgresAvailable()) {                                                \
      if (::signet::test::postgresRequired())                                                  \
        FAIL() << "SIGNET_REQUIRE_POSTGRES=1 but SIGNET_TEST_PG names no server";              \
      GTEST_SKIP() << "set SIGNET_TEST_PG to run the PostgreSQL cases (scripts/test.sh does)"; \
    }                                                                                          \
  } while (0)

// A fresh, empty database for one test, dropped when the object goes away.
class ScratchDatabase {
 public:
  explicit ScratchDatabase(Backend backend, const std::filesystem::path& dir);
  ~ScratchDatabase();
  const DatabaseConfig& config() const { return config_; }

 private:
  DatabaseConfig config_;
  std::string pgName_;
};

class TestGateway {
 public:
  // `adjust` changes the configuration before the gateway starts (limits, say).
  explicit TestGateway(Backend backend, std::vector<std::string> plugins = {"memo"},
                       std::filesystem::path pluginDir = {},
                       std::map<std::string, json::Object> pluginSettings = {},
                       const std::function<void(Config&)>& adjust = {});
  ~TestGateway();

  // Stops the server and the gateway and starts both again on the same store; `adjust`, when
  // given, changes the configuration first (an operator editing signet.json between runs).
  void restart(const std::function<void(Config&)>& adjust = {});
  std::string baseUrl() const;
  uint16_t port() const;  // of the loopback listener, for raw-socket tests
  // http://127.0.0.1:PORT of an enabled plugin's own listener, started beside the main one.
  std::string listenerUrl(const std::string& module, const std::string& name) const;
  Gateway& gateway() { return *gateway_; }
  const std::filesystem::path& dataDir() const { return dir_; }
  // The SQLite store's files (the database and its WAL), and one's bytes as they are on disk,
  // empty when it does not exist: for tests that a secret is nowhere in the store in clear.
  static constexpr const char* kSqliteFiles[] = {"signet.db", "signet.db-wal"};
  std::string sqliteFile(const char* name) const;
  // Moves the gateway's clock and the time test clients stamp into requests to `epochMs`
  // (a fixed instant) until the gateway is destroyed; time-based policies are tested so.
  void setTime(int64_t epochMs);

  // The root organization created at start, and a client stamped with its root key.
  const BootstrapResult& root() const { return root_; }
  Client rootClient() const { return clientWith(rootStamper_); }
  Client clientWith(std::shared_ptr<Stamper> stamper) const;
  const std::shared_ptr<ApiKeyStamper>& rootStamper() const { return rootStamper_; }

  // Runs fn in one transaction of the gateway's store (test setup and inspection).
  void write(const std::function<void(Db&)>& fn) { gateway_->database().transaction(fn); }
  int64_t count(const std::string& sql, const SqlParams& params = {});

  // A verification token as verify_otp issues it, signed by this gateway's signer.
  std::string mintVerificationToken(const std::string& type, const std::string& contact,
                                    const std::string& organizationId, int64_t expiresAtMs = 0);

  // A second root organization with its own key, for cross-tenant tests.
  std::pair<BootstrapResult, std::shared_ptr<ApiKeyStamper>> createOrganization(
      const std::string& name);

 private:
  void start();

  std::filesystem::path dir_;
  std::unique_ptr<ScratchDatabase> database_;
  Config config_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::unique_ptr<HttpServer>> listeners_;
  std::map<std::string, std::string> listenerUrls_;
  BootstrapResult root_;
  std::shared_ptr<ApiKeyStamper> rootStamper_;
};

// {"organizationId": id}: the body of most queries.
json::Object orgBody(const std::string& organizationId);

// A plain GET (plugin routes, health checks): status, content type and body.
HttpResponse httpGet(const std::string& baseUrl, const std::string& path);

// A body of an activity request with the current time.
std::string activityBody(const std::string& type, const std::string& organizationId,
                         const json::Object& parameters, int64_t timestampMs = 0);

// Parameters that pass an activity's declared shapes (ActivitySpec::parameters), optional ones
// included, so that an attempt reaches the step a test is about (undeclared fields stay
// absent).
json::Object wellShaped(const ActivitySpec& spec);

// The result under `key` of a COMPLETED activity (a test failure otherwise).
json::Object resultOf(const json::Object& activity, const std::string& key);
// The failure message of a FAILED activity (a test failure otherwise).
std::string failureOf(const json::Object& activity);

// Polls `check` until it holds or `timeoutMs` pass (work done in the background: deliveries,
// events); whether it held.
bool eventually(const std::function<bool()>& check, int timeoutMs = 10000);

// A fresh P-256 API key and a stamper for it.
struct Key {
  std::shared_ptr<ApiKeyStamper> stamper;
  std::string publicKey;  // compressed hex
};
Key newKey();

// Parametrizes a suite over the backends; PostgreSQL cases skip without a server.
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override;
};

#define SIGNET_BACKEND_SUITE(Suite)                                                \
  INSTANTIATE_TEST_SUITE_P(                                                        \
      Backends, Suite,                                                             \
      ::testing::Values(::signet::Backend::kSqlite, ::signet::Backend::kPostgres), \
      [](const auto& info) { return ::signet::test::backendName(info.param); })

}  // namespace signet::test
