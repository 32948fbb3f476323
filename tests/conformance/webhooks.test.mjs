// The webhooks plugin driven by the official SDKs: @turnkey/sdk-server and @turnkey/http run the
// endpoint operations, and receivers on loopback check every delivery with @turnkey/crypto's
// verifyTurnkeyWebhookSignature against the keys Signet publishes at
// /public/v1/discovery/webhooks/jwks. Receiver modes: success, 500 then success, a 3xx, a
// timeout, and slow; a slow receiver does not hold up the API.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { verifyTurnkeyWebhookSignature } from "@turnkey/crypto";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, api, http, org;
const receivers = [];

// The published keys, as the verifier takes them (refetched when a kid is unknown).
let keys = [];
async function verificationKeys(kid) {
  if (!keys.some((k) => k.keyId === kid)) {
    const jwks = await (await fetch(`${signet.baseUrl}/public/v1/discovery/webhooks/jwks`)).json();
    keys = jwks.keys.map((k) => ({ keyId: k.kid, algorithm: "ed25519",
      publicKey: Buffer.from(k.x, "base64url").toString("hex") }));
  }
  return keys;
}

// A receiver on loopback. `answer(n)` is the status of its n-th request (0-based), or
// "timeout" (never answers) or {delayMs, status}.
async function receiver(answer) {
  const r = { deliveries: [], verified: [] };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const n = r.deliveries.length;
      r.deliveries.push({ headers: req.headers, body: body.toString("utf8"), at: Date.now() });
      const kid = req.headers["x-turnkey-signature-key-id"];
      r.verified.push(verifyTurnkeyWebhookSignature({
        headers: req.headers, body, verificationKeys: await verificationKeys(kid),
        maxTimestampAgeMs: 5 * 60 * 1000,
      }));
      const a = answer(n);
      if (a === "timeout") return;  // the socket is closed when the server stops
      const { delayMs = 0, status = a } = typeof a === "object" ? a : {};
      setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${server.address().port}/hook`;
  r.close = () => { server.closeAllConnections(); return new Promise((res) => server.close(res)); };
  receivers.push(r);
  return r;
}

async function until(check, ms = 15000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail("timed out waiting");
}

const endpoint = (url, filters) => ({
  url, name: "receiver",
  subscriptions: [{ eventType: "ACTIVITY_UPDATES", ...(filters ? { filtersJson: JSON.stringify(filters) } : {}) }],
});

before(async () => {
  signet = await startSignet(rootKey, {
    webhooks: { allowInsecureUrls: true, retryScheduleSeconds: [1, 1], timeoutSeconds: 2 },
  });
  org = signet.ids.organizationId;
  api = apiClientFor(signet, rootKey, org);
  http = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
});

after(async () => {
  for (const r of receivers) await r.close();
  assert.equal(await signet.stop(), 0);
});

test("endpoint operations through @turnkey/sdk-server and @turnkey/http", async () => {
  const created = await api.createWebhookEndpoint(endpoint("https://93.184.216.34/hooks",
    { statuses: ["ACTIVITY_STATUS_COMPLETED"] }));
  assert.ok(created.endpointId);
  assert.equal(created.webhookEndpoint.url, "https://93.184.216.34/hooks");
  assert.equal(created.webhookEndpoint.subscriptions[0].eventType, "ACTIVITY_UPDATES");
  const listed = await http.listWebhookEndpoints({ organizationId: org });
  assert.ok(listed.webhookEndpoints.some((e) => e.endpointId === created.endpointId));
  const updated = await api.updateWebhookEndpoint({ endpointId: created.endpointId, isActive: false });
  assert.equal(updated.webhookEndpoint.isActive, false);
  // (This gateway allows plain http and loopback for the receivers below; the address rules
  // are tested with that exception off in plugins/webhooks/tests.)
  await assert.rejects(api.createWebhookEndpoint({ ...endpoint("https://93.184.216.34/x"), name: "" }),
    /parameters\.name/);
  await assert.rejects(api.createWebhookEndpoint({ ...endpoint("https://93.184.216.34/x"),
    subscriptions: [{ eventType: "BALANCE_FINALIZED_UPDATES" }] }), /BALANCE_FINALIZED_UPDATES/);
  const deleted = await api.deleteWebhookEndpoint({ endpointId: created.endpointId });
  assert.equal(deleted.endpointId, created.endpointId);
});

test("every delivery verifies with @turnkey/crypto; 5xx and timeouts are retried with the same event id, a 3xx is not", async () => {
  const ok = await receiver(() => 200);
  const flaky = await receiver((n) => (n === 0 ? 500 : 200));
  const timeout = await receiver((n) => (n === 0 ? "timeout" : 200));
  const moved = await receiver(() => 301);
  for (const r of [ok, flaky, timeout, moved]) await api.createWebhookEndpoint(endpoint(r.url));
  const { activity } = await http.createPolicy({
    type: "ACTIVITY_TYPE_CREATE_POLICY_V3", timestampMs: String(Date.now()), organizationId: org,
    parameters: { policyName: "observed", effect: "EFFECT_ALLOW", condition: "false", consensus: "true" },
  });
  const seen = (r) => r.deliveries.some((d) => d.body.includes(activity.id));
  await until(() => seen(ok) && seen(moved));
  // The flaky and the silent receivers get their first event again, same id, new signature.
  const retried = (r) => r.deliveries.length >= 2 &&
    r.deliveries.slice(1).some((d) => d.headers["x-turnkey-event-id"] === r.deliveries[0].headers["x-turnkey-event-id"]);
  await until(() => retried(flaky) && retried(timeout));
  for (const r of [flaky, timeout]) {
    const again = r.deliveries.slice(1).find((d) => d.headers["x-turnkey-event-id"] === r.deliveries[0].headers["x-turnkey-event-id"]);
    assert.notEqual(again.headers["x-turnkey-signature"], r.deliveries[0].headers["x-turnkey-signature"]);
    assert.ok(again.at - r.deliveries[0].at >= 700, "the retry waited for the schedule");
  }
  await new Promise((r) => setTimeout(r, 2500));
  const movedIds = moved.deliveries.map((d) => d.headers["x-turnkey-event-id"]);
  assert.equal(new Set(movedIds).size, movedIds.length, "a 301 was retried");
  for (const r of [ok, flaky, timeout, moved])
    for (const v of r.verified) assert.equal(v.ok, true, JSON.stringify(v));
  const payload = JSON.parse(ok.deliveries.find((d) => d.body.includes(activity.id)).body);
  assert.equal(payload.id, activity.id);
  assert.equal(payload.type, "ACTIVITY_TYPE_CREATE_POLICY_V3");
});

test("a slow receiver does not hold up the API", async () => {
  const slow = await receiver(() => ({ delayMs: 1500, status: 200 }));
  await api.createWebhookEndpoint(endpoint(slow.url));
  const timings = [];
  for (let i = 0; i < 20; i++) {
    const start = Date.now();
    await api.createUserTag({ userTagName: `tag-${i}`, userIds: [] });
    timings.push(Date.now() - start);
  }
  await until(() => slow.deliveries.length >= 5);
  timings.sort((a, b) => a - b);
  // Each of these waits for the slow receiver's 1.5 s were it in the request's path.
  assert.ok(timings[timings.length - 1] < 1000, `slowest request ${timings[timings.length - 1]} ms`);
});
