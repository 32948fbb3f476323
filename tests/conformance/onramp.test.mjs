// The fiat on-ramp plugin driven by the official SDKs: secret keys encrypted with
// @turnkey/crypto's encryptOnRampSecret (its override argument given the key Signet publishes in
// /.well-known/signet.json), the credential operations through @turnkey/sdk-server and
// @turnkey/http; a widget URL signature checked by MoonPay's own server SDK
// (@moonpay/moonpay-node's isSignatureValid and generateSignature); the CDP JWTs Signet sends
// Coinbase checked against the ones Coinbase's own SDK makes for the same request
// (@coinbase/cdp-sdk's generateJwt), for an EC and an Ed25519 key; and a transaction's status
// read from MoonPay and Coinbase APIs stood in for on loopback.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import crypto from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { encryptOnRampSecret } from "@turnkey/crypto";
import { MoonPay } from "@moonpay/moonpay-node";
import { generateJwt } from "@coinbase/cdp-sdk/auth";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
const publishable = "pk_test_key";
const secret = "sk_test_key";
let signet, api, http, org, providers;
const reports = new Map();  // externalTransactionId -> MoonPay status

const cdpKeyId = "organizations/org-1/apiKeys/key-1";
// The two forms of a CDP secret key: an EC P-256 key in PEM (PKCS#8), and an Ed25519 key as
// base64 of its seed and public key.
const cdpKeys = (() => {
  const ec = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const ed = crypto.generateKeyPairSync("ed25519");
  const jwk = ed.privateKey.export({ format: "jwk" });
  return {
    ec: { secret: ec.privateKey.export({ format: "pem", type: "pkcs8" }), publicKey: ec.publicKey },
    ed25519: { secret: Buffer.concat([Buffer.from(jwk.d, "base64url"), Buffer.from(jwk.x, "base64url")]).toString("base64"),
               publicKey: ed.publicKey },
  };
})();
// The keys Coinbase holds for cdpKeyId: a JWT must be signed by one of them. Both forms once
// the test has given Signet both (a status poll of the worker may still carry the earlier one).
let heldKeys = [cdpKeys.ec];
const jwtFindings = [];  // what was wrong with a CDP JWT Signet sent, if anything
const sessionTokens = [];  // {token, body} Coinbase issued

const decodeJwt = (token) => token.split(".").slice(0, 2).map((p) => JSON.parse(Buffer.from(p, "base64url")));

// Compares Signet's CDP JWT for this request with the one @coinbase/cdp-sdk makes for it with the
// same key: the same header and claim names, the same fixed values, the same lifetime, and a
// signature that verifies under the key. Returns what differs.
async function checkCdpJwt(authorization, method, host, path) {
  const token = (authorization ?? "").replace(/^Bearer /, "");
  const form = decodeJwt(token)[0].alg === "EdDSA" ? "ed25519" : "ec";
  const cdpKey = heldKeys.find((k) => k.publicKey.asymmetricKeyType === form);
  if (!cdpKey) return [`signed ${form}, and Coinbase holds no ${form} key for ${cdpKeyId}`];
  const reference = await generateJwt({ apiKeyId: cdpKeyId, apiKeySecret: cdpKey.secret,
    requestMethod: method, requestHost: host, requestPath: path });
  const [header, claims] = decodeJwt(token);
  const [refHeader, refClaims] = decodeJwt(reference);
  const found = [];
  const same = (what, a, b) => { if (JSON.stringify(a) !== JSON.stringify(b)) found.push(`${what}: ${JSON.stringify(a)}, cdp-sdk ${JSON.stringify(b)}`); };
  same("header names", Object.keys(header).sort(), Object.keys(refHeader).sort());
  for (const k of ["alg", "kid", "typ"]) same(`header.${k}`, header[k], refHeader[k]);
  same("nonce form", /^[0-9a-f]{32}$/.test(header.nonce), /^[0-9a-f]{32}$/.test(refHeader.nonce));
  same("claim names", Object.keys(claims).sort(), Object.keys(refClaims).sort());
  for (const k of ["sub", "iss", "uris"]) same(`claims.${k}`, claims[k], refClaims[k]);
  same("lifetime", claims.exp - claims.nbf, refClaims.exp - refClaims.nbf);
  same("iat", claims.iat, claims.nbf);
  if (Math.abs(claims.nbf - refClaims.nbf) > 5) found.push(`nbf ${claims.nbf}, cdp-sdk ${refClaims.nbf}`);
  const [h, c, signature] = token.split(".");
  const signed = Buffer.from(`${h}.${c}`);
  let verified = false;
  try {
    verified = cdpKey.publicKey.asymmetricKeyType === "ec"
      ? crypto.verify("sha256", signed, { key: cdpKey.publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))
      : crypto.verify(null, signed, cdpKey.publicKey, Buffer.from(signature, "base64url"));
  } catch {
    // a signature of another form than the key's: not verified
  }
  if (!verified) found.push("the signature does not verify under the CDP key");
  return found;
}

