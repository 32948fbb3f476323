// The signet binary as a user runs it: init, org create with a generated key, serve on a
// free port, a stamped request with the written key file, a clean stop on SIGTERM, and a
// restart that keeps everything.

#include <Poco/Net/ServerSocket.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "signet/version.hpp"
#include "store/database.hpp"
#include "store/keyring.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"

#ifndef SIGNET_BINARY
#error "SIGNET_BINARY must name the signet executable"
#endif

namespace signet::test {
namespace {

CliRun run(const std::vector<std::string>& args) {
  return runSignet(args);
}

TEST(CliTest, InitOrgCreateServeAndRestart) {
  auto dir = (std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4())).string();
  auto init = run({"init", "--data-dir", dir});
  ASSERT_EQ(init.exitCode, 0) << init.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/master.key"));
  EXPECT_EQ(
      std::filesystem::status(dir + "/master.key").permissions() & std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  auto org = run({"org", "create", "--data-dir", dir, "--name", "Acme", "--user-name", "alice"});
  ASSERT_EQ(org.exitCode, 0) << org.err;
  auto ids = json::parseObject(org.out, "org create output");
  std::string orgId = ids->getValue<std::string>("organizationId");
  // The credentials file: what an SDK needs, in @turnkey/sdk-server's field names, 0600.
  std::string keyFile = dir + "/" + orgId + ".api-key.json";
  ASSERT_TRUE(std::filesystem::exists(keyFile)) << org.err;
  EXPECT_NE(org.err.find(keyFile), std::string::npos);
  EXPECT_EQ(std::filesystem::status(keyFile).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ifstream keyStream(keyFile);
  auto credentials = json::parseObject(
      std::string((std::istreambuf_iterator<char>(keyStream)), std::istreambuf_iterator<char>()),
      "credentials file");
  EXPECT_EQ(credentials->getValue<std::string>("apiBaseUrl"), "http://127.0.0.1:8080");
  EXPECT_EQ(credentials->getValue<std::string>("defaultOrganizationId"), orgId);
  EXPECT_EQ(credentials->getValue<std::string>("userId"), ids->getValue<std::string>("userId"));
  EXPECT_EQ(credentials->getValue<std::string>("apiKeyId"), ids->getValue<std::string>("apiKeyId"));
  std::string privateHex = credentials->getValue<std::string>("apiPrivateKey");
  EXPECT_EQ(ApiKeyStamper::fromHex(privateHex)->publicKeyHex(),
            credentials->getValue<std::string>("apiPublicKey"));
  // No file is left behind but the credentials (the pending file was renamed, not copied).
  size_t files = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir))
    files += entry.path().filename().string().find("api-key") != std::string::npos;
  EXPECT_EQ(files, 1u);

  json::Object who = json::object();
  who->set("organizationId", orgId);
  {
    ServeProcess server(dir);
    Client client(server.baseUrl(), ApiKeyStamper::fromHex(privateHex));
    auto me = client.query("whoami", who);
    EXPECT_EQ(me->getValue<std::string>("username"), "alice");
    EXPECT_EQ(me->getValue<std::string>("userId"), ids->getValue<std::string>("userId"));
    EXPECT_EQ(server.stop(), 0);
  }
  {
    ServeProcess again(dir);
    Client client(again.baseUrl(), ApiKeyStamper::fromHex(privateHex));
    EXPECT_EQ(client.query("whoami", who)->getValue<std::string>("organizationName"), "Acme");
    EXPECT_EQ(again.stop(), 0);
  }

