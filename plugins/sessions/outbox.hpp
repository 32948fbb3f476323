// Development-mode delivery: each message is a file in the outbox folder, named
// <epoch ms>-<uuid>.<extension>, readable only by the gateway's user.
#pragma once

#include <string>

namespace sessions {

// Returns the file's path. Throws signet::Error (Unavailable) when it cannot be written.
std::string writeToOutbox(const std::string& dir, const std::string& extension,
                          const std::string& content);

}  // namespace sessions
