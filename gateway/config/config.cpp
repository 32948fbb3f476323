#include "config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "signet/error.hpp"
#include "signet/json.hpp"
#include "signet/public_issuers.hpp"

namespace signet {

namespace {
std::filesystem::path resolve(const std::filesystem::path& base, const std::string& p) {
  std::filesystem::path path(p);
  return path.is_absolute() ? path : base / path;
}

}  // namespace

std::filesystem::path Config::defaultPluginDir() {
  if (const char* env = std::getenv("SIGNET_PLUGIN_DIR"); env && *env) return env;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "plugins";
  buf[n] = '\0';
  auto binDir = std::filesystem::path(buf).parent_path();
  // Build tree: plugins beside the binary. Installed: <prefix>/lib/signet/plugins.
  if (std::filesystem::is_directory(binDir / "plugins")) return binDir / "plugins";
  return binDir.parent_path() / "lib" / "signet" / "plugins";
}

bool isSha256Pin(const std::string& pin) {
  static const std::string prefix = "sha256:";
  if (pin.size() != prefix.size() + 64 || pin.compare(0, prefix.size(), prefix) != 0) return false;
  for (size_t i = prefix.size(); i < pin.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(pin[i])) && (pin[i] < 'a' || pin[i] > 'f'))
      return false;
  return true;
}