  // Bad input on the command line: a clear message and a usage exit code.
  auto bad = run({"org", "create", "--data-dir", dir, "--name", "X", "--user-name", "y",
                  "--api-public-key", "02abcd"});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("is not a P-256 public key"), std::string::npos) << bad.err;
  auto badUrl = run({"org", "create", "--data-dir", dir, "--name", "X", "--user-name", "y",
                     "--base-url", "127.0.0.1:8080"});
  EXPECT_EQ(badUrl.exitCode, 2);
  EXPECT_NE(badUrl.err.find("--base-url must start with http:// or https://, not '127.0.0.1:8080'"),
            std::string::npos)
      << badUrl.err;
  auto typo = run({"org", "create", "--data-dir", dir, "--nmae", "X"});
  EXPECT_EQ(typo.exitCode, 2);
  EXPECT_NE(typo.err.find("unknown option --nmae"), std::string::npos) << typo.err;
  for (auto cmd : std::vector<std::vector<std::string>>{{"init", "--help"},
                                                        {"org", "create", "--help"},
                                                        {"serve", "--help"},
                                                        {"plugins", "list", "--help"},
                                                        {"keys", "show", "--help"}})
    EXPECT_EQ(run(cmd).exitCode, 0);
  auto plugins = run({"plugins", "list", "--data-dir", dir});
  EXPECT_NE(plugins.out.find("memo 0.1.0 (enabled)"), std::string::npos) << plugins.out;
  EXPECT_NE(plugins.out.find("ACTIVITY_TYPE_CREATE_API_KEYS_V2"), std::string::npos);
  // Listing reads descriptors only: the tripwire plugin would abort the command if it were
  // loaded. A folder with a library the gateway would refuse lists it and exits 1.
  auto tests = run({"plugins", "list", "--plugin-dir", SIGNET_TEST_PLUGIN_DIR});
  EXPECT_EQ(tests.exitCode, 0) << tests.err;
  EXPECT_NE(tests.out.find("tripwire 0.0.1"), std::string::npos) << tests.out;
  EXPECT_NE(tests.out.find("submit   POST /public/v1/submit/tripwire_submit"), std::string::npos)
      << tests.out;
  auto broken = run({"plugins", "list", "--plugin-dir", SIGNET_BROKEN_PLUGIN_DIR});
  EXPECT_EQ(broken.exitCode, 1);
  EXPECT_NE(broken.out.find("refused " + std::string(SIGNET_BROKEN_PLUGIN_DIR) +
                            "/libsignet-plugin-badbuild.so: plugin 'badbuild' 9.9.9"),
            std::string::npos)
      << broken.out;
  std::filesystem::remove_all(dir);
}

// A plugin's own listener, started by signet serve on the address from the plugin's settings,
// serving that plugin's listener routes and nothing else; plugins list shows routes and
// listeners.
TEST(CliTest, APluginListenerServesItsRoutesBesideTheMainServer) {
  auto dir = (std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4())).string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/signet.json") << R"({"plugins": {"enabled": ["memo"], "settings": )"
                                      << R"({"memo": {"listen": "127.0.0.1:0"}}}})";
  ASSERT_EQ(run({"init", "--data-dir", dir}).exitCode, 0);
  auto listed = run({"plugins", "list", "--data-dir", dir});
  EXPECT_NE(listed.out.find("route    GET /plugins/memo/about (public)"), std::string::npos)
      << listed.out;
  EXPECT_NE(listed.out.find("route    POST /plugins/memo/latest (stamped)"), std::string::npos);
  EXPECT_NE(listed.out.find("listener memo"), std::string::npos);

  ServeProcess server(dir);
  std::string main = server.baseUrl();
  std::string listener = server.nextLine();  // "plugin memo listener memo on http://127.0.0.1:PORT"
  ASSERT_NE(listener.find("plugin memo listener memo on http://127.0.0.1:"), std::string::npos)
      << listener;
  auto get = [](const std::string& base, const std::string& path) {
    auto r = httpGet(base, path);
    return std::make_pair(r.status, r.body);
  };
  std::string listenerUrl = listener.substr(listener.find("http://"));
  EXPECT_EQ(get(listenerUrl, "/about"),
            std::make_pair(200, std::string("memo: organization memos, served at /about\n")));
  EXPECT_EQ(get(listenerUrl, "/plugins/memo/about").first, 404);  // only its own routes
  EXPECT_EQ(get(listenerUrl, "/healthz").first, 404);
  EXPECT_EQ(get(main, "/plugins/memo/about").first, 200);
  EXPECT_EQ(server.stop(), 0);
  std::filesystem::remove_all(dir);
}

// Only the features needed: init --plugins, then plugins enable|disable edit the config.
TEST(CliTest, InitWithChosenPluginsThenEnableAndDisable) {
  auto dir = (std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4())).string();
  auto enabled = [&] { return Config::load(dir).enabledPlugins; };
  auto typo = run({"init", "--data-dir", dir, "--plugins", "memo,ghost"});
  EXPECT_EQ(typo.exitCode, 2);
  EXPECT_NE(typo.err.find("--plugins names 'ghost', which is not in"), std::string::npos)
      << typo.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/signet.json"));  // nothing written

  ASSERT_EQ(run({"init", "--data-dir", dir, "--plugins", "memo"}).exitCode, 0);
  EXPECT_EQ(enabled(), std::vector<std::string>{"memo"});
  auto again = run({"init", "--data-dir", dir, "--plugins", "signing"});
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;

  auto off = run({"plugins", "disable", "memo", "--data-dir", dir});
  EXPECT_EQ(off.exitCode, 0) << off.err;
  EXPECT_NE(off.out.find("restart signet serve"), std::string::npos) << off.out;
  EXPECT_TRUE(enabled().empty());
  auto ghost = run({"plugins", "enable", "ghost", "--data-dir", dir});
  EXPECT_EQ(ghost.exitCode, 2);
  EXPECT_NE(ghost.err.find("plugin 'ghost' is not in"), std::string::npos) << ghost.err;
  EXPECT_TRUE(enabled().empty());
  EXPECT_EQ(run({"plugins", "enable", "signing", "--data-dir", dir}).exitCode, 0);
  EXPECT_EQ(run({"plugins", "enable", "memo", "--data-dir", dir}).exitCode, 0);
  EXPECT_EQ(enabled(), (std::vector<std::string>{"signing", "memo"}));
  // The rest of the file is kept, in its order.
  std::ifstream in(dir + "/signet.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_LT(text.find("\"listen\""), text.find("\"database\"")) << text;
  EXPECT_EQ(run({"--help"}).exitCode, 0);
  std::filesystem::remove_all(dir);
}

