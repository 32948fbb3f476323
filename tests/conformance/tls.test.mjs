// The official SDKs over HTTPS: signet serve --tls-cert/--tls-key with a certificate from a
// test CA made here. The SDK runs in a child Node whose only extra trust is that CA
// (NODE_EXTRA_CA_CERTS, read at start-up), and fails without it: the certificate is checked,
// not waved through.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateKey, startSignet } from "./harness.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

function openssl(...args) {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

// A CA, and a server certificate for 127.0.0.1 it signs.
function makeCertificates(dir) {
  const p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl("req", "-x509", ...p256, "-keyout", join(dir, "ca.key"), "-out", join(dir, "ca.pem"),
    "-days", "1", "-subj", "/CN=Signet conformance CA",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign");
  openssl("req", ...p256, "-keyout", join(dir, "server.key"), "-out", join(dir, "server.csr"),
    "-subj", "/CN=127.0.0.1");
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl("x509", "-req", "-in", join(dir, "server.csr"), "-CA", join(dir, "ca.pem"),
    "-CAkey", join(dir, "ca.key"), "-CAcreateserial", "-out", join(dir, "server.pem"),
    "-days", "1", "-extfile", join(dir, "server.ext"));
}

// The SDK calls, in a child Node: whoami through @turnkey/sdk-server, a wallet through
// @turnkey/http's TurnkeyClient.
const client = `
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
const c = JSON.parse(process.env.SIGNET_CREDENTIALS);
const api = new Turnkey({ ...c, activityPoller: { intervalMs: 50, numRetries: 5 } }).apiClient();
const who = await api.getWhoami({ organizationId: c.defaultOrganizationId });
const http = new TurnkeyClient({ baseUrl: c.apiBaseUrl },
  new ApiKeyStamper({ apiPublicKey: c.apiPublicKey, apiPrivateKey: c.apiPrivateKey }));
const created = await http.createWallet({
  type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()),
  organizationId: c.defaultOrganizationId,
  parameters: { walletName: "over tls", accounts: [{ curve: "CURVE_SECP256K1",
    pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] },
});
console.log(JSON.stringify({ organizationId: who.organizationId, status: created.activity.status,
  address: created.activity.result.createWalletResult.addresses[0] }));
`;

function runClient(credentials, env) {
  return spawnSync(process.execPath, ["--input-type=module", "-e", client], {
    cwd: here, encoding: "utf8", timeout: 60000,
    env: { ...env, SIGNET_CREDENTIALS: JSON.stringify(credentials) },
  });
}

test("the SDKs reach signet over TLS, trusting a test CA", async () => {
  const dir = mkdtempSync(join(tmpdir(), "signet-tls-"));
  makeCertificates(dir);
  const rootKey = generateKey("p256");
  const signet = await startSignet(rootKey, null, {
    serveArgs: ["--tls-cert", join(dir, "server.pem"), "--tls-key", join(dir, "server.key")],
  });
  try {
    assert.match(signet.baseUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
    const credentials = {
      apiBaseUrl: signet.baseUrl, apiPublicKey: rootKey.publicKeyHex,
      apiPrivateKey: rootKey.privateKeyHex, defaultOrganizationId: signet.ids.organizationId,
    };
    const { NODE_EXTRA_CA_CERTS, ...plainEnv } = process.env;
    const trusted = runClient(credentials, { ...plainEnv, NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") });
    assert.equal(trusted.status, 0, trusted.stderr);
    const out = JSON.parse(trusted.stdout.trim());
    assert.equal(out.organizationId, signet.ids.organizationId);
    assert.equal(out.status, "ACTIVITY_STATUS_COMPLETED");
    assert.match(out.address, /^0x[0-9a-fA-F]{40}$/);

    // Without the CA the same client refuses the certificate.
    const untrusted = runClient(credentials, plainEnv);
    assert.notEqual(untrusted.status, 0);
    assert.match(untrusted.stderr, /certificate|UNABLE_TO_VERIFY|self.signed|fetch failed/i);
  } finally {
    await signet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
