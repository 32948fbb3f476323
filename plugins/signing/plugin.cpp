// The signing plugin's registration: one row per activity type or query, plus the hooks the
// core calls (wallets for create_sub_organization, the deletion guard, the list_suborgs
// filter by address).
#include "broadcast/broadcast.hpp"
#include "chains/spark/spark_claim_transfer.hpp"
#include "chains/spark/spark_prepare_lightning_receive.hpp"
#include "chains/spark/spark_prepare_transfer.hpp"
#include "chains/spark/spark_sign_frost.hpp"
#include "facts.hpp"
#include "keys/export_import.hpp"
#include "keys/private_key_tags.hpp"
#include "keys/private_keys.hpp"
#include "keys/secrets.hpp"
#include "keys/wallets.hpp"
#include "schema.hpp"
#include "sign_raw_payload.hpp"
#include "sign_transaction.hpp"
#include "smart_contract_interfaces.hpp"

namespace {

using namespace signet;
using namespace signing;

SubOrganizationFilter byAddress() {
  return {"WALLET_ACCOUNT_ADDRESS", [](const std::string& address) {
            return std::make_pair(
                // One IN over a UNION, not two joined by OR, which PostgreSQL would answer
                // by reading every organization.
                std::string("organizations.id IN (SELECT organization_id FROM "
                            "signing_wallet_accounts WHERE address = ? UNION SELECT "
                            "organization_id FROM signing_private_key_addresses WHERE "
                            "address = ?)"),
                SqlParams{address, address});
          }};
}

void registerSigning(Registry& r) {
  r.activity({.type = "ACTIVITY_TYPE_CREATE_WALLET",
              .path = "create_wallet",
              .intentKey = "createWalletIntent",
              .resultKey = "createWalletResult",
              .resource = "WALLET",
              .action = "CREATE",
              .handler = walletShape().handler(createWallet),
              .parameters = walletShape().specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
              .path = "create_wallet_accounts",
              .intentKey = "createWalletAccountsIntent",
              .resultKey = "createWalletAccountsResult",
              .resource = "WALLET",
              .action = "CREATE",
              .handler = kCreateWalletAccounts.handler(createWalletAccounts),
              .parameters = kCreateWalletAccounts.specs(),
              .facts = walletFacts});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_WALLET",
              .path = "update_wallet",
              .intentKey = "updateWalletIntent",
              .resultKey = "updateWalletResult",
              .resource = "WALLET",
              .action = "UPDATE",
              .handler = kUpdateWallet.handler(updateWallet),
              .parameters = kUpdateWallet.specs(),
              .facts = walletFacts});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_WALLETS",
              .path = "delete_wallets",
              .intentKey = "deleteWalletsIntent",
              .resultKey = "deleteWalletsResult",
              .resource = "WALLET",
              .action = "DELETE",
              .handler = kDeleteWallets.handler(deleteWallets),
              .parameters = kDeleteWallets.specs(),
              .facts = walletsFacts});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
              .path = "delete_wallet_accounts",
              .intentKey = "deleteWalletAccountsIntent",
              .resultKey = "deleteWalletAccountsResult",
              .resource = "WALLET",
              .action = "DELETE",
              .handler = kDeleteWalletAccounts.handler(deleteWalletAccounts),
              .parameters = kDeleteWalletAccounts.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
              .path = "create_private_keys",
              .intentKey = "createPrivateKeysIntentV2",
              .resultKey = "createPrivateKeysResultV2",
              .resource = "PRIVATE_KEY",
              .action = "CREATE",
              .handler = kCreatePrivateKeys.handler(createPrivateKeys),
              .parameters = kCreatePrivateKeys.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
              .path = "delete_private_keys",
              .intentKey = "deletePrivateKeysIntent",
              .resultKey = "deletePrivateKeysResult",
              .resource = "PRIVATE_KEY",
              .action = "DELETE",
              .handler = kDeletePrivateKeys.handler(deletePrivateKeys),
              .parameters = kDeletePrivateKeys.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
              .path = "create_private_key_tag",
              .intentKey = "createPrivateKeyTagIntent",
              .resultKey = "createPrivateKeyTagResult",
              .resource = "PRIVATE_KEY",
              .action = "CREATE",
              .handler = kCreatePrivateKeyTag.handler(createPrivateKeyTag),
              .parameters = kCreatePrivateKeyTag.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
              .path = "update_private_key_tag",
              .intentKey = "updatePrivateKeyTagIntent",
              .resultKey = "updatePrivateKeyTagResult",
              .resource = "PRIVATE_KEY",
              .action = "UPDATE",
              .handler = kUpdatePrivateKeyTag.handler(updatePrivateKeyTag),
              .parameters = kUpdatePrivateKeyTag.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
              .path = "delete_private_key_tags",
              .intentKey = "deletePrivateKeyTagsIntent",
              .resultKey = "deletePrivateKeyTagsResult",
              .resource = "PRIVATE_KEY",
              .action = "DELETE",
              .handler = kDeletePrivateKeyTags.handler(deletePrivateKeyTags),
              .parameters = kDeletePrivateKeyTags.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
              .path = "sign_raw_payload",
              .intentKey = "signRawPayloadIntentV2",
              .resultKey = "signRawPayloadResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSignRawPayload.handler(signRawPayload),
              .parameters = kSignRawPayload.specs(),
              .facts = rawSigningFacts,
              .readOnly = true,
              .readAhead = readSignWithAhead});
  r.activity({.type = "ACTIVITY_TYPE_EXPORT_WALLET",
              .path = "export_wallet",
              .intentKey = "exportWalletIntent",
              .resultKey = "exportWalletResult",
              .resource = "WALLET",
              .action = "EXPORT",
              .handler = kExportWallet.handler(exportWallet),
              .parameters = kExportWallet.specs(),
              .facts = walletFacts});
  r.activity({.type = "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
              .path = "export_wallet_account",
              .intentKey = "exportWalletAccountIntent",
              .resultKey = "exportWalletAccountResult",
              .resource = "WALLET",
              .action = "EXPORT",
              .handler = kExportWalletAccount.handler(exportWalletAccount),
              .parameters = kExportWalletAccount.specs(),
              .facts = walletAccountFacts});
  r.activity({.type = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
              .path = "export_private_key",
              .intentKey = "exportPrivateKeyIntent",
              .resultKey = "exportPrivateKeyResult",
              .resource = "PRIVATE_KEY",
              .action = "EXPORT",
              .handler = kExportPrivateKey.handler(exportPrivateKey),
              .parameters = kExportPrivateKey.specs(),
              .facts = privateKeyFacts});
  r.activity({.type = "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
              .path = "init_import_secrets",
              .intentKey = "initImportSecretsIntent",
              .resultKey = "initImportSecretsResult",
              .resource = "SECRET",
              .action = "IMPORT",
              .handler = kInitImportSecrets.handler(initImportSecrets),
              .parameters = kInitImportSecrets.specs()});
  r.activity({.type = "ACTIVITY_TYPE_IMPORT_SECRETS",
              .path = "import_secrets",
              .intentKey = "importSecretsIntent",
              .resultKey = "importSecretsResult",
              .resource = "SECRET",
              .action = "IMPORT",
              .handler = kImportSecrets.handler(importSecrets),
              .parameters = kImportSecrets.specs()});
  r.activity({.type = "ACTIVITY_TYPE_EXPORT_SECRETS",
              .path = "export_secrets",
              .intentKey = "exportSecretsIntent",
              .resultKey = "exportSecretsResult",
              .resource = "SECRET",
              .action = "EXPORT",
              .handler = kExportSecrets.handler(exportSecrets),
              .parameters = kExportSecrets.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_SECRETS",
              .path = "delete_secrets",
              .intentKey = "deleteSecretsIntent",
              .resultKey = "deleteSecretsResult",
              .resource = "SECRET",
              .action = "DELETE",
              .handler = kDeleteSecrets.handler(deleteSecrets),
              .parameters = kDeleteSecrets.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
              .path = "init_import_wallet",
              .intentKey = "initImportWalletIntent",
              .resultKey = "initImportWalletResult",
              .resource = "WALLET",
              .action = "IMPORT",
              .handler = kInitImport.handler(initImportWallet),
              .parameters = kInitImport.specs()});
  r.activity({.type = "ACTIVITY_TYPE_IMPORT_WALLET",
              .path = "import_wallet",
              .intentKey = "importWalletIntent",
              .resultKey = "importWalletResult",
              .resource = "WALLET",
              .action = "IMPORT",
              .handler = kImportWallet.handler(importWallet),
              .parameters = kImportWallet.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY",
              .path = "init_import_private_key",
              .intentKey = "initImportPrivateKeyIntent",
              .resultKey = "initImportPrivateKeyResult",
              .resource = "PRIVATE_KEY",
              .action = "IMPORT",
              .handler = kInitImport.handler(initImportPrivateKey),
              .parameters = kInitImport.specs()});
  r.activity({.type = "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",
              .path = "import_private_key",
              .intentKey = "importPrivateKeyIntent",
              .resultKey = "importPrivateKeyResult",
              .resource = "PRIVATE_KEY",
              .action = "IMPORT",
              .handler = kImportPrivateKey.handler(importPrivateKey),
              .parameters = kImportPrivateKey.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
              .path = "sign_raw_payloads",
              .intentKey = "signRawPayloadsIntent",
              .resultKey = "signRawPayloadsResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSignRawPayloads.handler(signRawPayloads),
              .parameters = kSignRawPayloads.specs(),
              .facts = rawSigningFacts,
              .readOnly = true,
              .readAhead = readSignWithAhead});
  r.activity({.type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
              .path = "sign_transaction",
              .intentKey = "signTransactionIntentV2",
              .resultKey = "signTransactionResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSignTransaction.handler(signTransaction),
              .parameters = kSignTransaction.specs(),
              .facts = transactionSigningFacts,
              .readOnly = true,
              .readAhead = readSignWithAhead});
  r.activity({.type = "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
              .path = "spark_prepare_transfer",
              .intentKey = "sparkPrepareTransferIntent",
              .resultKey = "sparkPrepareTransferResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSparkPrepareTransfer.handler(sparkPrepareTransfer),
              .parameters = kSparkPrepareTransfer.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
              .path = "spark_claim_transfer",
              .intentKey = "sparkClaimTransferIntent",
              .resultKey = "sparkClaimTransferResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSparkClaimTransfer.handler(sparkClaimTransfer),
              .parameters = kSparkClaimTransfer.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE",
              .path = "spark_prepare_lightning_receive",
              .intentKey = "sparkPrepareLightningReceiveIntent",
              .resultKey = "sparkPrepareLightningReceiveResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSparkPrepareLightningReceive.handler(sparkPrepareLightningReceive),
              .parameters = kSparkPrepareLightningReceive.specs()});
  // Reads only: a share is derived from the request, and nothing is kept between rounds.
  r.activity({.type = "ACTIVITY_TYPE_SPARK_SIGN_FROST",
              .path = "spark_sign_frost",
              .intentKey = "sparkSignFrostIntent",
              .resultKey = "sparkSignFrostResult",
              .resource = "PRIVATE_KEY",
              .action = "SIGN",
              .handler = kSparkSignFrost.handler(sparkSignFrost),
              .parameters = kSparkSignFrost.specs(),
              .readOnly = true});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
              .path = "create_smart_contract_interface",
              .intentKey = "createSmartContractInterfaceIntent",
              .resultKey = "createSmartContractInterfaceResult",
              .resource = "SMART_CONTRACT_INTERFACE",
              .action = "CREATE",
              .handler = kCreateSmartContractInterface.handler(createSmartContractInterface),
              .parameters = kCreateSmartContractInterface.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
              .path = "delete_smart_contract_interface",
              .intentKey = "deleteSmartContractInterfaceIntent",
              .resultKey = "deleteSmartContractInterfaceResult",
              .resource = "SMART_CONTRACT_INTERFACE",
              .action = "DELETE",
              .handler = kDeleteSmartContractInterface.handler(deleteSmartContractInterface),
              .parameters = kDeleteSmartContractInterface.specs()});

  // clang-format off
  r.query({"get_wallet",           getWallet});
  r.query({"list_wallets",         listWallets});
  r.query({"get_wallet_account",   getWalletAccount});
  r.query({"list_wallet_accounts", listWalletAccounts});
  r.query({"get_private_key",      getPrivateKey});
  r.query({"list_private_keys",    listPrivateKeys});
  r.query({"list_private_key_tags", listPrivateKeyTags});
  r.query({"list_secrets",         listSecrets});
  r.query({"get_smart_contract_interface",   getSmartContractInterface});
  r.query({"list_smart_contract_interfaces", listSmartContractInterfaces});
  // clang-format on
  broadcast::registerBroadcast(
      r, std::make_shared<broadcast::Broadcast>(broadcast::parseSettings(r.settings())));
  r.migrations("signing", migrations());
  r.walletCreator(createWalletIn);
  r.organizationDeletionHook(deleteOrganizationKeys);
  r.subOrganizationFilter(byAddress());
  r.factKeywords({"wallet", "wallets", "wallet_account", "private_key", "eth", "solana", "tron",
                  "bitcoin", "tempo"});
}

}  // namespace

