// The operator console (gateway/console/), served at /console/ from bytes compiled into the
// binary, so a gateway without Node or a file tree beside it still serves it. The console has
// no privileges of its own: the page makes ordinary stamped API calls from the browser. What
// the server adds is headers: a strict Content-Security-Policy (scripts, styles and
// connections from this origin only, no inline script), no framing, no referrer, nosniff.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace signet {

struct HttpResult;

// Every file of the console by its path under gateway/console/ (generated at build time).
const std::map<std::string, std::string_view>& consoleFiles();

// The answer to GET `path` (/console, /console/ or /console/<file>), or nullopt when the path
// names no file. `ifNoneMatch` is the request's If-None-Match: a match is answered 304.
std::optional<HttpResult> consoleAsset(const std::string& path, const std::string& ifNoneMatch);

// The Content-Security-Policy every console answer carries.
extern const char* const kConsoleContentSecurityPolicy;

}  // namespace signet