std::string Config::defaultFileText(const std::vector<std::string>& enabledPlugins) {
  std::string enabled;
  for (const auto& name : enabledPlugins)
    enabled += (enabled.empty() ? "" : ", ") + json::stringify(name);
  // The OpenID issuers whose keys the sessions plugin may fetch, written out so that the
  // operator sees them and can edit them (docs/oauth.md, "Which issuers are trusted").
  std::string settings;
  if (std::find(enabledPlugins.begin(), enabledPlugins.end(), "sessions") != enabledPlugins.end())
    settings = R"(,
    "settings": { "sessions": { "oidc": { "trustedIssuers": )" +
               json::stringify(json::stringArray(publicOidcIssuers())) + " } } }";
  return R"({
  "listen": "127.0.0.1:8080",
  "database": { "driver": "sqlite", "path": "signet.db" },
  "masterKeyFile": "master.key",
  "plugins": { "enabled": [)" +
         enabled + "]" + settings + R"( },
  "limits": {
    "maxBodyBytes": 1048576, "maxHeaderBytes": 8000, "threads": 0, "threadsRunning": 0,
    "maxConnectionsPerAddress": 256, "headerTimeoutMs": 10000, "bodyTimeoutMs": 30000,
    "idleTimeoutMs": 5000, "maxActivityBytes": 524288,
    "rateLimit": { "perIpPerSecond": 200, "perOrganizationPerSecond": 50,
                   "perAuthProxyPerSecond": 50, "burst": 600 },
    "egress": { "maxConcurrent": 8, "maxPerDestination": 4 }
  },
  "cors": { "allowOrigin": "*" },
  "webauthn": { "rpIds": [] }
}
)";
}

Config Config::load(const std::filesystem::path& dataDir, const std::filesystem::path& fileArg) {
  Config c;
  c.dataDir = dataDir;
  std::filesystem::path file = fileArg.empty() ? dataDir / "signet.json" : fileArg;
  std::ifstream in(file);
  if (!in)
    throw failedPrecondition("cannot read config file " + file.string() +
                             " (run `signet init --data-dir " + dataDir.string() + "` first)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string where = file.string();
  try {
    auto root = json::parseObject(text, where);
    if (auto v = json::optionalString(root, "listen", "")) c.listen = *v;

    c.database.backend = Backend::kSqlite;
    c.database.connection = (dataDir / "signet.db").string();
    if (auto db = json::optionalObject(root, "database", "")) {
      std::string driver = json::optionalString(db, "driver", "database").value_or("sqlite");
      if (driver == "sqlite") {
        c.database.connection =
            resolve(dataDir, json::optionalString(db, "path", "database").value_or("signet.db"))
                .string();
      } else if (driver == "postgresql") {
        c.database.backend = Backend::kPostgres;
        c.database.connection = json::requireString(db, "connection", "database");
        if (db->has("writeLanes") && !db->get("writeLanes").isEmpty()) {
          auto v = db->get("writeLanes");
          if (!v.isInteger() || v.convert<int64_t>() < 1 || v.convert<int64_t>() > 16)
            throw invalidArgument("invalid field database.writeLanes: expected 1 to 16, not " +
                                  v.convert<std::string>());
          c.database.writeLanes = v.convert<int>();
        }
      } else {
        throw invalidArgument("invalid field database.driver: \"" + driver +
                              "\" (expected \"sqlite\" or \"postgresql\")");
      }
    }
    c.masterKeyFile =
        resolve(dataDir, json::optionalString(root, "masterKeyFile", "").value_or("master.key"));
    if (auto hsm = json::optionalObject(root, "masterKeyPkcs11", "")) {
      Pkcs11Settings s;
      s.module = json::requireString(hsm, "module", "masterKeyPkcs11");
      s.token = json::requireString(hsm, "token", "masterKeyPkcs11");
      s.key = json::optionalString(hsm, "key", "masterKeyPkcs11").value_or("signet-master-key");
      s.pinEnv = json::optionalString(hsm, "pinEnv", "masterKeyPkcs11").value_or(s.pinEnv);
      if (s.token.empty() || s.key.empty() || s.module.empty())
        throw invalidArgument(
            "invalid field masterKeyPkcs11: module, token and key must not be empty");
      c.masterKeyPkcs11 = s;
    }
    c.pluginDir = defaultPluginDir();
    if (auto p = json::optionalObject(root, "plugins", "")) {
      if (auto d = json::optionalString(p, "directory", "plugins"))
        c.pluginDir = resolve(dataDir, *d);
      c.enabledPlugins = json::optionalStringArray(p, "enabled", "plugins");
      if (auto settings = json::optionalObject(p, "settings", "plugins"))
        for (const auto& name : settings->getNames())
          c.pluginSettings[name] = json::requireObject(settings, name, "plugins.settings");
      if (auto pins = json::optionalObject(p, "pins", "plugins"))
        for (const auto& name : pins->getNames()) {
          std::string pin = json::requireString(pins, name, "plugins.pins");
          if (!isSha256Pin(pin))
            throw invalidArgument("invalid field plugins.pins." + name + ": \"" + pin +
                                  "\" is not sha256:<64 lower-case hex digits>");
          c.pluginPins[name] = pin;
        }
    }
    if (auto l = json::optionalObject(root, "limits", "")) {
      auto positive = [&](const char* key, auto& target) {
        if (!l->has(key) || l->get(key).isEmpty()) return;
        auto v = l->get(key);
        if (!v.isInteger() || v.convert<int64_t>() <= 0)
          throw invalidArgument(std::string("invalid field limits.") + key +
                                ": expected a positive integer");
        target = static_cast<std::remove_reference_t<decltype(target)>>(v.convert<int64_t>());
      };
      positive("maxBodyBytes", c.maxBodyBytes);
      positive("maxHeaderBytes", c.maxHeaderBytes);
      if (l->has("threads") && !l->get("threads").isEmpty()) {
        auto v = l->get("threads");
        if (!v.isInteger() || v.convert<int64_t>() < 0 || v.convert<int64_t>() > 1024)
          throw invalidArgument(
              "invalid field limits.threads: expected 0 (sized for the machine) to 1024");
        c.threads = v.convert<int>();
      }
      if (l->has("threadsRunning") && !l->get("threadsRunning").isEmpty()) {
        auto v = l->get("threadsRunning");
        if (!v.isInteger() || v.convert<int64_t>() < 0 || v.convert<int64_t>() > 1024)
          throw invalidArgument(
              "invalid field limits.threadsRunning: expected 0 (two a core) to "
              "1024, got " +
              Poco::Dynamic::Var::toString(v));
        c.threadsRunning = v.convert<int>();
      }
      positive("maxConnections", c.server.maxConnections);
      positive("maxConnectionsPerAddress", c.server.maxConnectionsPerAddress);
      positive("maxHeadBytes", c.server.maxHeadBytes);
      positive("maxQueuedRequests", c.server.maxQueuedRequests);
      positive("maxActivityBytes", c.server.maxActivityBytes);
      positive("headerTimeoutMs", c.server.headerTimeoutMs);
      positive("bodyTimeoutMs", c.server.bodyTimeoutMs);
      positive("idleTimeoutMs", c.server.idleTimeoutMs);
      auto e = json::optionalObject(l, "egress", "limits");
      bool concurrencyGiven = e && e->has("maxConcurrent");
      if (e) {
        c.server.egress.maxConcurrent = json::optionalIntInRange(
            e, "maxConcurrent", "limits.egress", c.server.egress.maxConcurrent, 1, 1023);
        c.server.egress.maxPerDestination = json::optionalIntInRange(
            e, "maxPerDestination", "limits.egress", c.server.egress.maxPerDestination, 1, 1023);
      }
      // Requests waiting on outbound calls must leave threads to the others: the default
      // follows a small limits.threads down; a value given must stay below it.
      if (c.threads > 0 && !concurrencyGiven)
        c.server.egress.maxConcurrent =
            std::min(c.server.egress.maxConcurrent, std::max(1, c.threads / 2));
      else if (c.threads > 1 && c.server.egress.maxConcurrent >= c.threads)
        throw invalidArgument("invalid field limits.egress.maxConcurrent: " +
                              std::to_string(c.server.egress.maxConcurrent) +
                              " must be below limits.threads (" + std::to_string(c.threads) +
                              "), so that requests without outbound calls find a thread");
      if (auto r = json::optionalObject(l, "rateLimit", "limits")) {
        auto rate = [&](const char* key, double& target) {
          if (!r->has(key) || r->get(key).isEmpty()) return;
          auto v = r->get(key);
          if (!v.isNumeric() || v.convert<double>() < 0)
            throw invalidArgument(std::string("invalid field limits.rateLimit.") + key +
                                  ": expected a number of requests a second, 0 or more (0 "
                                  "turns the limit off), got " +
                                  json::stringify(v));
          target = v.convert<double>();
        };
        rate("perIpPerSecond", c.server.rateLimit.perIpPerSecond);
        rate("perOrganizationPerSecond", c.server.rateLimit.perOrganizationPerSecond);
        rate("perAuthProxyPerSecond", c.server.rateLimit.perAuthProxyPerSecond);
        rate("burst", c.server.rateLimit.burst);
      }
    }
    if (auto server = json::optionalObject(root, "server", "")) {
      auto proxies = json::optionalStringArray(server, "trustedProxies", "server");
      for (size_t i = 0; i < proxies.size(); ++i) {
        auto cidr = parseCidr(proxies[i]);
        if (!cidr)
          throw invalidArgument("invalid field server.trustedProxies[" + std::to_string(i) +
                                "]: \"" + proxies[i] +
                                "\" is not a CIDR: an IPv4 or IPv6 network such as 10.0.0.0/8 "
                                "or fd00::/8, its host bits clear");
        c.server.trustedProxies.push_back(*cidr);
      }
    }
    if (auto cors = json::optionalObject(root, "cors", ""))
      c.corsAllowOrigin = json::optionalString(cors, "allowOrigin", "cors").value_or("*");
    if (auto w = json::optionalObject(root, "webauthn", ""))
      c.webauthnRpIds = json::optionalStringArray(w, "rpIds", "webauthn");
    if (auto m = json::optionalObject(root, "metrics", ""))
      c.metricsListen = json::optionalString(m, "listen", "metrics").value_or("");
    if (auto t = json::optionalObject(root, "tls", "")) {
      c.tlsCertFile = json::optionalString(t, "certFile", "tls").value_or("");
      c.tlsKeyFile = json::optionalString(t, "keyFile", "tls").value_or("");
      if (c.tlsCertFile.empty() != c.tlsKeyFile.empty())
        throw invalidArgument("invalid field tls: give both certFile and keyFile, or neither");
      auto inDataDir = [&](std::string& file) {
        if (!file.empty() && std::filesystem::path(file).is_relative())
          file = (c.dataDir / file).string();
      };
      inDataDir(c.tlsCertFile);
      inDataDir(c.tlsKeyFile);
    }
    if (auto l = json::optionalObject(root, "log", "")) {
      c.logOrigin = json::optionalString(l, "origin", "log").value_or("");
      c.logCheckpointSeconds =
          json::optionalIntInRange(l, "checkpointSeconds", "log", 60, 1, 86400);
      auto witnesses = json::optionalArray(l, "witnesses", "log");
      for (size_t i = 0; witnesses && i < witnesses->size(); ++i) {
        std::string field = "log.witnesses[" + std::to_string(i) + "]";
        auto w = json::objectAt(witnesses, i, field);
        c.logWitnesses.push_back(
            log_witnesses::parseWitness(json::requireString(w, "url", field),
                                        json::requireString(w, "verifierKey", field), field));
      }
    }
    auto publicUrl = json::optionalString(root, "publicUrl", "");
    c.publicUrlConfigured = publicUrl.has_value();
    c.publicUrl = publicUrl.value_or((c.tlsCertFile.empty() ? "http://" : "https://") + c.listen);
    while (!c.publicUrl.empty() && c.publicUrl.back() == '/') c.publicUrl.pop_back();
    if (c.publicUrl.rfind("http://", 0) != 0 && c.publicUrl.rfind("https://", 0) != 0)
      throw invalidArgument("invalid field publicUrl: \"" + c.publicUrl +
                            "\" is not an http:// or https:// URL");
  } catch (const Error& e) {
    throw Error(e.code(), "config " + where + ": " + e.what());
  }
  return c;
}

}  // namespace signet
