// The gateway's sponsor keys: one per chain family (eip155, solana), made by the operator with
// `signet signing create-sponsor --family eip155|solana` and kept in the keyring; the operator
// funds the address it prints. A sponsored send is paid from it.
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace signing::broadcast {

struct Sponsor {
  std::string address;  // 0x… (EIP-55) or base58
  signet::crypto::SecretBytes key;
};

std::optional<std::string> sponsorAddress(signet::Db& db, const std::string& family);
// Opened for one send.
std::optional<Sponsor> openSponsor(signet::RequestContext& ctx, const std::string& family);

signet::CommandSpec createSponsorCommand();

}  // namespace signing::broadcast
