// The fiat on-ramp plugin driven by the official SDKs: a MoonPay secret key encrypted with
// @turnkey/crypto's encryptOnRampSecret (its override argument given the key Signet publishes in
// /.well-known/signet.json), the credential operations through @turnkey/sdk-server and
// @turnkey/http, a widget URL signature checked the way MoonPay's documentation computes it,
// and a transaction's status read from a MoonPay API stood in for on loopback.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createHmac } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { encryptOnRampSecret } from "@turnkey/crypto";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
const publishable = "pk_test_key";
const secret = "sk_test_key";
let signet, api, http, org, moonPay;
const reports = new Map();  // externalTransactionId -> MoonPay status

// MoonPay's "get buy transaction by external id", answering only its secret key.
async function startMoonPay() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://moonpay");
    const prefix = "/v1/transactions/ext/";
    if (req.headers.authorization !== `Api-Key ${secret}` ||
        url.searchParams.get("apiKey") !== publishable) return res.writeHead(401).end();
    if (!url.pathname.startsWith(prefix)) return res.writeHead(404).end();
    const status = reports.get(url.pathname.slice(prefix.length));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(status ? [{ id: "mp-1", status }] : []));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`,
           close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); } };
}

before(async () => {
  moonPay = await startMoonPay();
  signet = await startSignet(rootKey, {
    "fiat-onramp": { moonpay: { apiUrl: moonPay.url }, allowInsecureUrls: true, timeoutSeconds: 2 },
  });
  org = signet.ids.organizationId;
  api = apiClientFor(signet, rootKey, org);
  http = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
});

after(async () => {
  await moonPay.close();
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

  // MoonPay's published example URL, and its signature computed as MoonPay's snippet does.
  const example = "https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth" +
    "&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";
  const expected = createHmac("sha256", secret).update(new URL(example).search).digest("base64");
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
  assert.equal(init.onRampUrlSignature, expected);
  const widget = new URL(init.onRampUrl);
  assert.equal(widget.origin, "https://buy-sandbox.moonpay.com");
  assert.equal(widget.searchParams.get("externalTransactionId"), init.onRampTransactionId);
  const unsigned = init.onRampUrl.slice(0, init.onRampUrl.indexOf("&signature="));
  assert.equal(widget.searchParams.get("signature"),
    createHmac("sha256", secret).update(new URL(unsigned).search).digest("base64"));

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
