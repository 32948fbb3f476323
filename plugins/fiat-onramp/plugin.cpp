// The fiat on-ramp plugin's registration: credentials for MoonPay and Coinbase, the purchase
// activity that builds a provider's widget URL, the status query, and the worker that follows
// pending purchases.
#include <Poco/Net/SSLManager.h>

#include <memory>

#include "credentials.hpp"
#include "schema.hpp"
#include "transactions.hpp"

namespace {

using namespace signet;
using namespace fiat_onramp;

void registerFiatOnRamp(Registry& r) {
  auto onRamp = std::make_shared<OnRamp>();
  onRamp->settings = parseSettings(r.settings());
  Poco::Net::initializeSSL();  // the providers' https APIs
  if (onRamp->settings.allowInsecureUrls)
    r.startupNotice(
        "allowInsecureUrls is on: on-ramp provider URLs may be plain http (development only; "
        "plugins.settings.fiat-onramp.allowInsecureUrls)");
  // clang-format off
  r.activity({.type = "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL", .path = "create_fiat_on_ramp_credential",
              .intentKey = "createFiatOnRampCredentialIntent", .resultKey = "createFiatOnRampCredentialResult",
              .resource = "ON_RAMP_CREDENTIALS", .action = "CREATE",
              .handler = kCreateCredential.handler(createCredential), .parameters = kCreateCredential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL", .path = "update_fiat_on_ramp_credential",
              .intentKey = "updateFiatOnRampCredentialIntent", .resultKey = "updateFiatOnRampCredentialResult",
              .resource = "ON_RAMP_CREDENTIALS", .action = "UPDATE",
              .handler = kUpdateCredential.handler(updateCredential), .parameters = kUpdateCredential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL", .path = "delete_fiat_on_ramp_credential",
              .intentKey = "deleteFiatOnRampCredentialIntent", .resultKey = "deleteFiatOnRampCredentialResult",
              .resource = "ON_RAMP_CREDENTIALS", .action = "DELETE",
              .handler = kDeleteCredential.handler(deleteCredential),
              .parameters = kDeleteCredential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP", .path = "init_fiat_on_ramp",
              .intentKey = "initFiatOnRampIntent", .resultKey = "initFiatOnRampResult",
              .resource = "FIAT_TRANSACTION", .action = "CREATE",
              .handler = kInitFiatOnRamp.handler([onRamp](ActivityContext& ctx, const PurchaseParameters& p) {
                return onRamp->init(ctx, p); }),
              .parameters = kInitFiatOnRamp.specs(),
              .prepare = [onRamp](RequestContext& ctx, const json::Object& p) {
                onRamp->prepareInit(ctx, kInitFiatOnRamp.read(p)); },
              // Coinbase's carries a session token: whoever holds the URL holds the session.
              .secretResults = {"onRampUrl"}});
  r.query({"list_fiat_on_ramp_credentials", listCredentials});
  r.query({"get_onramp_transaction_status", [onRamp](RequestContext& ctx, const json::Object& b) {
             return onRamp->status(ctx, b); }});
  r.worker({"transaction-status", [onRamp](WorkerContext& w) { onRamp->runWorker(w); }});
  // clang-format on
  r.organizationDeletionHook(forgetOrganization);
  r.migrations("fiat-onramp", migrations());
}

}  // namespace

SIGNET_PLUGIN(registerFiatOnRamp,
              {.name = "fiat-onramp",
               .version = "0.1.0",
               .description = "fiat on-ramp purchases through MoonPay and Coinbase",
               .submitPaths = {"create_fiat_on_ramp_credential", "update_fiat_on_ramp_credential",
                               "delete_fiat_on_ramp_credential", "init_fiat_on_ramp"},
               .queryPaths = {"list_fiat_on_ramp_credentials", "get_onramp_transaction_status"}})
