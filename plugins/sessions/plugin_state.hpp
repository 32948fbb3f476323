// What the sessions plugin's handlers share: its parsed settings and its delivery.
#pragma once

#include "delivery.hpp"
#include "settings.hpp"

namespace sessions {

struct PluginState {
  explicit PluginState(Settings s) : settings(std::move(s)), delivery(settings) {}
  Settings settings;
  Delivery delivery;
};

}  // namespace sessions