// MoonPay's "get buy transaction by external id", answering only its secret key; Coinbase's
// session token and transaction status, answering only a CDP JWT that holds.
async function startProviders() {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url, "http://providers");
    const json = (status, value) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (url.pathname.startsWith("/onramp/v1/")) {
      const found = await checkCdpJwt(req.headers.authorization, req.method, req.headers.host, url.pathname);
      if (found.length) { jwtFindings.push(...found); return json(401, { message: found.join("; ") }); }
      if (req.method === "POST" && url.pathname === "/onramp/v1/token") {
        const token = `session-token-${sessionTokens.length + 1}`;
        sessionTokens.push({ token, body: JSON.parse(body), jwt: req.headers.authorization.replace(/^Bearer /, "") });
        return json(200, { token, channel_id: "" });
      }
      const m = /^\/onramp\/v1\/buy\/user\/([^/]+)\/transactions$/.exec(url.pathname);
      if (!m) return json(404, {});
      const status = reports.get(m[1]);
      return json(200, status ? { transactions: [{ status, partner_user_ref: m[1] }], total_count: "1" }
        : { transactions: [], total_count: "0" });
    }
    const prefix = "/v1/transactions/ext/";
    if (req.headers.authorization !== `Api-Key ${secret}` ||
        url.searchParams.get("apiKey") !== publishable) return res.writeHead(401).end();
    if (!url.pathname.startsWith(prefix)) return res.writeHead(404).end();
    const status = reports.get(url.pathname.slice(prefix.length));
    json(200, status ? [{ id: "mp-1", status }] : []);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`,
           close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); } };
}

before(async () => {
  providers = await startProviders();
  signet = await startSignet(rootKey, {
    "fiat-onramp": { moonpay: { apiUrl: providers.url }, coinbase: { apiUrl: providers.url },
      allowInsecureUrls: true, timeoutSeconds: 2 },
  });
  org = signet.ids.organizationId;
  api = apiClientFor(signet, rootKey, org);
  http = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
});

after(async () => {
  await providers.close();
  assert.equal(await signet.stop(), 0);
});

async function onRampKey() {
  const published = await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json();
  return published.onRampEncryptionPublicKey;
}

test("a MoonPay credential encrypted with encryptOnRampSecret signs URLs as MoonPay documents", async () => {
  const key = await onRampKey();
  const { fiatOnRampCredentialId } = await api.createFiatOnRampCredential({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY",
    publishableApiKey: publishable,
    encryptedSecretApiKey: encryptOnRampSecret(secret, key),
    sandboxMode: true,
  });
  assert.ok(fiatOnRampCredentialId);
  const { fiatOnRampCredentials } = await http.listFiatOnRampCredentials({ organizationId: org });
  assert.equal(fiatOnRampCredentials.length, 1);
  assert.equal(fiatOnRampCredentials[0].fiatOnrampCredentialId, fiatOnRampCredentialId);
  assert.equal(fiatOnRampCredentials[0].publishableApiKey, publishable);

  // MoonPay's published example URL: the signature Signet returns is the one MoonPay's own SDK
  // computes for it, and the widget URL Signet signs passes the SDK's isSignatureValid.
  const moonPaySdk = new MoonPay(secret);
  const example = "https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth" +
    "&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";
  const init = await api.initFiatOnRamp({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY",
    walletAddress: "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae",
    network: "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM",
    cryptoCurrencyCode: "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
    fiatCurrencyCode: "FIAT_ON_RAMP_CURRENCY_USD",
    fiatCurrencyAmount: "100",
    sandboxMode: true,
    urlForSignature: example,
  });
  assert.equal(init.onRampUrlSignature, moonPaySdk.url.generateSignature(example));
  assert.equal(moonPaySdk.url.isSignatureValid(`${example}&signature=${encodeURIComponent(init.onRampUrlSignature)}`), true);
  const widget = new URL(init.onRampUrl);
  assert.equal(widget.origin, "https://buy-sandbox.moonpay.com");
  assert.equal(widget.searchParams.get("externalTransactionId"), init.onRampTransactionId);
  assert.equal(moonPaySdk.url.isSignatureValid(init.onRampUrl), true, init.onRampUrl);
  // The check is not one any URL passes: another secret, or a changed parameter, fails it.
  assert.equal(new MoonPay("sk_test_other").url.isSignatureValid(init.onRampUrl), false);
  const tampered = new URL(init.onRampUrl);
  tampered.searchParams.set("walletAddress", "0x0000000000000000000000000000000000000001");
  assert.equal(moonPaySdk.url.isSignatureValid(tampered.href), false);

  const status = (refresh) => http.getOnRampTransactionStatus(
    { organizationId: org, transactionId: init.onRampTransactionId, refresh });
  assert.equal((await status(false)).transactionStatus, "PENDING");
  reports.set(init.onRampTransactionId, "completed");
  assert.equal((await status(true)).transactionStatus, "COMPLETED");

  await assert.rejects(api.initFiatOnRamp({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY", walletAddress: "0xde0b",
    network: "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM",
    cryptoCurrencyCode: "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH", fiatCurrencyAmount: "5",
    sandboxMode: true,
  }), /parameters\.fiatCurrencyAmount/);

  const updated = await api.updateFiatOnRampCredential({
    fiatOnrampCredentialId: fiatOnRampCredentialId,
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_MOONPAY",
    publishableApiKey: publishable,
    encryptedSecretApiKey: encryptOnRampSecret(secret, key),
  });
  assert.equal(updated.fiatOnRampCredentialId, fiatOnRampCredentialId);
  const deleted = await api.deleteFiatOnRampCredential({ fiatOnrampCredentialId: fiatOnRampCredentialId });
  assert.equal(deleted.fiatOnRampCredentialId, fiatOnRampCredentialId);
  assert.equal((await http.listFiatOnRampCredentials({ organizationId: org })).fiatOnRampCredentials.length, 0);
});

test("Coinbase: the CDP JWTs Signet sends are the ones @coinbase/cdp-sdk makes, for an EC and an Ed25519 key", async () => {
  const key = await onRampKey();
  const credential = (cdp) => ({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_COINBASE", projectId: "cdp-project-1", publishableApiKey: "cdp-client-key",
    encryptedSecretApiKey: encryptOnRampSecret(cdpKeyId, key), encryptedPrivateApiKey: encryptOnRampSecret(cdp.secret, key),
  });
  const { fiatOnRampCredentialId } = await api.createFiatOnRampCredential(credential(cdpKeys.ec));
  const purchase = () => api.initFiatOnRamp({
    onrampProvider: "FIAT_ON_RAMP_PROVIDER_COINBASE", walletAddress: "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae",
    network: "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE", cryptoCurrencyCode: "FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC",
    fiatCurrencyCode: "FIAT_ON_RAMP_CURRENCY_USD", fiatCurrencyAmount: "50", sandboxMode: false,
    paymentMethod: "FIAT_ON_RAMP_PAYMENT_METHOD_CREDIT_DEBIT_CARD", countryCode: "US", countrySubdivisionCode: "NY",
  });
  for (const form of ["ec", "ed25519"]) {
    if (form === "ed25519") {
      heldKeys = [cdpKeys.ec, cdpKeys.ed25519];
      await api.updateFiatOnRampCredential({ fiatOnrampCredentialId: fiatOnRampCredentialId, ...credential(cdpKeys.ed25519) });
    }
    const issued = sessionTokens.length;
    const init = await purchase();
    assert.deepEqual(jwtFindings, [], form);
    assert.equal(sessionTokens.length, issued + 1, form);
    assert.equal(decodeJwt(sessionTokens[issued].jwt)[0].alg, form === "ec" ? "ES256" : "EdDSA");
    assert.deepEqual(sessionTokens[issued].body.assets, ["USDC"]);
    assert.equal(new URL(init.onRampUrl).searchParams.get("sessionToken"), sessionTokens[issued].token);
    // The status call is signed the same way, for its own method and path.
    const status = (refresh) => http.getOnRampTransactionStatus({ organizationId: org, transactionId: init.onRampTransactionId, refresh });
    assert.equal((await status(true)).transactionStatus, "PENDING");
    reports.set(init.onRampTransactionId, "ONRAMP_TRANSACTION_STATUS_SUCCESS");
    assert.equal((await status(true)).transactionStatus, "COMPLETED");
    assert.deepEqual(jwtFindings, [], form);
  }
  // Under a key Coinbase does not hold, the check fails and so does the purchase.
  heldKeys = [cdpKeys.ec];
  const refused = await purchase();  // @turnkey/sdk-server hands a FAILED activity back as it is
  assert.equal(refused.activity.status, "ACTIVITY_STATUS_FAILED");
  assert.equal(refused.activity.failure.message, "Coinbase answered HTTP 401 to a session token request");
  assert.ok(jwtFindings.some((f) => f.includes("Coinbase holds no ed25519 key")), jwtFindings.join("; "));
  jwtFindings.length = 0;
  heldKeys = [cdpKeys.ec, cdpKeys.ed25519];
  await api.deleteFiatOnRampCredential({ fiatOnrampCredentialId: fiatOnRampCredentialId });
});
