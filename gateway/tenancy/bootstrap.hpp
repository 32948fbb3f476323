// Creating a root organization from the CLI: one root user holding one API key, root quorum
// of that user with threshold 1. The only way an organization comes to exist without an
// activity, so it lives apart from the API handlers.
#pragma once

#include "signet/db.hpp"

namespace signet {

struct BootstrapResult {
  std::string organizationId;
  std::string userId;
  std::string apiKeyId;
};

BootstrapResult createRootOrganization(Db& db, const std::string& organizationName,
                                       const std::string& userName, const std::string& publicKeyHex,
                                       const std::string& curveName, int64_t nowMs);

}  // namespace signet
