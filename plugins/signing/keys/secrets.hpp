// Secrets: opaque values (an API token, a password) an organization keeps in the gateway and
// takes back only encrypted to a key of its own, as wallets are imported and exported.
// - init_import_secrets: one import target a secret, each an ephemeral P-256 key sealed in the
//   keyring under its public key, announced in a signed ServerTargetMsg ({targetPublic,
//   organizationId}, signed by the gateway's signer key), which @turnkey/crypto's
//   encryptSecretToBundle verifies before it encrypts to it.
// - import_secrets: each secretPayload ({encappedPublic, ciphertext}, HPKE as the wallet
//   bundles) opens with the target it names, which is then spent; the secret is sealed in the
//   keyring and only its metadata (name, static properties) is in the table. Any bad secret
//   refuses the whole request, naming it, and stores nothing.
// - export_secrets: each secret sealed to the caller's targetPublicKey in a signed ServerSendMsg,
//   which decryptSecretBundle opens.
// - delete_secrets: 1 to 32 of the organization's secrets, all or none, erased from the keyring.
// - list_secrets: the metadata, newest first, paginated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct InitImportSecretsParameters {
  std::string encryptionSuite;
  int64_t numSecrets = 0;
};
struct StaticProperty {
  std::string key, value;
};
struct SecretToImport {
  std::string encryptionSuite, targetPublicKey, secretPayload;
  std::optional<std::string> name;
  std::optional<std::vector<StaticProperty>> staticProperties;
};
struct ImportSecretsParameters {
  std::vector<SecretToImport> secrets;
};
struct SecretToExport {
  std::string encryptionSuite, secretId, targetPublicKey;
};
struct ExportSecretsParameters {
  std::vector<SecretToExport> secrets;
};
struct DeleteSecretsParameters {
  std::vector<std::string> secretIds;
};
extern const signet::Shape<InitImportSecretsParameters> kInitImportSecrets;
extern const signet::Shape<ImportSecretsParameters> kImportSecrets;
extern const signet::Shape<ExportSecretsParameters> kExportSecrets;
extern const signet::Shape<DeleteSecretsParameters> kDeleteSecrets;

signet::json::Object initImportSecrets(signet::ActivityContext& ctx,
                                       const InitImportSecretsParameters& p);
signet::json::Object importSecrets(signet::ActivityContext& ctx, const ImportSecretsParameters& p);
signet::json::Object exportSecrets(signet::ActivityContext& ctx, const ExportSecretsParameters& p);
signet::json::Object deleteSecrets(signet::ActivityContext& ctx, const DeleteSecretsParameters& p);
signet::json::Object listSecrets(signet::RequestContext& ctx, const signet::json::Object& body);
void deleteOrganizationSecrets(signet::ActivityContext& ctx, const std::string& organizationId);

}  // namespace signing
