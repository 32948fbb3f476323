// The sessions plugin's tables, and what it removes with an organization.
#pragma once

#include <vector>

#include "otp_codes.hpp"
#include "signet/plugin.hpp"

namespace sessions {

std::vector<signet::Migration> migrations();
void deleteOrganization(signet::ActivityContext& ctx, const std::string& organizationId,
                        bool deleteWithoutExport);

}  // namespace sessions
