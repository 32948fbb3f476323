// The sessions plugin driven by the official SDKs, with codes delivered to a real SMTP server
// on loopback: @turnkey/sdk-server runs the OTP flow
// (INIT_OTP_V3 -> VERIFY_OTP_V2 -> OTP_LOGIN_V2) and a read-write session; @turnkey/crypto
// encrypts the code to Signet's signed target bundle, checks the verification token and the
// session JWT, and opens the credential bundle. Every @turnkey/crypto check that pins a
// hosted key gets Signet's published signer key through its own override argument.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Turnkey } from "@turnkey/sdk-server";
import {
  decryptCredentialBundle,
  encryptOtpCodeToBundle,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from "@turnkey/crypto";
import { generateKey, startSignet, startSmtpSink } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, turnkey, api, parentOrg, signerKey, sub, smtp, mailDir;

const clientFor = (key, organizationId) =>
  turnkey.apiClient({ apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex, defaultOrganizationId: organizationId });

// The code in the newest message the SMTP server received.
function newestMailedCode() {
  const files = readdirSync(mailDir).filter((f) => f.endsWith(".eml")).sort((a, b) => parseInt(a) - parseInt(b));
  assert.ok(files.length > 0, "no message was delivered");
  const text = readFileSync(join(mailDir, files[files.length - 1]), "utf8");
  const m = /code is: ([0-9A-Z]{6,9})/.exec(text);
  assert.ok(m, `no code in ${text}`);
  return m[1];
}

before(async () => {
  mailDir = mkdtempSync(join(tmpdir(), "signet-mail-"));
  smtp = await startSmtpSink(mailDir);
  signet = await startSignet(rootKey, {
    sessions: { email: { transport: "smtp", smtp: { host: "127.0.0.1", port: smtp.port, startTls: false } } },
  });
  parentOrg = signet.ids.organizationId;
  signerKey = (await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json()).signerPublicKey;
  turnkey = new Turnkey({
    apiBaseUrl: signet.baseUrl,
    apiPublicKey: rootKey.publicKeyHex,
    apiPrivateKey: rootKey.privateKeyHex,
    defaultOrganizationId: parentOrg,
  });
  api = turnkey.apiClient();
  await api.setOrganizationFeature({ name: "FEATURE_NAME_OTP_EMAIL_AUTH", value: "" });
  const userKey = generateKey("p256");
  const created = await api.createSubOrganization({
    subOrganizationName: "Alice",
    rootUsers: [{
      userName: "alice", userEmail: "alice@example.com",
      apiKeys: [{ apiKeyName: "alice key", publicKey: userKey.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [], oauthProviders: [],
    }],
    rootQuorumThreshold: 1,
  });
  sub = { id: created.subOrganizationId, userId: created.rootUserIds[0], key: userKey };
});

after(async () => {
  assert.equal(await signet.stop(), 0);
  await smtp.stop();
  rmSync(mailDir, { recursive: true, force: true });
});

test("OTP: encrypted code, verification token and session JWT pass @turnkey/crypto's checks", async () => {
  const init = await api.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "alice@example.com", appName: "Conformance" });
  assert.equal(init.activity.type, "ACTIVITY_TYPE_INIT_OTP_V3");
  assert.ok(init.otpId);
  const code = newestMailedCode();

  const session = generateKey("p256");
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, init.otpEncryptionTargetBundle, session.publicKeyHex, signerKey);
  const verified = await api.verifyOtp({ otpId: init.otpId, encryptedOtpBundle });
  assert.equal(verified.activity.type, "ACTIVITY_TYPE_VERIFY_OTP_V2");
  const claims = await verifyOtpVerificationToken(verified.verificationToken, signerKey);
  assert.equal(claims.contact, "alice@example.com");
  assert.equal(claims.verification_type, "OTP_TYPE_EMAIL");
  assert.equal(claims.public_key, session.publicKeyHex);
  await assert.rejects(verifyOtpVerificationToken(verified.verificationToken)); // the hosted key does not match

  const message = JSON.stringify({ login: { publicKey: session.publicKeyHex }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
  const signature = crypto.sign("sha256", Buffer.from(message), { key: session.privateKey, dsaEncoding: "ieee-p1363" }).toString("hex");
  const login = await api.otpLogin({
    organizationId: sub.id,
    verificationToken: verified.verificationToken,
    publicKey: session.publicKeyHex,
    clientSignature: { publicKey: session.publicKeyHex, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature },
  });
  assert.equal(login.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(await verifySessionJwtSignature(login.session, signerKey), true);
  assert.equal(await verifySessionJwtSignature(login.session), false);
  // What @turnkey/core's parseSession does with it.
  const payload = JSON.parse(atob(login.session.split(".")[1]));
  assert.equal(payload.user_id, sub.userId);
  assert.equal(payload.organization_id, sub.id);
  assert.equal(payload.public_key, session.publicKeyHex);
  assert.equal(payload.session_type, "SESSION_TYPE_READ_WRITE");
  assert.ok(payload.exp > Date.now() / 1000 + 800 && payload.exp <= Date.now() / 1000 + 901);

  const me = await clientFor(session, sub.id).getWhoami({ organizationId: sub.id });
  assert.equal(me.userId, sub.userId);

  await assert.rejects(api.verifyOtp({ otpId: init.otpId, encryptedOtpBundle }), /Invalid OTP code/);
});

test("listEmailEvents: each email the relay took is a Send with its reply and the message's id", async () => {
  const before = (await api.listEmailEvents({ email: "alice@example.com" })).emailEvents.length;
  await api.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "alice@example.com", appName: "Conformance" });
  const { emailEvents } = await api.listEmailEvents({ email: "alice@example.com", eventType: "Send" });
  assert.equal(emailEvents.length, before + 1);
  const newest = emailEvents[0];
  assert.equal(newest.eventType, "Send");
  assert.equal(newest.organizationId, parentOrg);
  assert.equal(newest.toAddress, "alice@example.com");
  assert.equal(newest.details.deliverySmtpResponse, "250 Message accepted");
  assert.match(newest.timestamp, /^[0-9]+$/);
  const files = readdirSync(mailDir).filter((f) => f.endsWith(".eml")).sort((a, b) => parseInt(a) - parseInt(b));
  const mailed = readFileSync(join(mailDir, files[files.length - 1]), "utf8");
  assert.ok(mailed.includes(`Message-ID: <${newest.messageId}>`), mailed.slice(0, 400));
  const none = await api.listEmailEvents({ email: "alice@example.com", eventType: "Bounce" });
  assert.deepEqual(none.emailEvents, []);
});

test("a read-write session's credential bundle opens with decryptCredentialBundle and stamps", async () => {
  const target = generateKey("p256");
  const targetUncompressed = crypto.createPublicKey(target.privateKey).export({ format: "der", type: "spki" }).subarray(-65).toString("hex");
  const userApi = clientFor(sub.key, sub.id);
  const r = await userApi.createReadWriteSession({ organizationId: sub.id, targetPublicKey: targetUncompressed, userId: sub.userId, expirationSeconds: "600" });
  assert.equal(r.activity.type, "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2");
  const privateKeyHex = decryptCredentialBundle(r.credentialBundle, target.privateKeyHex);
  const sessionKey = { publicKeyHex: null, privateKeyHex };
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, "hex"));
  sessionKey.publicKeyHex = ecdh.getPublicKey("hex", "compressed");
  const me = await clientFor(sessionKey, sub.id).getWhoami({ organizationId: sub.id });
  assert.equal(me.userId, sub.userId);
});
