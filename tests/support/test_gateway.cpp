#include "test_gateway.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include "signet/jwt.hpp"
#include "store/keyring.hpp"
#include "store/sql_connection.hpp"
#include "support/secret_witness.hpp"

namespace signet::test {

std::string backendName(Backend b) {
  return b == Backend::kSqlite ? "SQLite" : "PostgreSQL";
}

static const char* pgServer() {
  const char* v = std::getenv("SIGNET_TEST_PG");
  return v && *v ? v : nullptr;
}

bool postgresAvailable() {
  return pgServer() != nullptr;
}

bool postgresRequired() {
  const char* required = std::getenv("SIGNET_REQUIRE_POSTGRES");
  return required && std::string(required) == "1";
}

void BackendTest::SetUp() {
  if (GetParam() == Backend::kPostgres) SIGNET_NEED_POSTGRES();
}

ScratchDatabase::ScratchDatabase(Backend backend, const std::filesystem::path& dir) {
  config_.backend = backend;
  if (backend == Backend::kSqlite) {
    config_.connection = (dir / "signet.db").string();
    return;
  }
  pgName_ = "signet_test_" + crypto::uuidV4().substr(0, 8);
  openPostgres(std::string(pgServer()) + " dbname=postgres")->exec("CREATE DATABASE " + pgName_);
  config_.connection = std::string(pgServer()) + " dbname=" + pgName_;
}

ScratchDatabase::~ScratchDatabase() {
  if (pgName_.empty()) return;
  try {
    openPostgres(std::string(pgServer()) + " dbname=postgres")
        ->exec("DROP DATABASE IF EXISTS " + pgName_ + " WITH (FORCE)");
  } catch (...) {
  }
}

TestGateway::TestGateway(Backend backend, std::vector<std::string> plugins,
                         std::filesystem::path pluginDir,
                         std::map<std::string, json::Object> pluginSettings,
                         const std::function<void(Config&)>& adjust) {
  dir_ = std::filesystem::temp_directory_path() / ("signet-test-" + crypto::uuidV4());
  std::filesystem::create_directories(dir_);
  database_ = std::make_unique<ScratchDatabase>(backend, dir_);
  std::filesystem::path configFile = dir_ / "signet.json";
  std::ofstream(configFile) << Config::defaultFileText(plugins);
  config_ = Config::load(dir_, configFile);
  config_.database = database_->config();
  config_.listen = "127.0.0.1:0";
  // maxBodyBytes stays at the production default (1 MiB): a 400 KB contract interface fits.
  config_.maxHeaderBytes = 4096;
  if (!pluginDir.empty()) config_.pluginDir = pluginDir;
  config_.pluginSettings = std::move(pluginSettings);
  if (adjust) adjust(config_);
  MasterKey::create(config_.masterKeyFile);
  start();

  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  witnessSecret("root API private key", toHex(priv.bytes()));
  rootStamper_ = std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256);
  write([&](Db& db) {
    root_ = createRootOrganization(db, "Test Org", "root user", pub, "API_KEY_CURVE_P256",
                                   gateway_->nowMs());
  });
}

namespace {
// The time activityBody stamps by default: the system's, or the one a test set.
std::atomic<int64_t> fixedClientTimeMs{0};

// The system's time is made strictly increasing: two identical requests sent in one
// millisecond would otherwise have one fingerprint, and the gateway would answer the second
// with the first's activity (as it must for a replay), which a test does not mean to send.
int64_t clientTimeMs() {
  if (fixedClientTimeMs) return fixedClientTimeMs.load();
  static std::atomic<int64_t> last{0};
  int64_t now = systemNowMs(), seen = last.load(), next;
  do {
    next = std::max(now, seen + 1);
  } while (!last.compare_exchange_weak(seen, next));
  return next;
}
}  // namespace

Client TestGateway::clientWith(std::shared_ptr<Stamper> stamper) const {
  Client client(baseUrl(), std::move(stamper));
  client.setClock(clientTimeMs);
  return client;
}

void TestGateway::setTime(int64_t epochMs) {
  gateway_->setClock([epochMs] { return epochMs; });
  fixedClientTimeMs = epochMs;
}

