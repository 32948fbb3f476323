// What keeps a plugin's failure from taking the gateway down: every callable a plugin
// registers is wrapped so that an exception other than signet::Error (a plugin's deliberate
// answer) becomes a PluginFailure naming the plugin and where it failed. The cause is logged,
// not returned, since a plugin's message may say more than a client should read. The wrapper
// also holds the plugin's library, so the library stays loaded while anything it produced is
// alive.
#pragma once

#include <Poco/Logger.h>

#include <functional>
#include <memory>
#include <string>

#include "signet/error.hpp"
#include "signet/metrics.hpp"
#include "store/sql_connection.hpp"

namespace signet {

// An internal error that a plugin caused: the pipeline fails the activity with it, wherever in
// the activity's way the plugin was called (policy facts included).
class PluginFailure : public Error {
 public:
  PluginFailure(const std::string& plugin, const std::string& site)
      : Error(Code::kInternal, "plugin '" + plugin + "' failed in its " + site +
                                   " (the gateway log has the cause)") {}
};

template <class R, class... A>
class Guarded {
 public:
  Guarded(std::shared_ptr<void> library, std::string plugin, std::string site,
          std::function<R(A...)> f)
      : library_(std::move(library)),
        plugin_(std::move(plugin)),
        site_(std::move(site)),
        f_(std::move(f)) {}

  R operator()(A... args) const {
    try {
      return f_(std::forward<A>(args)...);
    } catch (const Error& e) {
      // The plugin's own answer (bad input, a refusal), passed on as a copy made here: the
      // thrown object's vtable may live in the plugin's library, which can be unloaded before
      // a caller far up the stack reads it (a CLI command's gateway goes first).
      throw Error(e.code(), e.what(), e.detailCode());
    } catch (const StoreUnavailable&) {
      // The store's, thrown by the gateway's own code under the plugin's call (a connection
      // lost in a failover): not the plugin's failure, and the request is answered 503.
      throw;
    } catch (const std::exception& e) {
      fail(e.what());
    } catch (...) {
      fail("an exception of unknown type");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& cause) const {
    Poco::Logger::get("signet.plugins")
        .error("plugin '%s' failed in its %s: %s", plugin_, site_, cause);
    Metrics::global().count("signet_plugin_failures_total", {{"plugin", plugin_}, {"site", site_}});
    throw PluginFailure(plugin_, site_);
  }

  // Declared first so that it is destroyed last: the plugin's callable goes before its code.
  std::shared_ptr<void> library_;
  std::string plugin_;
  std::string site_;
  std::function<R(A...)> f_;
};

// `f` wrapped for plugin `plugin` whose code lives in `library`; unchanged for built-in modules
// (no library) and empty callables.
template <class R, class... A>
std::function<R(A...)> guarded(const std::shared_ptr<void>& library, const std::string& plugin,
                               const std::string& site, std::function<R(A...)> f) {
  if (!library || !f) return f;
  return Guarded<R, A...>(library, plugin, site, std::move(f));
}

}  // namespace signet
