// The operator console (/console/) in a real browser: Debian's chromium, headless under
// playwright-core, against a real gateway. Every step goes through the page as an operator
// would (labels, buttons, keyboard); the test checks the outcome through the API, the proxy or
// the page. Screenshots of every view at desktop and phone widths, and the load and render
// times, are written to SIGNET_ARTIFACTS (default build/artifacts/console).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const chromiumPath = process.env.SIGNET_CHROMIUM ?? "/usr/bin/chromium";
const artifacts = process.env.SIGNET_ARTIFACTS ??
  new URL("../../build/artifacts/console/", import.meta.url).pathname;
const rootKey = generateKey("p256");
const approverKey = generateKey("p256");
const submitterKey = generateKey("p256");
const VIEWS = ["auth", "users", "suborgs", "wallets", "policies", "activities", "webhooks", "plugins", "health"];
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
let signet, receiver, browser, api, org, proxyUrl, consoleUrl, approverId;
const timings = [];

before(async () => {
  assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: scripts/setup.sh installs Debian's chromium`);
  mkdirSync(artifacts, { recursive: true });
  // A webhook receiver on loopback, so that the webhooks view shows real deliveries.
  receiver = createServer((req, res) => { req.resume(); req.on("end", () => res.writeHead(200).end()); });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  signet = await startSignet(rootKey, { "auth-proxy": { listen: "127.0.0.1:0", configCacheSeconds: 0 },
    webhooks: { allowInsecureUrls: true } });
  org = signet.ids.organizationId;
  proxyUrl = await signet.listenerUrl("auth proxy listening on");
  // localhost, not 127.0.0.1: WebAuthn takes a domain as its relying party, never an address.
  consoleUrl = signet.baseUrl.replace("127.0.0.1", "localhost") + "/console/";
  api = apiClientFor(signet, rootKey, org);

  // Two more users: an approver outside the root quorum, and a submitter whose user tags need
  // the approver's consensus.
  const { userIds } = await api.createUsers({ users: [
    { userName: "approver", userEmail: "approver@example.com", apiKeys: [{ apiKeyName: "approver key",
      publicKey: approverKey.publicKeyHex, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] },
    { userName: "submitter", apiKeys: [{ apiKeyName: "submitter key", publicKey: submitterKey.publicKeyHex,
      curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  approverId = userIds[0];
  await api.createPolicy({ policyName: "user tags need the approver", effect: "EFFECT_ALLOW",
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
    consensus: `approvers.any(user, user.id == '${approverId}')`, notes: "" });
  for (let i = 0; i < 3; i++)
    await api.createSubOrganization({ subOrganizationName: `customer ${i}`, rootQuorumThreshold: 1,
      rootUsers: [{ userName: `customer-${i}`, userEmail: `customer${i}@example.com`, apiKeys: [],
        authenticators: [], oauthProviders: [] }] });

  // More activities than one page holds, so that the activities view pages.
  for (let i = 0; i < 12; i++) await api.createUserTag({ userTagName: `tag ${i}`, userIds: [] });
  // Something to show in the wallet and webhook views.
  await api.createWallet({ walletName: "treasury", accounts: [
    { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
    { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  await api.createWebhookEndpoint({ name: "activity feed", url: `http://127.0.0.1:${receiver.address().port}/signet`,
    subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });

  browser = await chromium.launch({ executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"] });
});

after(async () => {
  writeFileSync(join(artifacts, "timings.json"), JSON.stringify(timings, null, 2));
  await browser?.close();
  assert.equal(await signet?.stop(), 0);
  await new Promise((resolve) => receiver?.close(resolve));
});

// A page on the console that fails the test on a script error or a CSP violation, and records
// every URL it asks for (no secret may be in one).
async function openConsole(context) {
  const page = await context.newPage();
  const problems = [];
  const urls = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("request", (r) => urls.push(r.url()));
  const response = await page.goto(consoleUrl);
  await page.waitForSelector("main[data-ready=signin]");
  await page.evaluate(() => document.addEventListener("securitypolicyviolation",
    (e) => { window.cspViolations = [...(window.cspViolations ?? []), e.violatedDirective]; }));
  return { page, problems, urls, response };
}

async function signIn(page, key, organizationId = org) {
  await page.getByLabel("Organization ID").first().fill(organizationId);
  await page.getByLabel("API public key").fill(key.publicKeyHex);
  await page.getByLabel("API private key").fill(key.privateKeyHex);
  await page.getByRole("button", { name: "Sign in with API key" }).click();
  await page.waitForSelector("main[data-ready=auth]");
}

async function show(page, view) {
  await page.evaluate(() => { document.getElementById("main").dataset.ready = ""; });
  await page.getByRole("link", { name: { auth: "AUTH", users: "Users", suborgs: "Sub-organizations",
    wallets: "Wallets", policies: "Policies", activities: "Activities", webhooks: "Webhooks",
    plugins: "Plugins", health: "Health" }[view], exact: true }).click();
  await page.waitForSelector(`main[data-ready=${view}]`);
}

test("the console is served with a strict CSP, and signs in with a pasted API key", async () => {
  const context = await browser.newContext();
  const { page, problems, urls, response } = await openConsole(context);
  const csp = response.headers()["content-security-policy"];
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(response.headers()["x-frame-options"], "DENY");
  assert.equal(await page.locator("script:not([src])").count(), 0);

  // Keyboard: the sign-in form is reached and filled in label order.
  await page.keyboard.press("Tab");  // the skip link
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.labels?.[0]?.textContent), "Organization ID");
  await page.keyboard.type(org);
  await page.keyboard.press("Tab");
  await page.keyboard.type(rootKey.publicKeyHex);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.type), "password");
  await page.keyboard.type("00".repeat(31) + "01");  // not this public key's private half
  await page.keyboard.press("Enter");
  const keyError = page.locator(".field", { has: page.getByLabel("API private key") }).locator(".field-error");
  await keyError.waitFor();
  assert.equal(await keyError.textContent(), "the private key does not belong to this public key");

  await signIn(page, rootKey);
  assert.match(await page.locator("#who").textContent(), /conformance root/);
  const nav = await page.evaluate(() => performance.getEntriesByType("navigation")[0].toJSON());
  timings.push({ what: "console page load (navigation)", domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd),
    loadMs: Math.round(nav.loadEventEnd) });
  assert.ok(!urls.some((u) => u.includes(rootKey.privateKeyHex)), "a URL carried the private key");
  assert.deepEqual(await page.evaluate(() => window.cspViolations ?? []), []);
  assert.deepEqual(problems.filter((p) => !/status of 4\d\d/.test(p)), []);
  await context.close();
});

test("a key kept in IndexedDB stays non-extractable and signs the operator in after a reload", async () => {
  const context = await browser.newContext();
  const { page } = await openConsole(context);
  await page.getByLabel("Keep this key in this browser").check();
  await signIn(page, rootKey);
  const kept = await page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open("signet-console");
    open.onsuccess = () => {
      const get = open.result.transaction("keys").objectStore("keys").get("current");
      get.onsuccess = () => resolve({ extractable: get.result.privateKey.extractable,
        type: get.result.privateKey.type, fields: Object.keys(get.result).sort() });
      get.onerror = () => reject(get.error);
    };
  }));
  assert.deepEqual(kept, { extractable: false, type: "private", fields: ["organizationId", "privateKey", "publicKey"] });
  await page.reload();
  await page.waitForSelector("main[data-ready=auth]");
  assert.match(await page.locator("#who").textContent(), /conformance root/);
  // Signing out forgets it: the next load asks again. The sign-in form shows once the key is
  // deleted; reloading before that would race the deletion.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForSelector("main[data-ready=signin]");
  await page.reload();
  await page.waitForSelector("main[data-ready=signin]");
  await context.close();
});

test("AUTH: enable the proxy, refuse a partial wildcard, set an origin the proxy then enforces", async () => {
  const context = await browser.newContext();
  const { page } = await openConsole(context);
  await signIn(page, rootKey);
  await page.getByRole("button", { name: "Enable the auth proxy" }).click();
  await page.waitForFunction(() => document.getElementById("proxy-status")?.textContent === "enabled");
  const configId = await page.locator("#config-id").textContent();
  const kitConfig = (origin) => fetch(`${proxyUrl}/v1/wallet_kit_config`, { method: "POST", body: "{}",
    headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-Id": configId, Origin: origin } });

  const origins = page.getByLabel("Allowed origins, one per line");
  await origins.fill("https://*.example.com");
  await page.getByRole("button", { name: "Save" }).click();
  const originError = page.locator(".field", { has: origins }).locator(".field-error");
  await originError.waitFor();
  assert.match(await originError.textContent(), /partial wildcard/);
  assert.equal(await page.evaluate(() => document.activeElement.name), "allowedOrigins");

  // A value only the server refuses: its error lands beside the field it names.
  await origins.fill("https://app.example.com");
  await page.getByLabel("Code length").fill("12");
  await page.getByRole("button", { name: "Save" }).click();
  const lengthError = page.locator(".field", { has: page.getByLabel("Code length") }).locator(".field-error");
  await lengthError.waitFor();
  assert.match(await lengthError.textContent(), /otpLength/);

  await page.getByLabel("Code length").fill("6");
  await page.getByLabel("Alphabet").selectOption("false");
  await page.getByLabel("App name").fill("Console App");
  await page.getByLabel("SMS template").fill("{{.AppName}} code: {{.OtpCode}}");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved.").waitFor();
  assert.equal((await kitConfig("https://app.example.com")).status, 200);
  assert.equal((await kitConfig("https://other.example.com")).status, 403);

  await page.getByRole("button", { name: "Preview the messages" }).click();
  await page.locator("#preview-sms").waitFor();
  assert.equal(await page.locator("#preview-sms").textContent(), "Console App code: 123456");
  assert.match(await page.locator("#preview-subject").textContent(), /Console App verification code/);
  await context.close();
});

test("a policy with a syntax error is refused at its position, then a valid one is created", async () => {
  const context = await browser.newContext();
  const { page } = await openConsole(context);
  await signIn(page, rootKey);
  await show(page, "policies");
  await page.getByLabel("Name", { exact: true }).fill("console policy");
  const condition = page.getByLabel("Condition");
  await condition.fill("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' &&& true");
  await page.getByRole("button", { name: "Create policy" }).click();
  const error = page.locator(".field", { has: condition }).locator(".field-error");
  await error.waitFor();
  assert.match(await error.textContent(), /syntax error at position \d+/);
  const position = Number(/position (\d+)/.exec(await error.textContent())[1]);
  assert.equal(await page.locator(".marker:visible").textContent(),
    `activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' &&& true\n${" ".repeat(position)}^ position ${position}`);
  assert.equal(await condition.evaluate((el) => el.selectionStart), position);

  await condition.fill("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'");
  await page.getByRole("button", { name: "Create policy" }).click();
  await page.getByText("Policy created.").waitFor();
  const { policies } = await api.getPolicies({ organizationId: org });
  assert.ok(policies.some((p) => p.policyName === "console policy" &&
    p.condition === "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'"));
  await context.close();
});

test("an activity that needs the approver's consensus is approved in the console by the approver", async () => {
  const submitter = apiClientFor(signet, submitterKey, org);
  const pending = await submitter.createUserTag({ userTagName: "needs approval", userIds: [] });
  assert.equal(pending.activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  const waiting = pending.activity;

  const context = await browser.newContext();
  const { page } = await openConsole(context);
  await signIn(page, approverKey);
  await show(page, "activities");
  await page.getByLabel("Status", { exact: true }).selectOption("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByRole("link", { name: "CREATE_USER_TAG" }).first().click();
  await page.waitForFunction(() => document.getElementById("activity-status")?.textContent === "CONSENSUS_NEEDED");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForFunction(() => document.getElementById("activity-status")?.textContent === "COMPLETED");
  const { activity } = await api.getActivity({ organizationId: org, activityId: waiting.id });
  assert.equal(activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.ok(activity.votes.some((v) => v.userId === approverId && v.selection === "VOTE_SELECTION_APPROVED"));
  await context.close();
});

test("a passkey registered in the console signs the operator in (Chromium's virtual authenticator)", async () => {
  const context = await browser.newContext();
  const { page, problems } = await openConsole(context);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal",
    hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
  await signIn(page, rootKey);
  await page.evaluate((id) => { location.hash = `#/users/${id}`; }, signet.ids.userId);
  await page.getByRole("button", { name: "Register a passkey for this user" }).click();
  await page.getByText("Passkey registered.").waitFor();
  const { authenticators } = await api.getAuthenticators({ organizationId: org, userId: signet.ids.userId });
  assert.equal(authenticators.length, 1);

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForSelector("main[data-ready=signin]");
  await page.getByRole("form", { name: "Sign in with a passkey" }).getByLabel("Organization ID").fill(org);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForSelector("main[data-ready=auth]");
  assert.match(await page.locator("#who").textContent(), /conformance root/);
  // The session key the passkey registered signs what follows.
  await show(page, "users");
  assert.ok(await page.getByRole("link", { name: "approver" }).isVisible());
  assert.deepEqual(problems.filter((p) => !/status of 4\d\d/.test(p)), []);
  await context.close();
});

test("every view renders at desktop and phone widths; screenshots and timings are saved", async () => {
  for (const [name, viewport] of Object.entries(WIDTHS)) {
    const context = await browser.newContext({ viewport });
    const { page, problems } = await openConsole(context);
    const nav = await page.evaluate(() => performance.getEntriesByType("navigation")[0].toJSON());
    const bytes = await page.evaluate(() => performance.getEntriesByType("resource")
      .reduce((n, r) => n + r.encodedBodySize, 0));
    timings.push({ what: `console page load (${name}, fresh context)`, loadMs: Math.round(nav.loadEventEnd),
      bytes: nav.encodedBodySize + bytes });
    await page.screenshot({ path: join(artifacts, `signin-${name}.png`), fullPage: true });
    await signIn(page, rootKey);
    for (const view of VIEWS) {
      await show(page, view);
      const rendered = await page.evaluate(() => window.consoleTimings.at(-1));
      timings.push({ what: `${view} (${name})`, renderMs: rendered.ms });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${view} at ${name} width scrolls sideways by ${overflow} px`);
      await page.screenshot({ path: join(artifacts, `${view}-${name}.png`), fullPage: true });
    }
    assert.match(await page.locator("#health-store").textContent(), /answering/);
    // Long lists page; a search narrows the sub-organizations to the one with that email.
    await show(page, "activities");
    assert.equal(await page.locator("tbody tr").count(), 20);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Page 2").waitFor();
    assert.ok(await page.locator("tbody tr").count() > 0);
    // The webhook endpoint with its backlog's counts, and deliveries made.
    await show(page, "webhooks");
    const feed = page.getByRole("table", { name: "Endpoints" }).getByRole("row").filter({ hasText: "activity feed" });
    const pending = await feed.locator('td[data-label="Pending"]').textContent();
    const dropped = await feed.locator('td[data-label="Dropped (backlog full)"]').textContent();
    assert.match(pending, /^\d+$/);
    assert.equal(dropped, "0");
    await page.locator('td[data-label="Status"]', { hasText: /^delivered$/ }).first().waitFor();
    await show(page, "suborgs");
    assert.equal(await page.locator("tbody tr").count(), 3);
    await page.getByLabel("Search by").selectOption("EMAIL");
    await page.getByLabel("Value").fill("customer1@example.com");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    // Two detail views: a wallet's accounts and an activity.
    await show(page, "wallets");
    await page.getByRole("link", { name: "treasury" }).click();
    await page.getByText("ADDRESS_FORMAT_SOLANA").waitFor();
    await page.screenshot({ path: join(artifacts, `wallet-accounts-${name}.png`), fullPage: true });
    await show(page, "activities");
    await page.getByRole("link", { name: "CREATE_WALLET" }).first().click();
    await page.locator("#activity-status").waitFor();
    await page.screenshot({ path: join(artifacts, `activity-detail-${name}.png`), fullPage: true });
    assert.deepEqual(await page.evaluate(() => window.cspViolations ?? []), []);
    assert.deepEqual(problems.filter((p) => !/status of 4\d\d/.test(p)), []);
    await context.close();
  }
});

test("the Users view shows the IP allowlists that fence the organization's API keys", async () => {
  const context = await browser.newContext();
  const { page, problems } = await openConsole(context);
  await signIn(page, rootKey);
  await show(page, "users");
  await page.getByText("No IP allowlist: API keys are accepted from any address.").waitFor();
  await api.setIpAllowlist({ publicKey: submitterKey.publicKeyHex,
    rules: [{ cidr: "10.0.0.0/8", label: "office" }, { cidr: "2001:db8::/32" }] });
  try {
    await show(page, "users");
    const row = page.getByRole("table", { name: "IP allowlists" }).getByRole("row").filter({ hasText: "submitter key (submitter)" });
    assert.equal(await row.locator('td[data-label="Allowed networks"]').textContent(), "10.0.0.0/8 (office), 2001:db8::/32");
    assert.equal(await row.locator('td[data-label="When unreadable"]').textContent(), "deny");
  } finally {
    await api.removeIpAllowlist({ publicKey: submitterKey.publicKeyHex });
  }
  assert.deepEqual(problems.filter((p) => !/status of 4\d\d/.test(p)), []);
  await context.close();
});