namespace {
// Every secret the gateway's keyring holds, and the master key, for the check that no log line
// holds one (secret_witness.hpp): mnemonics, seeds, private keys, the signer key, OTP codes'
// target keys, whatever the plugins sealed.
void witnessKeyring(Gateway& gateway) {
  const auto& master = gateway.masterKey();
  witnessSecret("master key", toHex(master.bytes()));
  gateway.database().read([&](Db& db) {
    for (const auto& row : db.query("SELECT id, kind, nonce, ciphertext FROM signet_secrets")) {
      auto opened = openSealed(master, row.str("id"), row.str("kind"), row.str("nonce"),
                               row.str("ciphertext"));
      if (!opened) continue;
      witnessSecret(row.str("kind"), toHex(opened->bytes()));
      std::string text(opened->bytes().begin(), opened->bytes().end());
      if (std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        witnessSecret(row.str("kind"), text);  // a mnemonic, a token
    }
  });
}
}  // namespace

TestGateway::~TestGateway() {
  fixedClientTimeMs = 0;
  try {
    if (gateway_) witnessKeyring(*gateway_);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "could not read the keyring for the log check: " << e.what();
  }
  listeners_.clear();
  server_.reset();
  gateway_.reset();
  database_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void TestGateway::start() {
  gateway_ = std::make_unique<Gateway>(config_);
  server_ = std::make_unique<HttpServer>(*gateway_, config_.listen);
  server_->start();
  gateway_->setLocalUrl(baseUrl());
  gateway_->startBackground();
  // The enabled plugins' own listeners, as signet serve starts them.
  for (const auto& m : gateway_->catalog().modules()) {
    if (!m->enabled) continue;
    for (const auto& l : m->listeners) {
      auto server = std::make_unique<HttpServer>(*gateway_, l.address, &l, m->name);
      server->start();
      listenerUrls_[m->name + "/" + l.name] = "http://127.0.0.1:" + std::to_string(server->port());
      listeners_.push_back(std::move(server));
    }
  }
}

std::string TestGateway::listenerUrl(const std::string& module, const std::string& name) const {
  auto it = listenerUrls_.find(module + "/" + name);
  if (it == listenerUrls_.end())
    throw std::runtime_error("no listener " + name + " of module " + module);
  return it->second;
}

void TestGateway::restart(const std::function<void(Config&)>& adjust) {
  listeners_.clear();
  listenerUrls_.clear();
  server_.reset();
  gateway_.reset();
  if (adjust) adjust(config_);
  start();
}

uint16_t TestGateway::port() const {
  return server_->port();
}

std::string TestGateway::baseUrl() const {
  return "http://127.0.0.1:" + std::to_string(server_->port());
}

std::string TestGateway::sqliteFile(const char* name) const {
  std::ifstream in(dir_ / name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int64_t TestGateway::count(const std::string& sql, const SqlParams& params) {
  int64_t n = 0;
  gateway_->database().read([&](Db& db) {
    // Any query that answers one integer (a COUNT(*), a counter, a flag): its one column, whatever
    // the store names it (an unaliased COUNT(*) is "COUNT(*)" in SQLite, "count" in PostgreSQL).
    auto row = db.queryOne(sql, params);
    if (row->columns().size() != 1)
      throw std::runtime_error("count() wants a query of one column: " + sql);
    n = row->i64(row->columns().front());
  });
  return n;
}

std::string TestGateway::mintVerificationToken(const std::string& type, const std::string& contact,
                                               const std::string& organizationId,
                                               int64_t expiresAtMs) {
  std::string token;
  gateway_->database().read([&](Db& db) {
    auto signer = DbKeyring(db, gateway_->masterKey()).open("gateway-signer", "p256-private-key");
    json::Object header = json::object();
    header->set("typ", "JWT");
    header->set("alg", "ES256");
    json::Object claims = json::object();
    claims->set("id", crypto::uuidV4());
    claims->set("verification_type", type);
    claims->set("contact", contact);
    claims->set("organization_id", organizationId);
    claims->set("exp", std::to_string(expiresAtMs ? expiresAtMs : systemNowMs() + 600'000));
    token = jwt::signEs256(signer, header, claims, jwt::Hashing::kSingleSha256);
  });
  return token;
}

std::pair<BootstrapResult, std::shared_ptr<ApiKeyStamper>> TestGateway::createOrganization(
    const std::string& name) {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  BootstrapResult r;
  write([&](Db& db) {
    r = createRootOrganization(db, name, name + " root", pub, "API_KEY_CURVE_P256",
                               gateway_->nowMs());
  });
  return {r, std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256)};
}

json::Object orgBody(const std::string& organizationId) {
  json::Object o = json::object();
  o->set("organizationId", organizationId);
  return o;
}

std::string activityBody(const std::string& type, const std::string& organizationId,
                         const json::Object& parameters, int64_t timestampMs) {
  if (timestampMs == 0) timestampMs = clientTimeMs();
  json::Object body = json::object();
  body->set("type", type);
  body->set("timestampMs", std::to_string(timestampMs));
  body->set("organizationId", organizationId);
  body->set("parameters", parameters);
  return json::stringify(body);
}

namespace {
// An object holding every declared field, each of its type: an object's own fields filled the
// same way, an array empty.
json::Object wellShapedFields(const std::vector<ParamSpec>& fields) {
  json::Object p = json::object();
  for (const auto& param : fields) {
    switch (param.type) {
      case ParamType::kString:
        p->set(param.name, "x");
        break;
      case ParamType::kBool:
        p->set(param.name, false);
        break;
      case ParamType::kInteger:
      case ParamType::kDecimal:
        p->set(param.name, 0);
        break;
      case ParamType::kObject:
        p->set(param.name, wellShapedFields(param.fields));
        break;
      case ParamType::kArray:
        p->set(param.name, json::array());
        break;
      case ParamType::kUuid:
        p->set(param.name, crypto::uuidV4());
        break;
    }
  }
  return p;
}
}  // namespace

json::Object wellShaped(const ActivitySpec& spec) {
  return wellShapedFields(spec.parameters);
}

json::Object resultOf(const json::Object& activity, const std::string& key) {
  EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
      << json::stringify(activity);
  auto result = activity->getObject("result");
  return result && result->has(key) ? result->getObject(key) : json::object();
}

std::string failureOf(const json::Object& activity) {
  EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED")
      << json::stringify(activity);
  auto f = activity->getObject("failure");
  return f ? f->getValue<std::string>("message") : "";
}

bool eventually(const std::function<bool()>& check, int timeoutMs) {
  for (int waited = 0; waited < timeoutMs; waited += 50) {
    if (check()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return check();
}

Key newKey() {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  witnessSecret("API private key", toHex(priv.bytes()));
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  return {std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256), pub};
}

HttpResponse httpGet(const std::string& baseUrl, const std::string& path) {
  Poco::URI uri(baseUrl);
  Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  HttpResponse out;
  out.status = response.getStatus();
  out.contentType = response.getContentType();
  for (const auto& [name, value] : response) out.headers.emplace_back(name, value);
  Poco::StreamCopier::copyToString(in, out.body);
  return out;
}

}  // namespace signet::test
