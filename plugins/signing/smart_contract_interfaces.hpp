// Smart contract interfaces (Turnkey's smart contract interfaces): an Ethereum ABI or a Solana
// (Anchor) IDL stored per organization for one contract address, so that policies can read a
// transaction's decoded call. One interface per address and type: two would leave open which one
// decodes.
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

inline constexpr size_t kMaxContractInterfaceBytes = 400 * 1024;
inline constexpr size_t kMaxContractInterfacesPerOrganization = 100;

struct CreateSmartContractInterfaceParameters {
  std::string smartContractAddress, smartContractInterface, type, label;
  std::optional<std::string> notes;
};
struct DeleteSmartContractInterfaceParameters {
  std::string smartContractInterfaceId;
};
extern const signet::Shape<CreateSmartContractInterfaceParameters> kCreateSmartContractInterface;
extern const signet::Shape<DeleteSmartContractInterfaceParameters> kDeleteSmartContractInterface;

signet::json::Object createSmartContractInterface(
    signet::ActivityContext& ctx, const CreateSmartContractInterfaceParameters& params);
signet::json::Object deleteSmartContractInterface(
    signet::ActivityContext& ctx, const DeleteSmartContractInterfaceParameters& params);
signet::json::Object getSmartContractInterface(signet::RequestContext& ctx,
                                               const signet::json::Object& body);
signet::json::Object listSmartContractInterfaces(signet::RequestContext& ctx,
                                                 const signet::json::Object& body);

// The stored ABI JSON for an Ethereum contract address (any letter case), if there is one.
std::optional<std::string> ethereumAbiFor(signet::RequestContext& ctx, const std::string& address);
// The IDL stored for a Solana program id (case-sensitive), if any.
std::optional<std::string> solanaIdlFor(signet::RequestContext& ctx, const std::string& programId);

void deleteOrganizationContractInterfaces(signet::Db& db, const std::string& organizationId);

}  // namespace signing
