// Tests that stage a race on PostgreSQL hold a row from a session of their own and let the
// gateway run into it; these say when it has.
#pragma once

#include <chrono>
#include <cstdint>

#include "store/database.hpp"

namespace signet::test {

// Waits, for at most `within`, until `sessions` sessions of its database wait for another
// transaction (a row lock, an uncommitted key, or a table it holds locked). False if they never
// do.
bool sessionsWaitForLocks(const DatabaseConfig& config, int64_t sessions = 1,
                          std::chrono::milliseconds within = std::chrono::seconds(10));

}  // namespace signet::test
