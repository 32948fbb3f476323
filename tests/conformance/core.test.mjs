// @turnkey/http and @turnkey/api-key-stamper, unchanged, against a running signet.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TurnkeyClient, TurnkeyRequestError, createActivityPoller } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateKey, nodeStamper, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, client, org, user;

before(async () => {
  signet = await startSignet(rootKey);
  org = signet.ids.organizationId;
  user = signet.ids.userId;
  client = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
});

after(async () => {
  assert.equal(await signet.stop(), 0, "signet stops cleanly on SIGTERM");
});

const createKeyInput = (key, name, extra = {}) => ({
  type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
  timestampMs: String(Date.now()),
  organizationId: org,
  parameters: {
    userId: user,
    apiKeys: [{ apiKeyName: name, publicKey: key.publicKeyHex, curveType: key.apiCurve, ...extra }],
  },
});

test("whoami names the organization and user", async () => {
  const me = await client.getWhoami({ organizationId: org });
  assert.equal(me.organizationId, org);
  assert.equal(me.organizationName, "Conformance");
  assert.equal(me.userId, user);
  assert.equal(me.username, "conformance root");
});

test("an API key of each curve is created and then stamps get_api_keys", async () => {
  const keys = [
    { ...generateKey("p256"), apiCurve: "API_KEY_CURVE_P256" },
    { ...generateKey("secp256k1"), apiCurve: "API_KEY_CURVE_SECP256K1" },
    { ...generateKey("ed25519"), apiCurve: "API_KEY_CURVE_ED25519" },
  ];
  for (const key of keys) {
    const poller = createActivityPoller({ client, requestFn: client.createApiKeys });
    const activity = await poller(createKeyInput(key, `conformance ${key.curve}`, { expirationSeconds: "3600" }));
    assert.equal(activity.status, "ACTIVITY_STATUS_COMPLETED");
    const [apiKeyId] = activity.result.createApiKeysResult.apiKeyIds;
    assert.ok(apiKeyId);

    const stamper = key.curve === "p256"
      ? new ApiKeyStamper({ apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex })
      : nodeStamper(key);
    const asNewKey = new TurnkeyClient({ baseUrl: signet.baseUrl }, stamper);
    const { apiKeys } = await asNewKey.getApiKeys({ organizationId: org, userId: user });
    const mine = apiKeys.find((k) => k.apiKeyId === apiKeyId);
    assert.ok(mine, `${key.curve} key listed`);
    assert.equal(mine.credential.publicKey, key.publicKeyHex);
    assert.equal(mine.expirationSeconds, "3600");
  }
});

test("a tampered body is refused as unauthenticated", async () => {
  const signed = await client.stampGetWhoami({ organizationId: org });
  const tampered = signed.body.replace(org, "00000000-0000-4000-8000-000000000000");
  const res = await fetch(signed.url, {
    method: "POST",
    body: tampered,
    headers: { [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue },
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("content-type"), "application/json");
  const err = await res.json();
  assert.equal(err.code, 16);
  assert.equal(err.details[0].turnkeyErrorCode, "SIGNATURE_INVALID");
});

test("a stale timestampMs is refused as invalid", async () => {
  const key = { ...generateKey("p256"), apiCurve: "API_KEY_CURVE_P256" };
  const input = createKeyInput(key, "stale");
  input.timestampMs = String(Date.now() - 2 * 60 * 60 * 1000);
  await assert.rejects(client.createApiKeys(input), (e) => {
    assert.ok(e instanceof TurnkeyRequestError, String(e));
    assert.equal(e.code, 3);
    assert.match(e.message, /timestampMs/);
    return true;
  });
});

test("an unknown key is refused with the message clients map to SESSION_EXPIRED", async () => {
  const stranger = generateKey("p256");
  const strangerClient = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: stranger.publicKeyHex, apiPrivateKey: stranger.privateKeyHex }));
  await assert.rejects(strangerClient.getWhoami({ organizationId: org }), (e) => {
    assert.ok(e instanceof TurnkeyRequestError, String(e));
    assert.equal(e.code, 16);
    assert.match(e.message, /could not find public key in organization or its parent organization/);
    assert.ok(e.message.includes(org));
    return true;
  });
});

test("resubmitting an identical body returns the same activity", async () => {
  const key = { ...generateKey("p256"), apiCurve: "API_KEY_CURVE_P256" };
  const input = createKeyInput(key, "idempotent");
  const first = await client.createApiKeys(input);
  const second = await client.createApiKeys(input);
  assert.equal(first.activity.id, second.activity.id);
  assert.equal(first.activity.fingerprint, second.activity.fingerprint);
  assert.match(first.activity.fingerprint, /^sha256:[0-9a-f]{64}$/);
  const { activity } = await client.getActivity({ organizationId: org, activityId: first.activity.id });
  assert.equal(activity.status, "ACTIVITY_STATUS_COMPLETED");
  const { activities } = await client.getActivities({
    organizationId: org, filterByType: ["ACTIVITY_TYPE_CREATE_API_KEYS_V2"],
  });
  assert.equal(activities.filter((a) => a.id === first.activity.id).length, 1);
});
