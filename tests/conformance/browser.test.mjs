// The auth proxy in a real browser: Debian's chromium, headless under playwright-core, loads a
// page from an allowed loopback origin that runs @turnkey/core (bundled for the browser by
// esbuild) through an email OTP sign-up and a login, against the proxy and Signet; the codes go
// to a real SMTP server on loopback. A page from another origin is refused by the proxy, and
// the browser's own CORS check keeps the page from reading anything.
//
// @turnkey/core options set for Signet: apiBaseUrl, authProxyUrl, authProxyConfigId and
// organizationId (the client's own configuration). Where @turnkey/core has no override: its
// verifyOtp() checks the OTP target bundle against the hosted service's pinned key, so the page
// does the same steps with @turnkey/crypto's encryptOtpCodeToBundle and its override argument
// (Signet's published signer key) and the client's own proxyVerifyOtpV2 (browser/app.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { Turnkey } from "@turnkey/sdk-server";
import { generateKey, startSignet, startSmtpSink } from "./harness.mjs";

const chromiumPath = process.env.SIGNET_CHROMIUM ?? "/usr/bin/chromium";
const signetBinary = process.env.SIGNET_BINARY;
const rootKey = generateKey("p256");
const contact = "browser-user@example.com";
let signet, smtp, mailDir, bundleDir, browser, allowedSite, otherSite, proxyUrl, configId,
  signerKey, parentOrg;

