// What a deployment says about itself through @turnkey/sdk-server: get_app_status counts the
// gateways alive on the store, and the boot-proof queries answer that no enclave backs Signet.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Turnkey } from "@turnkey/sdk-server";
import { generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, api;

before(async () => {
  signet = await startSignet(rootKey);
  api = new Turnkey({
    apiBaseUrl: signet.baseUrl, apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex,
    defaultOrganizationId: signet.ids.organizationId,
  }).apiClient();
});

after(async () => assert.equal(await signet.stop(), 0));

test("get_app_status reports the one gateway serving, and boot proofs are refused by reason", async () => {
  const { appStatus } = await api.getAppStatus({ appId: "signet" });
  assert.equal(appStatus.appId, "signet");
  const current = appStatus.deployments.find((d) => d.deploymentId === appStatus.targetedDeploymentId);
  assert.equal(current.readyReplicas, 1);
  assert.equal(current.desiredReplicas, 1);
  await assert.rejects(api.getAppStatus({ appId: "elsewhere" }), /elsewhere/);
  await assert.rejects(api.getLatestBootProof({ appName: "signet" }), /attested enclave/);
  await assert.rejects(api.getBootProof({ ephemeralKey: "04ab" }), /attested enclave/);
});
