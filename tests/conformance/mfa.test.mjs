// MFA with the official clients, unchanged: @turnkey/http writes the MFA policy and reads the
// MFA status (sdk-server 8.2.1 has no MFA calls), @turnkey/sdk-server submits and approves.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
const secondKey = generateKey("p256");
let signet, org, rootUserId;
const serverClient = (key) => apiClientFor(signet, key, org);
const httpClient = (key) =>
  new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex }));

before(async () => {
  signet = await startSignet(rootKey);
  org = signet.ids.organizationId;
  rootUserId = signet.ids.userId;
});

after(async () => {
  assert.equal(await signet.stop(), 0);
});

test("an MFA policy holds the root user's activity at AUTHENTICATORS_NEEDED until a second key approves it", async () => {
  const root = serverClient(rootKey);
  const { apiKeyIds } = await root.createApiKeys({
    userId: rootUserId,
    apiKeys: [{ apiKeyName: "second factor", publicKey: secondKey.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
  });
  const created = await httpClient(rootKey).createMfaPolicy({
    type: "ACTIVITY_TYPE_CREATE_MFA_POLICY",
    timestampMs: String(Date.now()),
    organizationId: org,
    parameters: {
      userId: rootUserId,
      mfaPolicyName: "two keys for new users",
      condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
      requiredAuthenticationMethods: [
        { any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: signet.ids.apiKeyId }] },
        { any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: apiKeyIds[0] }] },
      ],
      order: 0,
    },
  });
  assert.equal(created.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const mfaPolicyId = created.activity.result.createMfaPolicyResult.mfaPolicyId;
  const { user } = await root.getUser({ userId: rootUserId });
  assert.deepEqual(user.mfaPolicies.map((p) => p.mfaPolicyId), [mfaPolicyId]);

  const pending = await root.createUsers({
    users: [{ userName: "needs two keys", userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
  });
  assert.equal(pending.activity.status, "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
  const before = await httpClient(rootKey).getMfaStatus({ organizationId: org, activityId: pending.activity.id });
  assert.equal(before.mfaStatuses.length, 1);
  assert.equal(before.mfaStatuses[0].mfaPolicyId, mfaPolicyId);
  assert.equal(before.mfaStatuses[0].satisfied, false);

  const approved = await serverClient(secondKey).approveActivity({ fingerprint: pending.activity.fingerprint });
  assert.equal(approved.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(approved.activity.result.createUsersResult.userIds.length, 1);
  const after = await httpClient(rootKey).getMfaStatus({ organizationId: org, activityId: pending.activity.id });
  assert.equal(after.mfaStatuses[0].satisfied, true);
  assert.deepEqual(after.mfaStatuses[0].satisfiedMethods.map((m) => m.id).sort(),
                   [signet.ids.apiKeyId, apiKeyIds[0]].sort());
});

test("MFA policies are read, updated and deleted through @turnkey/http", async () => {
  const http = httpClient(rootKey);
  const body = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: org, parameters });
  const created = await http.createMfaPolicy(body("ACTIVITY_TYPE_CREATE_MFA_POLICY", {
    userId: rootUserId, mfaPolicyName: "signing", condition: "activity.action == 'SIGN'",
    requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY" }] }], order: 5 }));
  const mfaPolicyId = created.activity.result.createMfaPolicyResult.mfaPolicyId;

  const updated = await http.updateMfaPolicy(body("ACTIVITY_TYPE_UPDATE_MFA_POLICY",
    { userId: rootUserId, mfaPolicyId, mfaPolicyName: "all signing", order: 6 }));
  assert.equal(updated.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const { mfaPolicy } = await http.getMfaPolicy({ organizationId: org, userId: rootUserId, mfaPolicyId });
  assert.equal(mfaPolicy.mfaPolicyName, "all signing");
  assert.equal(mfaPolicy.condition, "activity.action == 'SIGN'");  // omitted: unchanged
  assert.equal(String(mfaPolicy.order), "6");
  assert.deepEqual(mfaPolicy.requiredAuthenticationMethods, [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY" }] }]);

  const deleted = await http.deleteMfaPolicy(body("ACTIVITY_TYPE_DELETE_MFA_POLICY", { userId: rootUserId, mfaPolicyId }));
  assert.equal(deleted.activity.result.deleteMfaPolicyResult.mfaPolicyId, mfaPolicyId);
  const { mfaPolicies } = await http.getMfaPolicies({ organizationId: org, userId: rootUserId });
  assert.ok(!mfaPolicies.some((p) => p.mfaPolicyId === mfaPolicyId));
});
