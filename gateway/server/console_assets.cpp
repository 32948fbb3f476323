#include "server/console_assets.hpp"

#include "server/router.hpp"
#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet {

const char* const kConsoleContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

namespace {

std::string contentTypeOf(const std::string& name) {
  auto endsWith = [&](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (endsWith(".html")) return "text/html; charset=utf-8";
  if (endsWith(".js")) return "text/javascript; charset=utf-8";
  if (endsWith(".css")) return "text/css; charset=utf-8";
  if (endsWith(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

// A strong validator per file, made once: the files cannot change while the binary runs.
const std::string& etagOf(const std::string& name) {
  static const std::map<std::string, std::string> etags = [] {
    std::map<std::string, std::string> out;
    for (const auto& [n, bytes] : consoleFiles()) {
      auto digest = crypto::sha256(bytes);
      out[n] = "\"" + toHex(Bytes(digest.begin(), digest.begin() + 12)) + "\"";
    }
    return out;
  }();
  return etags.at(name);
}

}  // namespace

std::optional<HttpResult> consoleAsset(const std::string& path, const std::string& ifNoneMatch) {
  HttpResult r;
  r.ownCors = true;          // the console is served to its own origin; no other may read it
  if (path == "/console") {  // relative asset paths resolve against the directory
    r.status = 308;
    r.contentType = "text/plain; charset=utf-8";
    r.headers.emplace_back("Location", "/console/");
    return r;
  }
  std::string name = path.substr(std::string("/console/").size());
  if (name.empty()) name = "index.html";
  auto it = consoleFiles().find(name);
  if (it == consoleFiles().end()) return std::nullopt;
  const std::string& etag = etagOf(it->first);
  r.headers.emplace_back("Content-Security-Policy", kConsoleContentSecurityPolicy);
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Cache-Control", "no-cache");  // revalidated by ETag on every load
  r.headers.emplace_back("ETag", etag);
  r.contentType = contentTypeOf(name);
  if (ifNoneMatch == etag) {
    r.status = 304;
    return r;
  }
  r.status = 200;
  r.body.assign(it->second);
  return r;
}

}  // namespace signet
