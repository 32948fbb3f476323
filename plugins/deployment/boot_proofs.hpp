// get_boot_proof and get_latest_boot_proof: in the hosted service, the attestation document of
// the enclave that runs an app, which clients check before trusting its keys. No attested
// enclave backs a Signet gateway, so there is no boot proof to give, and none is made up: both
// answer UNIMPLEMENTED (HTTP 501) saying so, after checking the request as the API describes it.
#pragma once

#include "signet/plugin.hpp"

namespace deployment {

signet::json::Object getBootProof(signet::RequestContext& ctx, const signet::json::Object& body);
signet::json::Object getLatestBootProof(signet::RequestContext& ctx,
                                        const signet::json::Object& body);

}  // namespace deployment