// Options anywhere among a command's words, as GNU tools take them, for the gateway's commands
// and the plugins' alike; what is not an option of the command is still refused by name.
TEST(CliTest, OptionsGoAnywhereAndUnknownOnesAreRefusedByName) {
  auto dir = (std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4())).string();
  auto enabled = [&] { return Config::load(dir).enabledPlugins; };
  ASSERT_EQ(run({"init", "--plugins", "memo,webhooks", "--data-dir", dir}).exitCode, 0);
  auto off = run({"plugins", "--data-dir", dir, "disable", "memo"});  // between the words
  EXPECT_EQ(off.exitCode, 0) << off.err;
  EXPECT_EQ(enabled(), std::vector<std::string>{"webhooks"});
  auto on = run({"--data-dir=" + dir, "plugins", "enable", "memo"});  // before them
  EXPECT_EQ(on.exitCode, 0) << on.err;
  EXPECT_EQ(enabled(), (std::vector<std::string>{"webhooks", "memo"}));

  const std::string type = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2";
  auto set = run({"rollout", "set", "--data-dir", dir, type, "general"});  // the issue's order
  EXPECT_EQ(set.exitCode, 0) << set.err;
  auto list = run({"rollout", "list", "--data-dir", dir});
  EXPECT_NE(list.out.find("general    operator"), std::string::npos) << list.out;
  auto deliveries =
      run({"webhooks", "--organization", crypto::uuidV4(), "deliveries", "--data-dir", dir});
  EXPECT_EQ(deliveries.exitCode, 0) << deliveries.err;

  struct Refusal {
    std::vector<std::string> args;
    int exitCode;
    std::string message;
  };
  for (const auto& r : std::vector<Refusal>{
           {{"rollout", "set", "--bogus", "x", type, "general", "--data-dir", dir},
            2,
            "signet rollout set: unknown option --bogus"},
           {{"--bogus", "x", "rollout", "list", "--data-dir", dir},
            2,
            "signet rollout list: unknown option --bogus"},
           {{"rollout", "set", type, "general", "now", "--data-dir", dir},
            2,
            "unexpected argument 'now'"},
           {{"rollout", "set", "--data-dir", dir, type}, 2, "missing the STATE"},
           {{"plugins", "enable", "--data-dir", dir}, 2, "missing the plugin's NAME"},
           {{"serve", "--data-dir", dir, "--listen"}, 2, "option --listen needs a value"},
           {{"webhooks", "deliveries", "--data-dir", dir, "--organisation", "x"},
            2,
            "signet webhooks deliveries: unknown option --organisation"},
       }) {
    auto refused = run(r.args);
    EXPECT_EQ(refused.exitCode, r.exitCode) << r.message << ": " << refused.err;
    EXPECT_NE(refused.err.find(r.message), std::string::npos) << refused.err;
  }
  // Nothing was changed by what was refused.
  EXPECT_EQ(run({"rollout", "list", "--data-dir", dir}).out, list.out);

  auto help = run({"rollout", "set", type, "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("usage: signet rollout set TYPE STATE"), std::string::npos) << help.out;
  auto version = run({"--version"});
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_EQ(version.out, std::string("signet ") + SIGNET_SDK_VERSION + "\n");
  std::filesystem::remove_all(dir);
}

// publicUrl (the issuer of the ID tokens the gateway signs) defaults to where `signet serve`
// listens: the port --listen gives, or the one picked for :0, not the config's `listen`. Set
// in the config, it is kept.
TEST(CliTest, TheIssuerIsWhereServeListensUnlessTheConfigSetsPublicUrl) {
  auto dir = (std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4())).string();
  ASSERT_EQ(run({"init", "--data-dir", dir, "--plugins", "memo"}).exitCode, 0);
  ASSERT_EQ(Config::load(dir).listen, "127.0.0.1:8080");
  auto discovery = [](const std::string& baseUrl) {
    auto r = httpGet(baseUrl, "/.well-known/openid-configuration");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parseObject(r.body, "openid-configuration");
  };
  {
    ServeProcess server(dir);  // --listen 127.0.0.1:0
    ASSERT_NE(server.baseUrl(), "http://127.0.0.1:8080");
    auto d = discovery(server.baseUrl());
    EXPECT_EQ(d->getValue<std::string>("issuer"), server.baseUrl());
    EXPECT_EQ(d->getValue<std::string>("jwks_uri"), server.baseUrl() + "/.well-known/jwks.json");
    auto own = json::parseObject(httpGet(server.baseUrl(), "/.well-known/signet.json").body,
                                 "signet.json");
    EXPECT_EQ(own->getValue<std::string>("oidcIssuer"), server.baseUrl());
    EXPECT_EQ(server.stop(), 0);
  }
  {
    Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
    std::string listen = "127.0.0.1:" + std::to_string(probe.address().port());
    probe.close();
    ServeProcess server(dir, {"--listen", listen});  // the last --listen counts
    EXPECT_EQ(server.baseUrl(), "http://" + listen);
    EXPECT_EQ(discovery(server.baseUrl())->getValue<std::string>("issuer"), "http://" + listen);
    EXPECT_EQ(server.stop(), 0);
  }
  {
    std::ifstream in(dir + "/signet.json");
    auto config = json::parseObject(
        std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
        "signet.json");
    config->set("publicUrl", "https://signet.example.com/");
    std::ofstream(dir + "/signet.json") << json::stringify(config);
    ServeProcess server(dir);
    EXPECT_EQ(discovery(server.baseUrl())->getValue<std::string>("issuer"),
              "https://signet.example.com");
    EXPECT_EQ(server.stop(), 0);
  }
  std::filesystem::remove_all(dir);
}

