// The signing plugin's registration: one row per activity type or query, plus the hooks the
// core calls (wallets for create_sub_organization, the deletion guard, the list_suborgs
// filter by address).
#include "contract_interfaces.hpp"
#include "export_import.hpp"
#include "facts.hpp"
#include "private_key_tags.hpp"
#include "private_keys.hpp"
#include "raw_signing.hpp"
#include "schema.hpp"
#include "sign_transaction.hpp"
#include "spark_transfer.hpp"
#include "wallets.hpp"

namespace {

using namespace signet;
using namespace signing;

SubOrganizationFilter byAddress() {
  return {"WALLET_ACCOUNT_ADDRESS", [](const std::string& address) {
            return std::make_pair(
                std::string("organizations.id IN (SELECT organization_id FROM "
                            "signing_wallet_accounts WHERE address = ?) OR organizations.id IN "
                            "(SELECT organization_id FROM signing_private_key_addresses WHERE "
                            "address = ?)"),
                SqlParams{address, address});
          }};
}

void registerSigning(Registry& r) {
  // clang-format off
  //          type                                    path                      intent key                     result key                     resource       action    root quorum only  handler
  r.activity({"ACTIVITY_TYPE_CREATE_WALLET",          "create_wallet",          "createWalletIntent",          "createWalletResult",          "WALLET",      "CREATE", false, createWallet});
  r.activity({"ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", "createWalletAccountsIntent",  "createWalletAccountsResult",  "WALLET",      "CREATE", false, createWalletAccounts});
  r.activity({"ACTIVITY_TYPE_UPDATE_WALLET",          "update_wallet",          "updateWalletIntent",          "updateWalletResult",          "WALLET",      "UPDATE", false, updateWallet});
  r.activity({"ACTIVITY_TYPE_DELETE_WALLETS",         "delete_wallets",         "deleteWalletsIntent",         "deleteWalletsResult",         "WALLET",      "DELETE", false, deleteWallets});
  r.activity({"ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", "delete_wallet_accounts", "deleteWalletAccountsIntent",  "deleteWalletAccountsResult",  "WALLET",      "DELETE", false, deleteWalletAccounts});
  r.activity({"ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "create_private_keys",    "createPrivateKeysIntentV2",   "createPrivateKeysResultV2",   "PRIVATE_KEY", "CREATE", false, createPrivateKeys});
  r.activity({"ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",    "delete_private_keys",    "deletePrivateKeysIntent",     "deletePrivateKeysResult",     "PRIVATE_KEY", "DELETE", false, deletePrivateKeys});
  r.activity({"ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",  "create_private_key_tag", "createPrivateKeyTagIntent",   "createPrivateKeyTagResult",   "PRIVATE_KEY",    "CREATE", false, createPrivateKeyTag});
  r.activity({"ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",  "update_private_key_tag", "updatePrivateKeyTagIntent",   "updatePrivateKeyTagResult",   "PRIVATE_KEY",    "UPDATE", false, updatePrivateKeyTag});
  r.activity({"ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", "delete_private_key_tags","deletePrivateKeyTagsIntent",  "deletePrivateKeyTagsResult",  "PRIVATE_KEY",    "DELETE", false, deletePrivateKeyTags});
  r.activity({"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",    "sign_raw_payload",       "signRawPayloadIntentV2",      "signRawPayloadResult",        "PRIVATE_KEY", "SIGN",   false, signRawPayload});
  r.activity({"ACTIVITY_TYPE_EXPORT_WALLET",          "export_wallet",          "exportWalletIntent",          "exportWalletResult",          "WALLET",      "EXPORT", false, exportWallet});
  r.activity({"ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",  "export_wallet_account",  "exportWalletAccountIntent",   "exportWalletAccountResult",   "WALLET",      "EXPORT", false, exportWalletAccount});
  r.activity({"ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",     "export_private_key",     "exportPrivateKeyIntent",      "exportPrivateKeyResult",      "PRIVATE_KEY", "EXPORT", false, exportPrivateKey});
  r.activity({"ACTIVITY_TYPE_INIT_IMPORT_WALLET",     "init_import_wallet",     "initImportWalletIntent",      "initImportWalletResult",      "WALLET",      "IMPORT", false, initImportWallet});
  r.activity({"ACTIVITY_TYPE_IMPORT_WALLET",          "import_wallet",          "importWalletIntent",          "importWalletResult",          "WALLET",      "IMPORT", false, importWallet});
  r.activity({"ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY","init_import_private_key","initImportPrivateKeyIntent",  "initImportPrivateKeyResult",  "PRIVATE_KEY", "IMPORT", false, initImportPrivateKey});
  r.activity({"ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",     "import_private_key",     "importPrivateKeyIntent",      "importPrivateKeyResult",      "PRIVATE_KEY", "IMPORT", false, importPrivateKey});
  r.activity({"ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",      "sign_raw_payloads",      "signRawPayloadsIntent",       "signRawPayloadsResult",       "PRIVATE_KEY", "SIGN",   false, signRawPayloads});
  r.activity({"ACTIVITY_TYPE_SIGN_TRANSACTION_V2",    "sign_transaction",       "signTransactionIntentV2",     "signTransactionResult",       "PRIVATE_KEY", "SIGN",   false, signTransaction});
  r.activity({"ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", "spark_prepare_transfer", "sparkPrepareTransferIntent",  "sparkPrepareTransferResult",  "PRIVATE_KEY", "SIGN",   false, sparkPrepareTransfer});
  r.activity({"ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", "create_smart_contract_interface", "createSmartContractInterfaceIntent", "createSmartContractInterfaceResult", "SMART_CONTRACT_INTERFACE", "CREATE", false, createSmartContractInterface});
  r.activity({"ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE", "delete_smart_contract_interface", "deleteSmartContractInterfaceIntent", "deleteSmartContractInterfaceResult", "SMART_CONTRACT_INTERFACE", "DELETE", false, deleteSmartContractInterface});

  r.query({"get_wallet",           getWallet});
  r.query({"list_wallets",         listWallets});
  r.query({"get_wallet_account",   getWalletAccount});
  r.query({"list_wallet_accounts", listWalletAccounts});
  r.query({"get_private_key",      getPrivateKey});
  r.query({"list_private_keys",    listPrivateKeys});
  r.query({"list_private_key_tags", listPrivateKeyTags});
  r.query({"get_smart_contract_interface",   getSmartContractInterface});
  r.query({"list_smart_contract_interfaces", listSmartContractInterfaces});
  // clang-format on
  r.migrations("signing", migrations());
  r.walletCreator(createWalletIn);
  r.organizationDeletionHook(deleteOrganizationKeys);
  r.subOrganizationFilter(byAddress());
  r.factProvider({"wallet", "wallets", "wallet_account", "private_key", "eth", "solana", "tron",
                  "bitcoin", "tempo"},
                 signingFacts);
}

}  // namespace

// What the gateway reads from the file before loading it (signet/plugin_descriptor.hpp). The host
// refuses the plugin if these paths differ from what registerSigning registers.
SIGNET_PLUGIN(
    registerSigning,
    {.name = "signing",
     .version = "0.1.0",
     .description = "wallets, private keys, raw and transaction signing, contract interfaces",
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
                     "sign_raw_payloads",
                     "sign_transaction",
                     "spark_prepare_transfer",
                     "create_smart_contract_interface",
                     "delete_smart_contract_interface"},
     .queryPaths = {"get_wallet", "list_wallets", "get_wallet_account", "list_wallet_accounts",
                    "get_private_key", "list_private_keys", "list_private_key_tags",
                    "get_smart_contract_interface", "list_smart_contract_interfaces"}})
