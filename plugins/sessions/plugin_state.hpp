// What the sessions plugin's handlers share: its parsed settings and its delivery.
#pragma once

#include "delivery.hpp"
#include "oauth2_exchanges.hpp"
#include "oidc_keys.hpp"
#include "settings.hpp"

namespace sessions {

struct PluginState {
  explicit PluginState(Settings s)
      : settings(std::move(s)), delivery(settings), oidcKeys(settings.oidc) {}
  Settings settings;
  Delivery delivery;
  mutable OidcKeyCache oidcKeys;  // a cache: filled by const handlers
  mutable OAuth2Exchanges oauth2Exchanges;
};

}  // namespace sessions