// The Debian unit's ExecStartPre: `init` with the package's configuration file, run at every
// start, makes the data directory once and then leaves it as it is.
TEST(CliTest, InitWithAConfigFileMakesTheDataDirectoryOnceAndThenDoesNothing) {
  auto base = std::filesystem::temp_directory_path() / ("signet-cli-" + crypto::uuidV4());
  std::filesystem::create_directories(base / "etc");
  auto config = (base / "etc" / "signet.json").string();
  auto dir = (base / "data").string();
  std::ofstream(config) << R"({"listen": "127.0.0.1:8080", "plugins": {"enabled": ["memo"]}})";
  auto first = run({"init", "--data-dir", dir, "--config", config});
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/signet.json"));  // the given file is the config
  EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  auto key = std::filesystem::last_write_time(dir + "/master.key");
  auto db = std::filesystem::last_write_time(dir + "/signet.db");
  auto second = run({"init", "--data-dir", dir, "--config", config});
  EXPECT_EQ(second.exitCode, 0) << second.err;
  EXPECT_NE(second.out.find("initialized already; nothing done"), std::string::npos) << second.out;
  EXPECT_EQ(std::filesystem::last_write_time(dir + "/master.key"), key);
  EXPECT_EQ(std::filesystem::last_write_time(dir + "/signet.db"), db);
  {
    ServeProcess server(dir, {"--config", config});
    EXPECT_EQ(httpGet(server.baseUrl(), "/healthz").status, 200);
    EXPECT_EQ(server.stop(), 0);
  }
  auto missing = run({"init", "--data-dir", dir, "--config", (base / "absent.json").string()});
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("absent.json, which does not exist"), std::string::npos)
      << missing.err;
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace signet::test

