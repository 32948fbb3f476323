// The compatibility table (docs/compatibility.md): every operation the official HTTP client
// (@turnkey/http, pinned in package-lock.json) can call, and whether this Signet serves it,
// read from what `signet plugins list` reports of every module's registrations; and a
// well-formed request to each implemented operation (`requests`).
//   node tests/conformance/compatibility.mjs            prints the table
//   node tests/conformance/compatibility.mjs --write    writes docs/compatibility.md
// compatibility.test.mjs checks that the file is current and that the table tells the truth.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  decryptCredentialBundle, encryptOauth2ClientSecret, encryptOnRampSecret, encryptOtpCodeToBundle,
  encryptPrivateKeyToBundle, encryptSecretToBundle, encryptWalletToBundle,
} from "@turnkey/crypto";
import { getSparkFrost } from "@buildonspark/spark-sdk";
import { secp256k1 } from "@noble/curves/secp256k1";
import { PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { serializeTransaction } from "viem";
import { generateKey } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const docPath = join(here, "../../docs/compatibility.md");

// Every path the official client knows, from its generated client.
export function clientPaths() {
  const pkg = join(here, "node_modules/@turnkey/http");
  const client = readFileSync(join(pkg, "dist/__generated__/services/coordinator/public/v1/public_api.client.mjs"), "utf8");
  return [...new Set(client.match(/"\/(public|tkhq)\/[a-z0-9_/]+"/g).map((s) => s.slice(1, -1)))].sort();
}

// path -> the modules that serve it, with every plugin of the build enabled.
export function servedPaths(signet) {
  const dir = mkdtempSync(join(tmpdir(), "signet-compat-"));
  try {
    execFileSync(signet, ["init", "--data-dir", dir], { stdio: "ignore" });
    const out = execFileSync(signet, ["plugins", "list", "--data-dir", dir], { encoding: "utf8" });
    const served = new Map();
    let module = null;
    for (const line of out.split("\n")) {
      const header = /^(\S+) \S+ \((.*)\)/.exec(line);
      if (header) { module = header[2].includes("disabled") ? null : header[1]; continue; }
      const route = /POST (\/public\/v1\/\S+)/.exec(line);
      if (route && module) served.set(route[1], module);
    }
    return served;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Operations a module registers only to refuse them with 501 and the reason, because a
// self-hosted gateway cannot honestly serve them: they are not counted as implemented, and the
// test checks that each answers 501 to a request that is otherwise well formed (`body`).
const noEnclave = "no attested enclave backs a self-hosted gateway";
export const refusedByDesign = new Map([
  ["/public/v1/query/get_boot_proof", { reason: noEnclave, body: { ephemeralKey: "04" } }],
  ["/public/v1/query/get_latest_boot_proof", { reason: noEnclave, body: { appName: "signet" } }],
]);

// Families a self-hosted gateway leaves out on purpose, each with the reason; anything else
// absent is simply not built yet.
export const leftOut = [
  [/_tvc_|tvc_image/, "TVC apps run in the hosted service's attested enclaves, which a self-hosted gateway has none of"],
  [/earn/, "earn is the hosted service's DeFi yield product, not key management"],
  [/swap/, "swaps are priced and routed by the hosted service's DeFi venues"],
];

// The chains the requests send on; the test stands in for their nodes.
export const chains = { eth: "eip155:11155111", sol: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" };

// The P-256 keys the requests register, stamp with, log in with or encrypt to.
const keys = Object.fromEntries(["member", "extra", "sub", "stampLogin", "otpLogin", "oauthLogin", "target"]
  .map((name) => [name, generateKey("p256")]));
const uncompressed = (key) =>
  crypto.createPublicKey(key.privateKey).export({ format: "der", type: "spki" }).subarray(-65).toString("hex");
const keyPairOf = (privateKeyHex) => {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, "hex"));
  return { publicKeyHex: ecdh.getPublicKey("hex", "compressed"), privateKeyHex };
};
// The nonce that binds an OIDC token to a key, as @turnkey/crypto's docs bind it.
const nonceFor = (publicKeyHex) => crypto.createHash("sha256").update(publicKeyHex).digest("hex");
const jwtClaims = (jwt) => JSON.parse(Buffer.from(jwt.split(".")[1], "base64url"));
const mnemonic = "leaf lady until indicate praise final route toast cake minimum insect unknown";
const suite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1";
const account = (path, curve = "CURVE_SECP256K1", addressFormat = "ADDRESS_FORMAT_ETHEREUM") =>
  ({ curve, pathFormat: "PATH_FORMAT_BIP32", path, addressFormat });
const user = (userName, userEmail, key) => ({
  userName, userEmail, authenticators: [], oauthProviders: [],
  apiKeys: [{ apiKeyName: userName, publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
});

// CBOR (RFC 8949) of what an attestation object holds: integers, strings, bytes and maps.
function cbor(v) {
  const head = (major, n) =>
    Buffer.from(n < 24 ? [major << 5 | n] : n < 256 ? [major << 5 | 24, n] : [major << 5 | 25, n >> 8, n & 255]);
  if (typeof v === "number") return v < 0 ? head(1, -1 - v) : head(0, v);
  if (typeof v === "string") return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

// A passkey registration as a browser reports it (attestation "none"): the client data of the
// webauthn.create ceremony, and authenticator data holding a fresh P-256 credential.
function passkey(authenticatorName) {
  const challenge = crypto.randomBytes(32).toString("base64url");
  const credentialId = crypto.randomBytes(16);
  const { publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const { x, y } = publicKey.export({ format: "jwk" });
  const coseKey = new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(x, "base64url")], [-3, Buffer.from(y, "base64url")]]);
  const authData = Buffer.concat([
    crypto.createHash("sha256").update("app.example").digest(),
    Buffer.from([0x45, 0, 0, 0, 0]),  // user present and verified, attested credential data; counter 0
    Buffer.alloc(16), Buffer.from([0, credentialId.length]), credentialId, cbor(coseKey),
  ]);
  const clientData = { type: "webauthn.create", challenge, origin: "https://app.example" };
  const attestationObject = cbor(new Map([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
  return {
    authenticatorName, challenge,
    attestation: {
      credentialId: credentialId.toString("base64url"),
      clientDataJson: Buffer.from(JSON.stringify(clientData)).toString("base64url"),
      attestationObject: attestationObject.toString("base64url"),
      transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
    },
  };
}

// What `pattern` finds in the one message of the outbox that names `appName`.
function mailed(s, appName, pattern) {
  const texts = readdirSync(s.outbox).filter((f) => f.endsWith(".eml"))
    .map((f) => readFileSync(join(s.outbox, f), "utf8")).filter((t) => t.includes(appName));
  if (texts.length !== 1) throw new Error(`${texts.length} messages name ${appName}`);
  const m = pattern.exec(texts[0]);
  if (!m) throw new Error(`no ${pattern} in ${texts[0]}`);
  return m[1];
}

// An unsigned EIP-1559 transfer, and a Solana transfer from `from`.
const burn = "0x000000000000000000000000000000000000dEaD";
const ethTransfer = serializeTransaction({ chainId: Number(chains.eth.split(":")[1]), type: "eip1559", to: burn,
  value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
function solTransfer(from) {
  const tx = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: "11111111111111111111111111111111" });
  tx.add(SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: SystemProgram.programId, lamports: 1 }));
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
}

// A well-formed request to each implemented operation; the test sends them in this order to
// one gateway, so that what a request names an earlier one made. `submit(name, type,
// parameters)` is sent as the official SDKs send it, with `timestampMs` and `organizationId`;
// `query(name, fields)` with `organizationId`. Parameters and fields are values, or functions
// of the state `s`, which starts as { org, userId, outbox, published, hook }: the root
// organization and its root user, the directory the gateway writes email to,
// /.well-known/signet.json, and a webhook receiver's URL. After a submission `s.activityId` and
// `s.fingerprint` are its activity's, and `keep(result, s)` adds to `s` (`result` is the
// activity's result, or the query's answer). Options: `org` and `as` (a key pair) when another
// organization or key sends it, and `expect` when the activity is meant to end other than
// ACTIVITY_STATUS_COMPLETED. Every answer must be 200.
const submit = (name, type, parameters, more = {}) =>
  ({ path: `/public/v1/submit/${name}`, type, parameters, ...more });
const query = (name, fields = {}, more = {}) => ({ path: `/public/v1/query/${name}`, fields, ...more });
const emailOtp = (appName) => ({ otpType: "OTP_TYPE_EMAIL", contact: "member@example.com", appName });
const code = (s, appName) => mailed(s, appName, /code is: ([0-9A-Z]+)/);
const clientSecret = (s) => encryptOauth2ClientSecret("discord-secret", s.published.clientSecretEncryptionPublicKey);
const onRampSecret = (s) => encryptOnRampSecret("sk_test_key", s.published.onRampEncryptionPublicKey);

export const requests = [
  // Users, their credentials and tags.
  query("whoami"),
  submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", {
    users: [{ ...user("member", "member@example.org", keys.member), userTags: [] }],
  }, { keep: (r) => ({ memberId: r.userIds[0] }) }),
  query("list_users"),
  query("get_user", (s) => ({ userId: s.memberId })),
  submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", (s) => ({ userId: s.memberId, userName: "member one" })),
  submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", (s) => ({ userId: s.memberId, userName: "member" })),
  submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    (s) => ({ userId: s.memberId, userEmail: "member@example.com" })),
  submit("update_user_phone_number", "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
    (s) => ({ userId: s.memberId, userPhoneNumber: "+14155550100" })),
  submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", (s) => ({ userTagName: "members", userIds: [s.memberId] }),
    { keep: (r) => ({ userTagId: r.userTagId }) }),
  query("list_user_tags"),
  submit("update_user_tag", "ACTIVITY_TYPE_UPDATE_USER_TAG",
    (s) => ({ userTagId: s.userTagId, newUserTagName: "team", addUserIds: [], removeUserIds: [] })),
  submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", (s) => ({
    userId: s.memberId,
    apiKeys: [{ apiKeyName: "extra", publicKey: keys.extra.publicKeyHex, curveType: "API_KEY_CURVE_P256",
                expirationSeconds: "3600" }],
  }), { keep: (r) => ({ extraKeyId: r.apiKeyIds[0] }) }),
  query("get_api_keys", (s) => ({ userId: s.memberId })),
  query("get_api_key", (s) => ({ apiKeyId: s.extraKeyId })),
  submit("delete_api_keys", "ACTIVITY_TYPE_DELETE_API_KEYS",
    (s) => ({ userId: s.memberId, apiKeyIds: [s.extraKeyId] })),
  submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
    (s) => ({ userId: s.memberId, authenticators: [passkey("laptop")] }),
    { keep: (r) => ({ authenticatorId: r.authenticatorIds[0] }) }),
  query("get_authenticators", (s) => ({ userId: s.memberId })),
  query("get_authenticator", (s) => ({ authenticatorId: s.authenticatorId })),
  submit("delete_authenticators", "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
    (s) => ({ userId: s.memberId, authenticatorIds: [s.authenticatorId] })),
  submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", (s) => ({
    invitations: [{ receiverUserName: "guest", receiverUserEmail: "guest@example.com", receiverUserTags: [],
                    accessType: "ACCESS_TYPE_WEB", senderUserId: s.userId }],
  }), { keep: (r) => ({ invitationId: r.invitationIds[0] }) }),
  submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", (s) => ({ invitationId: s.invitationId })),

  // Policies, and votes on activities of the member's that wait for the root user's approval.
  submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", (s) => ({
    policyName: "the root user approves member tags", effect: "EFFECT_ALLOW", notes: "",
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
    consensus: `approvers.any(user, user.id == '${s.userId}')`,
  }), { keep: (r) => ({ policyId: r.policyId }) }),
  query("get_policy", (s) => ({ policyId: s.policyId })),
  query("list_policies"),
  submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", (s) => ({ policyId: s.policyId, policyNotes: "for tags" })),
  submit("create_policies", "ACTIVITY_TYPE_CREATE_POLICIES", {
    policies: [{ policyName: "no exports", effect: "EFFECT_DENY", notes: "", condition: "activity.action == 'EXPORT'" }],
  }, { keep: (r) => ({ policyIds: r.policyIds }) }),
  submit("delete_policies", "ACTIVITY_TYPE_DELETE_POLICIES", (s) => ({ policyIds: s.policyIds })),
  query("get_policy_evaluations", (s) => ({ activityId: s.activityId })),
  submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: "approved", userIds: [] },
    { as: () => keys.member, expect: "ACTIVITY_STATUS_CONSENSUS_NEEDED" }),
  submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", (s) => ({ fingerprint: s.fingerprint })),
  submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: "rejected", userIds: [] },
    { as: () => keys.member, expect: "ACTIVITY_STATUS_CONSENSUS_NEEDED" }),
  submit("reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", (s) => ({ fingerprint: s.fingerprint }),
    { expect: "ACTIVITY_STATUS_REJECTED" }),
  submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", (s) => ({ policyId: s.policyId })),

  // MFA policies, on activities the member never submits.
  submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", (s) => ({
    userId: s.memberId, mfaPolicyName: "signing", condition: "activity.action == 'SIGN'", order: 0,
    requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY" }] }],
  }), { keep: (r) => ({ mfaPolicyId: r.mfaPolicyId }) }),
  query("get_mfa_policies", (s) => ({ userId: s.memberId })),
  query("get_mfa_policy", (s) => ({ userId: s.memberId, mfaPolicyId: s.mfaPolicyId })),
  submit("update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
    (s) => ({ userId: s.memberId, mfaPolicyId: s.mfaPolicyId, mfaPolicyName: "all signing" })),
  query("get_mfa_status", (s) => ({ activityId: s.activityId })),
  submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY",
    (s) => ({ userId: s.memberId, mfaPolicyId: s.mfaPolicyId })),

  // The organization, and a sub-organization.
  submit("update_organization_name", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", { organizationName: "Compatibility" }),
  ...["FEATURE_NAME_OTP_EMAIL_AUTH", "FEATURE_NAME_EMAIL_AUTH", "FEATURE_NAME_EMAIL_RECOVERY"].map((name) =>
    submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", { name, value: "" })),
  query("get_organization_configs"),
  submit("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
    { enabled: true, rules: [{ cidr: "127.0.0.0/8", label: "loopback" }] }),
  query("get_ip_allowlist"),
  submit("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", {}),
  submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", (s) => ({ threshold: 1, userIds: [s.userId] })),
  submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", {
    subOrganizationName: "sub", rootUsers: [user("sub root", "sub@example.com", keys.sub)], rootQuorumThreshold: 1,
    wallet: { walletName: "sub wallet", accounts: [account("m/44'/60'/0'/0/0")] },
  }, { keep: (r) => ({ subOrg: r.subOrganizationId, subUserId: r.rootUserIds[0] }) }),
  query("list_suborgs"),
  query("list_verified_suborgs"),

  // Wallets, keys, secrets and signatures.
  submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", {
    walletName: "main",
    accounts: [account("m/44'/60'/0'/0/0"), account("m/44'/501'/0'/0'", "CURVE_ED25519", "ADDRESS_FORMAT_SOLANA"),
               account("m/8797555'/0'/0'", "CURVE_SECP256K1", "ADDRESS_FORMAT_SPARK_REGTEST")],
  }, { keep: (r) => ({ walletId: r.walletId, eth: r.addresses[0], sol: r.addresses[1], spark: r.addresses[2] }) }),
  query("list_wallets"),
  query("get_wallet", (s) => ({ walletId: s.walletId })),
  submit("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET", (s) => ({ walletId: s.walletId, walletName: "main wallet" })),
  submit("create_wallet_accounts", "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
    (s) => ({ walletId: s.walletId, accounts: [account("m/44'/60'/0'/0/1")] }),
    { keep: (r) => ({ second: r.addresses[0] }) }),
  query("list_wallet_accounts", (s) => ({ walletId: s.walletId }),
    { keep: (r, s) => ({ secondId: r.accounts.find((a) => a.address === s.second).walletAccountId }) }),
  query("get_wallet_account", (s) => ({ walletId: s.walletId, address: s.eth })),
  submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", (s) => ({
    signWith: s.eth, payload: "68656c6c6f", encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
    hashFunction: "HASH_FUNCTION_KECCAK256",
  })),
  submit("sign_raw_payloads", "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", (s) => ({
    signWith: s.eth, payloads: ["68656c6c6f", "776f726c64"], encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
    hashFunction: "HASH_FUNCTION_KECCAK256",
  })),
  submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    (s) => ({ signWith: s.eth, unsignedTransaction: ethTransfer, type: "TRANSACTION_TYPE_ETHEREUM" }),
    { keep: (r) => ({ signedTransaction: r.signedTransaction }) }),
  submit("spark_prepare_transfer", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", (s) => ({
    signWith: s.spark,
    transfer: {
      transferId: crypto.randomUUID(), threshold: 2, receiverPublicKey: generateKey("secp256k1").publicKeyHex,
      operatorRecipients: [1, 2, 3].map(() =>
        ({ operatorId: crypto.randomUUID(), encryptionPublicKey: generateKey("secp256k1").publicKeyHex })),
      leaves: [crypto.randomUUID()].map((leafId) => ({
        leafId, oldLeafDerivation: { signingLeaf: { leafId } },
        newLeafDerivation: { signingLeaf: { leafId: `${leafId}:new` } },
      })),
    },
  })),
  query("get_wallet_account", (s) => ({ walletId: s.walletId, address: s.spark }),
    { keep: (r) => ({ sparkIdentity: r.account.publicKey }) }),
  submit("spark_claim_transfer", "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER", async (s) => {
    const sender = secp256k1.utils.randomPrivateKey(), leafId = crypto.randomUUID(), transferId = crypto.randomUUID();
    const ciphertext = Buffer.from(await getSparkFrost().encryptEcies(secp256k1.utils.randomPrivateKey(),
      Buffer.from(s.sparkIdentity, "hex")));
    const signed = crypto.createHash("sha256").update(Buffer.concat([Buffer.from(leafId + transferId), ciphertext])).digest();
    return { signWith: s.spark, claim: {
      transferId, threshold: 1, senderIdentityPublicKey: Buffer.from(secp256k1.getPublicKey(sender, true)).toString("hex"),
      operatorRecipients: [{ operatorId: crypto.randomUUID(), encryptionPublicKey: generateKey("secp256k1").publicKeyHex }],
      leaves: [{ leafId, ciphertext: ciphertext.toString("hex"),
                 senderSignature: secp256k1.sign(signed, sender).toCompactHex() }],
    } };
  }),
  submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", (s) => ({
    signWith: s.spark,
    signatures: [{
      derivation: { signingLeaf: { leafId: crypto.randomUUID() } }, message: crypto.randomBytes(32).toString("hex"),
      verifyingKey: generateKey("secp256k1").publicKeyHex,
      operatorCommitments: [{ id: "00".repeat(31) + "01", hiding: generateKey("secp256k1").publicKeyHex,
                              binding: generateKey("secp256k1").publicKeyHex }],
    }],
  })),
  submit("spark_prepare_lightning_receive", "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE", (s) => ({
    signWith: s.spark,
    lightningReceive: { threshold: 2, operatorRecipients: [1, 2, 3].map(() =>
      ({ operatorId: crypto.randomUUID(), encryptionPublicKey: generateKey("secp256k1").publicKeyHex })) },
  })),
  submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", {
    privateKeys: [{ privateKeyName: "key", curve: "CURVE_SECP256K1", privateKeyTags: [],
                    addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  }, { keep: (r) => ({ privateKeyId: r.privateKeys[0].privateKeyId }) }),
  query("list_private_keys"),
  query("get_private_key", (s) => ({ privateKeyId: s.privateKeyId })),
  submit("create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
    (s) => ({ privateKeyTagName: "keys", privateKeyIds: [s.privateKeyId] }),
    { keep: (r) => ({ privateKeyTagId: r.privateKeyTagId }) }),
  query("list_private_key_tags"),
  submit("update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", (s) => ({
    privateKeyTagId: s.privateKeyTagId, newPrivateKeyTagName: "hot keys", addPrivateKeyIds: [], removePrivateKeyIds: [],
  })),
  submit("delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
    (s) => ({ privateKeyTagIds: [s.privateKeyTagId] })),
  submit("export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET",
    (s) => ({ walletId: s.walletId, targetPublicKey: uncompressed(keys.target) })),
  submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
    (s) => ({ address: s.eth, targetPublicKey: uncompressed(keys.target) })),
  submit("export_private_key", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
    (s) => ({ privateKeyId: s.privateKeyId, targetPublicKey: uncompressed(keys.target) })),
  submit("delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", (s) => ({ privateKeyIds: [s.privateKeyId] })),
  submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
    (s) => ({ walletAccountIds: [s.secondId], deleteWithoutExport: true })),
  submit("init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET", (s) => ({ userId: s.userId }),
    { keep: (r) => ({ importBundle: r.importBundle }) }),
  submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", async (s) => ({
    userId: s.userId, walletName: "imported", accounts: [account("m/44'/60'/0'/0/0")],
    encryptedBundle: await encryptWalletToBundle({ mnemonic, importBundle: s.importBundle, userId: s.userId,
      organizationId: s.org, dangerouslyOverrideSignerPublicKey: s.published.signerPublicKey }),
  })),
  submit("init_import_private_key", "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY", (s) => ({ userId: s.userId }),
    { keep: (r) => ({ importBundle: r.importBundle }) }),
  submit("import_private_key", "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", async (s) => ({
    userId: s.userId, privateKeyName: "imported key", curve: "CURVE_SECP256K1",
    addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
    encryptedBundle: await encryptPrivateKeyToBundle({ privateKey: keys.extra.privateKeyHex, keyFormat: "HEXADECIMAL",
      importBundle: s.importBundle, userId: s.userId, organizationId: s.org,
      dangerouslyOverrideSignerPublicKey: s.published.signerPublicKey }),
  })),
  submit("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", { encryptionSuite: suite, numSecrets: 1 },
    { keep: (r) => ({ secretTarget: r.enclaveTargetMessages[0] }) }),
  submit("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", async (s) => ({
    secrets: [{ name: "api token", encryptionSuite: suite, ...await encryptSecretToBundle({
      plaintext: "sk_live_example", ingressTargetBundle: s.secretTarget, organizationId: s.org,
      dangerouslyOverrideSignerPublicKey: s.published.signerPublicKey }) }],
  }), { keep: (r) => ({ secretIds: r.secretIds }) }),
  query("list_secrets"),
  submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", (s) => ({
    secrets: s.secretIds.map((secretId) =>
      ({ secretId, targetPublicKey: keys.target.publicKeyHex, encryptionSuite: suite })),
  })),
  submit("delete_secrets", "ACTIVITY_TYPE_DELETE_SECRETS", (s) => ({ secretIds: s.secretIds })),
  submit("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", {
    smartContractAddress: burn, type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "burn",
    smartContractInterface: JSON.stringify([{ type: "function", name: "burn", stateMutability: "nonpayable",
      inputs: [{ name: "amount", type: "uint256" }], outputs: [] }]),
  }, { keep: (r) => ({ interfaceId: r.smartContractInterfaceId }) }),
  query("get_smart_contract_interface", (s) => ({ smartContractInterfaceId: s.interfaceId })),
  query("list_smart_contract_interfaces"),
  submit("delete_smart_contract_interface", "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
    (s) => ({ smartContractInterfaceId: s.interfaceId })),

  // Chains, through the stand-in nodes of `chains`.
  query("get_nonces", (s) => ({ address: s.eth, caip2: chains.eth, nonce: true })),
  query("get_gas_usage"),
  query("list_supported_assets", { caip2: chains.eth }),
  query("get_wallet_address_balances", (s) => ({ address: s.eth, caip2: chains.eth })),
  query("list_eth_transaction_history", (s) => ({ address: s.eth, caip2: chains.eth })),
  query("list_sol_transaction_history", (s) => ({ address: s.sol, caip2: chains.sol })),
  submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
    (s) => ({ from: s.eth, caip2: chains.eth, calls: [{ to: burn, value: "1" }] }),
    { keep: (r) => ({ sendId: r.sendTransactionStatusId }) }),
  query("get_send_transaction_status", (s) => ({ sendTransactionStatusId: s.sendId })),
  submit("eth_send_raw_transaction", "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
    (s) => ({ signedTransaction: s.signedTransaction, caip2: chains.eth })),
  submit("eth_undelegate_7702", "ACTIVITY_TYPE_ETH_UNDELEGATE_7702", (s) => ({ from: s.eth, caip2: chains.eth })),
  submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
    (s) => ({ unsignedTransaction: solTransfer(s.sol), signWiths: [s.sol], caip2: chains.sol })),

  // Sessions, one-time codes and email auth for the member's email, read from the outbox.
  submit("create_read_only_session", "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", {}),
  submit("create_read_write_session", "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
    (s) => ({ targetPublicKey: uncompressed(keys.target), userId: s.userId, expirationSeconds: "900" })),
  submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN",
    { publicKey: keys.stampLogin.publicKeyHex, expirationSeconds: "900" }),
  submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
    { sessionProfileName: "readers", scope: "activity.action == 'READ'", expirationSeconds: "600" },
    { keep: (r) => ({ sessionProfileId: r.sessionProfileId }) }),
  query("get_session_profile", (s) => ({ sessionProfileId: s.sessionProfileId })),
  query("get_session_profiles"),
  submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", emailOtp("Compat OTP login"),
    { keep: (r) => ({ otpId: r.otpId, otpTarget: r.otpEncryptionTargetBundle }) }),
  submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2", async (s) => ({
    otpId: s.otpId, encryptedOtpBundle: await encryptOtpCodeToBundle(code(s, "Compat OTP login"), s.otpTarget,
      keys.otpLogin.publicKeyHex, s.published.signerPublicKey),
  }), { keep: (r) => ({ verificationToken: r.verificationToken }) }),
  submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", (s) => {
    const { publicKeyHex, privateKey } = keys.otpLogin;
    const message = JSON.stringify({ login: { publicKey: publicKeyHex },
      tokenId: jwtClaims(s.verificationToken).id, type: "USAGE_TYPE_LOGIN" });
    const signature = crypto.sign("sha256", Buffer.from(message), { key: privateKey, dsaEncoding: "ieee-p1363" });
    return {
      verificationToken: s.verificationToken, publicKey: publicKeyHex,
      clientSignature: { publicKey: publicKeyHex, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message,
                         signature: signature.toString("hex") },
    };
  }),
  submit("init_otp_auth", "ACTIVITY_TYPE_INIT_OTP_AUTH_V3", emailOtp("Compat OTP auth"),
    { keep: (r) => ({ otpId: r.otpId }) }),
  submit("otp_auth", "ACTIVITY_TYPE_OTP_AUTH", (s) => ({
    otpId: s.otpId, otpCode: code(s, "Compat OTP auth"), targetPublicKey: uncompressed(keys.target),
  })),
  submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", {
    email: "member@example.com", targetPublicKey: uncompressed(keys.target),
    emailCustomization: { appName: "Compat email auth" },
  }),
  query("list_email_events", { email: "member@example.com" }),
  // Recovery as the hosted service runs it: the parent asks for a sub-organization's root user.
  submit("init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", {
    email: "sub@example.com", targetPublicKey: uncompressed(keys.target),
    emailCustomization: { appName: "Compat recovery" },
  }, { org: (s) => s.subOrg, keep: (r, s) => ({ recoveryKey: keyPairOf(decryptCredentialBundle(
    mailed(s, "Compat recovery", /recovery bundle into the app:\s+(\S+)/), keys.target.privateKeyHex)) }) }),
  submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER",
    (s) => ({ userId: s.subUserId, authenticator: passkey("new laptop") }),
    { org: (s) => s.subOrg, as: (s) => s.recoveryKey }),

  // OAuth: an OAuth 2.0 credential for the stand-in Discord, whose tokens, signed by the
  // gateway's own issuer, then serve the OIDC operations.
  submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", async (s) => ({
    provider: "OAUTH2_PROVIDER_DISCORD", clientId: "discord-client", encryptedClientSecret: await clientSecret(s),
  }), { keep: (r) => ({ oauth2CredentialId: r.oauth2CredentialId }) }),
  query("get_oauth2_credential", (s) => ({ oauth2CredentialId: s.oauth2CredentialId })),
  query("list_oauth2_credentials"),
  submit("update_oauth2_credential", "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL", async (s) => ({
    oauth2CredentialId: s.oauth2CredentialId, provider: "OAUTH2_PROVIDER_DISCORD", clientId: "discord-client",
    encryptedClientSecret: await clientSecret(s),
  })),
  ...[["registration", "signupToken"], [nonceFor(keys.oauthLogin.publicKeyHex), "loginToken"],
      [nonceFor(keys.target.publicKeyHex), "bundleToken"]].map(([nonce, name]) =>
    submit("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", (s) => ({
      oauth2CredentialId: s.oauth2CredentialId, authCode: crypto.randomUUID(),
      redirectUri: "https://app.example/callback", codeVerifier: crypto.randomBytes(32).toString("base64url"), nonce,
    }), { keep: (r) => ({ [name]: r.oidcToken }) })),
  submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
    (s) => ({ userId: s.memberId, oauthProviders: [{ providerName: "Discord", oidcToken: s.signupToken }] }),
    { keep: (r) => ({ providerIds: r.providerIds }) }),
  query("get_oauth_providers", (s) => ({ userId: s.memberId })),
  submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN",
    (s) => ({ oidcToken: s.loginToken, publicKey: keys.oauthLogin.publicKeyHex })),
  submit("oauth", "ACTIVITY_TYPE_OAUTH",
    (s) => ({ oidcToken: s.bundleToken, targetPublicKey: keys.target.publicKeyHex })),
  submit("delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
    (s) => ({ userId: s.memberId, providerIds: s.providerIds })),
  submit("delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
    (s) => ({ oauth2CredentialId: s.oauth2CredentialId })),

  // Fiat on-ramp: a MoonPay credential signs widget URLs without calling MoonPay.
  submit("create_fiat_on_ramp_credential", "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL", (s) => ({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY", publishableApiKey: "pk_test_key", sandboxMode: true,
    encryptedSecretApiKey: onRampSecret(s),
  }), { keep: (r) => ({ onRampCredentialId: r.fiatOnRampCredentialId }) }),
  query("list_fiat_on_ramp_credentials"),
  submit("update_fiat_on_ramp_credential", "ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL", (s) => ({
    fiatOnrampCredentialId: s.onRampCredentialId, onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY",
    publishableApiKey: "pk_test_key", encryptedSecretApiKey: onRampSecret(s),
  })),
  submit("init_fiat_on_ramp", "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP", (s) => ({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY", walletAddress: s.eth,
    network: "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM", cryptoCurrencyCode: "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
    fiatCurrencyCode: "FIAT_ON_RAMP_CURRENCY_USD", fiatCurrencyAmount: "100", sandboxMode: true,
  }), { keep: (r) => ({ onRampTransactionId: r.onRampTransactionId }) }),
  query("get_onramp_transaction_status", (s) => ({ transactionId: s.onRampTransactionId })),
  submit("delete_fiat_on_ramp_credential", "ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",
    (s) => ({ fiatOnrampCredentialId: s.onRampCredentialId })),

  // Webhooks.
  submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
    (s) => ({ url: s.hook, name: "activities", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }),
    { keep: (r) => ({ endpointId: r.endpointId }) }),
  query("list_webhook_endpoints"),
  submit("update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
    (s) => ({ endpointId: s.endpointId, name: "all activities" })),
  submit("delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", (s) => ({ endpointId: s.endpointId })),

  // Activities, and the deployment.
  query("get_activity", (s) => ({ activityId: s.activityId })),
  query("list_activities"),
  query("list_app_proofs", (s) => ({ activityId: s.activityId })),
  query("get_app_status", { appId: "signet" }),

  // What was made, removed.
  submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", { deleteWithoutExport: true },
    { org: (s) => s.subOrg, as: () => keys.sub }),
  submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", (s) => ({ walletIds: [s.walletId] })),
  submit("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS", (s) => ({ userTagIds: [s.userTagId] })),
  submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", (s) => ({ userIds: [s.memberId] })),
  submit("remove_organization_feature", "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", { name: "FEATURE_NAME_EMAIL_AUTH" }),
];

