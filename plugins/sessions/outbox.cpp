#include "outbox.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace sessions {

std::string writeToOutbox(const std::string& dir, const std::string& extension,
                          const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  fs::path file =
      fs::path(dir) / (std::to_string(ms) + "-" + signet::crypto::uuidV4() + "." + extension);
  // Written under a temporary name and renamed, so a reader never sees half a message.
  fs::path partial = file;
  partial += ".partial";
  {
    std::ofstream out(partial, std::ios::binary);
    out << content;
    if (!out.flush())
      throw signet::Error(signet::Code::kUnavailable,
                          "cannot write the outbox message " + partial.string());
  }
  fs::permissions(partial, fs::perms::owner_read | fs::perms::owner_write, ec);
  fs::rename(partial, file, ec);
  if (ec)
    throw signet::Error(signet::Code::kUnavailable,
                        "cannot write the outbox message " + file.string() + ": " + ec.message());
  return file.string();
}

}  // namespace sessions