namespace signet::test {
namespace {

int64_t countIn(const std::filesystem::path& file, const std::string& sql) {
  DatabaseConfig config;
  config.backend = Backend::kSqlite;
  config.connection = file.string();
  Database db(config);
  int64_t n = -1;
  db.read([&](Db& tx) { n = tx.queryOne(sql)->i64("n"); });
  return n;
}

TEST(CliTest, BackupWhileServingThenRestoreWithTheSameMasterKeyOnly) {
  namespace fs = std::filesystem;
  auto dir = (fs::temp_directory_path() / ("signet-backup-" + crypto::uuidV4())).string();
  ASSERT_EQ(run({"init", "--data-dir", dir}).exitCode, 0);
  const auto org = createOrganizationWithCli(dir);
  const std::string& orgId = org.organizationId;
  const std::string& privateHex = org.apiPrivateKey;
  const fs::path store = fs::path(dir) / "signet.db";
  const std::string activities = "SELECT COUNT(*) AS n FROM activities";
  std::string backup = dir + "/backup.db";
  int64_t inBackup = 0;
  {
    ServeProcess server(dir);
    Client client(server.baseUrl(), ApiKeyStamper::fromHex(privateHex));
    auto tag = [&](int i) {
      json::Object p = json::object();
      p->set("userTagName", "tag " + std::to_string(i));
      p->set("userIds", json::array());
      client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", orgId, p);
    };
    for (int i = 0; i < 20; ++i) tag(i);
    // Writes go on while the backup is taken (at most 400 of them, whatever happens).
    std::atomic<bool> done{false};
    std::atomic<int> written{20};
    std::thread writer([&] {
      for (int i = 20; i < 420 && !done; ++i) {
        tag(i);
        ++written;
      }
    });
    while (written < 40) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int64_t before = countIn(store, activities);
    auto b = run({"backup", "--data-dir", dir, "--out", backup});
    done = true;
    writer.join();
    ASSERT_EQ(b.exitCode, 0) << b.err;
    EXPECT_NE(b.out.find("\"backup\""), std::string::npos) << b.out;
    EXPECT_EQ(fs::status(backup).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    inBackup = countIn(backup, activities);
    EXPECT_GE(inBackup, before);
    EXPECT_LE(inBackup, countIn(store, activities));
    // Each activity in the copy is whole: its tag is there too.
    EXPECT_EQ(countIn(backup, "SELECT COUNT(*) AS n FROM user_tags"), inBackup);
    // The same file is not overwritten, and a restore under a serving gateway is refused.
    EXPECT_NE(run({"backup", "--data-dir", dir, "--out", backup}).exitCode, 0);
    auto refused = run({"restore", "--data-dir", dir, "--from", backup});
    EXPECT_NE(refused.exitCode, 0);
    EXPECT_NE(refused.err.find("stop it before restoring"), std::string::npos) << refused.err;
    EXPECT_EQ(server.stop(), 0);
  }
  EXPECT_GT(countIn(store, activities), inBackup);  // the writes after the copy

  // Another data directory has another master key: its restore is refused.
  auto other = (fs::temp_directory_path() / ("signet-backup-" + crypto::uuidV4())).string();
  ASSERT_EQ(run({"init", "--data-dir", other}).exitCode, 0);
  auto wrongKey = run({"restore", "--data-dir", other, "--from", backup});
  EXPECT_NE(wrongKey.exitCode, 0);
  EXPECT_NE(wrongKey.err.find("does not open"), std::string::npos) << wrongKey.err;
  // Nor is a file that is no store.
  std::ofstream(dir + "/junk.db") << "not a database";
  auto junk = run({"restore", "--data-dir", dir, "--from", dir + "/junk.db"});
  EXPECT_NE(junk.exitCode, 0);

  auto restored = run({"restore", "--data-dir", dir, "--from", backup});
  ASSERT_EQ(restored.exitCode, 0) << restored.err;
  EXPECT_EQ(countIn(store, activities), inBackup);
  {
    ServeProcess server(dir);
    Client client(server.baseUrl(), ApiKeyStamper::fromHex(privateHex));
    json::Object who = json::object();
    who->set("organizationId", orgId);
    EXPECT_EQ(client.query("whoami", who)->getValue<std::string>("organizationName"), "Acme");
    EXPECT_EQ(server.stop(), 0);
  }
  fs::remove_all(dir);
  fs::remove_all(other);
}

}  // namespace
}  // namespace signet::test

namespace signet::test {
namespace {

// How many of the store's secrets open under `key` (through the keyring, as the gateway opens
// them).
size_t secretsOpeningUnder(const std::filesystem::path& store, const crypto::SecretBytes& key,
                           size_t& total) {
  DatabaseConfig config;
  config.backend = Backend::kSqlite;
  config.connection = store.string();
  Database db(config);
  size_t opening = 0;
  db.read([&](Db& tx) {
    auto rows = tx.query("SELECT id, kind FROM signet_secrets");
    total = rows.size();
    DbKeyring keyring(tx, key);
    for (const auto& r : rows) try {
        keyring.open(r.str("id"), r.str("kind"));
        ++opening;
      } catch (const Error&) {
      }
  });
  return opening;
}

crypto::SecretBytes keyIn(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string hex;
  in >> hex;
  return crypto::SecretBytes(*fromHex(hex));
}

TEST(CliTest, RotateMasterKeyIsSafeToInterruptAndFinishesWhenRunAgain) {
  namespace fs = std::filesystem;
  auto dir = (fs::temp_directory_path() / ("signet-rotate-" + crypto::uuidV4())).string();
  ASSERT_EQ(run({"init", "--data-dir", dir}).exitCode, 0);
  createOrganizationWithCli(dir);
  const fs::path store = fs::path(dir) / "signet.db", keyFile = fs::path(dir) / "master.key";
  const auto oldKey = keyIn(keyFile);
  // Enough secrets for several batches.
  {
    DatabaseConfig config;
    config.backend = Backend::kSqlite;
    config.connection = store.string();
    Database db(config);
    db.transaction([&](Db& tx) {
      DbKeyring keyring(tx, oldKey);
      for (int i = 0; i < 120; ++i)
        keyring.seal("test-secret-" + std::to_string(i), "test",
                     crypto::SecretBytes(crypto::randomBytes(32)));
    });
  }
  size_t total = 0;
  ASSERT_EQ(secretsOpeningUnder(store, oldKey, total), total);
  ASSERT_GE(total, 120u);

  // Killed after two batches: nothing swapped, the old key opens everything.
  ::setenv("SIGNET_FAULT_ROTATION_STOP_AFTER", "60", 1);
  auto stopped = run({"keys", "rotate-master", "--data-dir", dir});
  ::unsetenv("SIGNET_FAULT_ROTATION_STOP_AFTER");
  EXPECT_EQ(stopped.exitCode, 75) << stopped.err;
  EXPECT_EQ(keyIn(keyFile).bytes(), oldKey.bytes());
  EXPECT_TRUE(fs::exists(dir + "/master.key.next"));
  EXPECT_EQ(secretsOpeningUnder(store, oldKey, total), total);

  // Run again and killed right after the swap: now either key opens everything.
  ::setenv("SIGNET_FAULT_ROTATION_STOP_BEFORE_PROMOTE", "1", 1);
  stopped = run({"keys", "rotate-master", "--data-dir", dir});
  ::unsetenv("SIGNET_FAULT_ROTATION_STOP_BEFORE_PROMOTE");
  EXPECT_EQ(stopped.exitCode, 75) << stopped.err;
  const auto newKey = keyIn(keyFile);
  EXPECT_NE(newKey.bytes(), oldKey.bytes());
  EXPECT_EQ(keyIn(dir + "/master.key.old").bytes(), oldKey.bytes());
  EXPECT_EQ(secretsOpeningUnder(store, newKey, total), total);
  EXPECT_EQ(secretsOpeningUnder(store, oldKey, total), total);

  // Once more, to the end: the new key opens everything and the old one nothing.
  auto finished = run({"keys", "rotate-master", "--data-dir", dir});
  ASSERT_EQ(finished.exitCode, 0) << finished.err;
  EXPECT_EQ(json::parseObject(finished.out, "report")->getValue<size_t>("rotated"), total);
  EXPECT_EQ(secretsOpeningUnder(store, newKey, total), total);
  EXPECT_EQ(secretsOpeningUnder(store, oldKey, total), 0u);
  EXPECT_EQ(keyIn(keyFile).bytes(), newKey.bytes());

  // The gateway starts on it; a rotation under a serving gateway, or with the old key file
  // still beside the new one, is refused.
  {
    ServeProcess server(dir);
    auto busy = run({"keys", "rotate-master", "--data-dir", dir});
    EXPECT_NE(busy.exitCode, 0);
    EXPECT_NE(busy.err.find("is serving"), std::string::npos) << busy.err;
    EXPECT_EQ(server.stop(), 0);
  }
  auto again = run({"keys", "rotate-master", "--data-dir", dir});
  EXPECT_NE(again.exitCode, 0);
  EXPECT_NE(again.err.find("master.key.old"), std::string::npos) << again.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