export function table(signet) {
  const served = servedPaths(signet);
  const paths = clientPaths();
  const rows = paths.map((path) => {
    const by = served.get(path);
    if (by && refusedByDesign.has(path)) return `| \`${path}\` | answers 501: ${refusedByDesign.get(path).reason} | ${by} |`;
    if (by) return `| \`${path}\` | implemented | ${by} |`;
    if (path.startsWith("/tkhq/")) return `| \`${path}\` | absent: internal to the hosted service | |`;
    const family = leftOut.find(([pattern]) => pattern.test(path));
    if (family) return `| \`${path}\` | absent by design: ${family[1]} | |`;
    return `| \`${path}\` | absent | |`;
  });
  const implemented = rows.filter((r) => r.includes("| implemented |")).length;
  return [
    "# Compatibility with the public API",
    "",
    "Every operation `@turnkey/http` (the version pinned in `tests/conformance/package-lock.json`)",
    "can call, and whether Signet serves it with every plugin of this build enabled:",
    "",
    "- implemented: it answers as the public API documents it. The conformance suite sends each",
    "  one a well-formed request (`requests` in `tests/conformance/compatibility.mjs`): the",
    "  activity type the official SDKs send, the parameters the request intent requires, and the",
    "  ids of what earlier requests made. Each must answer 200 with, for a submission, a completed",
    "  activity; only the two submitted to wait for a vote do not complete (one is then approved,",
    "  the other rejected). Chain nodes, Discord's OAuth 2.0 endpoints and a webhook receiver are",
    "  stood in for on loopback.",
    "- answers 501: refused by design, with the reason; not counted as implemented.",
    "- absent by design: a family a self-hosted gateway leaves out on purpose, with the reason.",
    "- absent: internal to the hosted service: its own operations, outside the public API.",
    "- absent: not built yet.",
    "",
    "An absent operation answers 404 naming the path (or, when a plugin that serves it is not",
    "enabled, names the plugin).",
    "",
    "Generated by `node tests/conformance/compatibility.mjs --write`; the conformance suite",
    "fails when this file and the build disagree.",
    "",
    `${implemented} of ${paths.length} implemented.`,
    "",
    "| operation | status | served by |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const signet = process.env.SIGNET_BINARY;
  if (!signet) throw new Error("set SIGNET_BINARY to the signet executable");
  const text = table(signet);
  if (process.argv.includes("--write")) writeFileSync(docPath, text);
  else process.stdout.write(text);
}