// What the gateway reads from the file before loading it (signet/plugin_descriptor.hpp). The host
// refuses the plugin if these paths differ from what registerSigning registers.
SIGNET_PLUGIN(
    registerSigning,
    {.name = "signing",
     .version = "0.1.0",
     .description = "wallets, private keys, raw and transaction signing, contract interfaces, "
                    "sending transactions with gas sponsorship",
     .submitPaths = {"create_wallet",
                     "create_wallet_accounts",
                     "update_wallet",
                     "delete_wallets",
                     "delete_wallet_accounts",
                     "create_private_keys",
                     "delete_private_keys",
                     "create_private_key_tag",
                     "update_private_key_tag",
                     "delete_private_key_tags",
                     "sign_raw_payload",
                     "export_wallet",
                     "export_wallet_account",
                     "export_private_key",
                     "init_import_wallet",
                     "import_wallet",
                     "init_import_private_key",
                     "import_private_key",
                     "init_import_secrets",
                     "import_secrets",
                     "export_secrets",
                     "delete_secrets",
                     "sign_raw_payloads",
                     "sign_transaction",
                     "spark_prepare_transfer",
                     "spark_claim_transfer",
                     "spark_prepare_lightning_receive",
                     "spark_sign_frost",
                     "create_smart_contract_interface",
                     "delete_smart_contract_interface",
                     "eth_send_transaction",
                     "eth_undelegate_7702",
                     "eth_send_raw_transaction",
                     "sol_send_transaction",
                     "upsert_gas_usage_config"},
     .queryPaths = {"get_wallet", "list_wallets", "get_wallet_account", "list_wallet_accounts",
                    "get_private_key", "list_private_keys", "list_private_key_tags", "list_secrets",
                    "get_smart_contract_interface", "list_smart_contract_interfaces",
                    "get_send_transaction_status", "get_gas_usage", "get_nonces",
                    "list_supported_assets", "get_wallet_address_balances",
                    "list_eth_transaction_history", "list_sol_transaction_history"}})
