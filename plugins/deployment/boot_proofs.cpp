#include "boot_proofs.hpp"

#include "signet/encoding.hpp"

namespace deployment {

using namespace signet;

namespace {
Error noEnclave(const std::string& what) {
  return Error(Code::kUnimplemented,
               "no boot proof for " + what +
                   ": this gateway does not run in an attested enclave, so it has no "
                   "attestation document to prove what it booted. Trust in a self-hosted "
                   "gateway rests on the machine that runs it. App proofs of activities "
                   "(list_app_proofs) are signed by the gateway's ephemeral key.");
}
}  // namespace

json::Object getBootProof(RequestContext&, const json::Object& body) {
  std::string key = json::requireString(body, "ephemeralKey", "");
  if (!fromHex(key) || key.empty())
    throw invalidArgument("invalid field ephemeralKey: \"" + key + "\" is not hex");
  throw noEnclave("ephemeral key " + key);
}

json::Object getLatestBootProof(RequestContext&, const json::Object& body) {
  std::string app = json::requireString(body, "appName", "");
  if (app.empty()) throw invalidArgument("invalid field appName: must not be empty");
  throw noEnclave("app " + app);
}

}  // namespace deployment