// A static site on loopback serving the page and the bundle: each port is an origin of its own.
async function serveSite(dir) {
  const server = createServer((req, res) => {
    const file = req.url === "/" ? "index.html" : req.url === "/app.js" ? "app.js" : null;
    if (!file) { res.writeHead(404).end(); return; }
    res.writeHead(200, { "Content-Type": file.endsWith(".js") ? "text/javascript" : "text/html" });
    res.end(readFileSync(join(dir, file)));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

// The code in the newest message the SMTP server received since `before` messages.
async function mailedCode(before) {
  for (let i = 0; i < 100; i++) {
    const files = readdirSync(mailDir).filter((f) => f.endsWith(".eml")).sort((a, b) => parseInt(a) - parseInt(b));
    if (files.length > before) {
      const m = /code is: ([0-9A-Z]{6,9})/.exec(readFileSync(join(mailDir, files[files.length - 1]), "utf8"));
      assert.ok(m, "no code in the message");
      return m[1];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no message arrived within 10 s");
}
const mailCount = () => readdirSync(mailDir).filter((f) => f.endsWith(".eml")).length;

async function openPage(site) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(site.origin + "/");
  await page.waitForFunction(() => window.app !== undefined, null, { timeout: 10000 });
  await page.evaluate((cfg) => window.app.start(cfg), {
    apiBaseUrl: signet.baseUrl, authProxyUrl: proxyUrl, authProxyConfigId: configId,
    organizationId: parentOrg,
  });
  assert.deepEqual(problems, []);
  return page;
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: scripts/setup.sh installs Debian's chromium`);
  mailDir = mkdtempSync(join(tmpdir(), "signet-browser-mail-"));
  smtp = await startSmtpSink(mailDir);
  signet = await startSignet(rootKey, {
    sessions: { email: { transport: "smtp", smtp: { host: "127.0.0.1", port: smtp.port, startTls: false } } },
    "auth-proxy": { listen: "127.0.0.1:0", configCacheSeconds: 0 },
  });
  parentOrg = signet.ids.organizationId;
  proxyUrl = await signet.listenerUrl("auth proxy listening on");
  signerKey = (await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json()).signerPublicKey;
  const api = new Turnkey({ apiBaseUrl: signet.baseUrl, apiPublicKey: rootKey.publicKeyHex,
    apiPrivateKey: rootKey.privateKeyHex, defaultOrganizationId: parentOrg }).apiClient();
  await api.setOrganizationFeature({ name: "FEATURE_NAME_OTP_EMAIL_AUTH", value: "" });

  bundleDir = mkdtempSync(join(tmpdir(), "signet-browser-app-"));
  await build({
    entryPoints: [new URL("./browser/app.mjs", import.meta.url).pathname],
    bundle: true, format: "iife", platform: "browser", target: "es2020",
    outfile: join(bundleDir, "app.js"), logLevel: "error",
    define: { "process.env.NODE_ENV": '"production"', global: "globalThis" },
  });
  writeFileSync(join(bundleDir, "index.html"), readFileSync(new URL("./browser/index.html", import.meta.url)));
  allowedSite = await serveSite(bundleDir);
  otherSite = await serveSite(bundleDir);

  // The operator's side, from the CLI while the gateway runs: enable, then allow the page's
  // origin only.
  const enabled = JSON.parse(execFileSync(signetBinary, ["auth-proxy", "enable", "--data-dir",
    signet.dataDir, "--organization", parentOrg], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  configId = enabled.configId;
  const settings = join(bundleDir, "proxy.json");
  writeFileSync(settings, JSON.stringify({ allowedOrigins: [allowedSite.origin],
    emailCustomizationParams: { appName: "Browser App" }, sessionExpirationSeconds: 1800 }));
  execFileSync(signetBinary, ["auth-proxy", "configure", "--data-dir", signet.dataDir,
    "--organization", parentOrg, "--file", settings], { stdio: ["ignore", "ignore", "ignore"] });

  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  await allowedSite?.close();
  await otherSite?.close();
  assert.equal(await signet.stop(), 0);
  await smtp.stop();
  rmSync(mailDir, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
});

test("@turnkey/core in chromium signs up and logs in with email OTP through the proxy", async () => {
  const page = await openPage(allowedSite);
  const kit = await page.evaluate(([id, url]) => window.app.kitConfig(id, url), [configId, proxyUrl]);
  assert.equal(kit.config.organizationId, parentOrg);
  assert.equal(kit.config.sessionExpirationSeconds, "1800");

  // Sign-up: initOtp, the code from the mail, verify, no account yet, signUpWithOtp.
  let sent = mailCount();
  const init = await page.evaluate((c) => window.app.initOtp(c), contact);
  assert.ok(init.otpId && init.otpEncryptionTargetBundle);
  const code = await mailedCode(sent);
  const verified = await page.evaluate(([i, c, b, k]) => window.app.verify(i, c, b, k),
    [init.otpId, code, init.otpEncryptionTargetBundle, signerKey]);
  assert.deepEqual(await page.evaluate(([c, t]) => window.app.account(c, t),
    [contact, verified.verificationToken]), {});
  const signedUp = await page.evaluate(([t, c]) => window.app.signUp(t, c), [verified.verificationToken, contact]);
  const claims = JSON.parse(Buffer.from(signedUp.sessionToken.split(".")[1], "base64url").toString());
  const subOrg = claims.organization_id;
  assert.notEqual(subOrg, parentOrg);
  assert.equal(claims.public_key, verified.publicKey);
  const me = await page.evaluate((o) => window.app.whoami(o), subOrg);
  assert.equal(me.organizationId, subOrg);
  assert.equal(me.userId, claims.user_id);

  // Login on a fresh page: a new code, the account found by the verified email, loginWithOtp.
  const again = await openPage(allowedSite);
  sent = mailCount();
  const init2 = await again.evaluate((c) => window.app.initOtp(c), contact);
  const code2 = await mailedCode(sent);
  const verified2 = await again.evaluate(([i, c, b, k]) => window.app.verify(i, c, b, k),
    [init2.otpId, code2, init2.otpEncryptionTargetBundle, signerKey]);
  const found = await again.evaluate(([c, t]) => window.app.account(c, t), [contact, verified2.verificationToken]);
  assert.equal(found.organizationId, subOrg);
  const loggedIn = await again.evaluate((t) => window.app.login(t), verified2.verificationToken);
  const claims2 = JSON.parse(Buffer.from(loggedIn.sessionToken.split(".")[1], "base64url").toString());
  assert.equal(claims2.organization_id, subOrg);
  assert.equal(claims2.user_id, claims.user_id);
  assert.equal((await again.evaluate((o) => window.app.whoami(o), subOrg)).userId, claims.user_id);
  await page.close();
  await again.close();
});

test("a page from an origin the configuration does not allow is refused", async () => {
  const page = await openPage(otherSite);
  const sent = mailCount();
  const outcome = await page.evaluate(async (c) => {
    try {
      await window.app.initOtp(c);
      return "sent";
    } catch (e) {
      return `refused: ${e.message} ${e.cause?.message ?? ""}`;
    }
  }, contact);
  assert.match(outcome, /^refused/);
  // The proxy refused before forwarding anything: no code went out.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(mailCount(), sent);
  // Outside the browser, the proxy's answer says why.
  const direct = await fetch(`${proxyUrl}/v1/otp_init_v2`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-ID": configId, Origin: otherSite.origin },
    body: JSON.stringify({ otpType: "OTP_TYPE_EMAIL", contact }),
  });
  assert.equal(direct.status, 403);
  assert.match((await direct.json()).message, /is not allowed by auth proxy configuration/);
  assert.equal(direct.headers.get("access-control-allow-origin"), null);
  await page.close();
});
