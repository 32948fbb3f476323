// Starts a real signet for the conformance tests: init a fresh data directory, bootstrap a
// root organization holding the given API key, serve on a free loopback port.
import { spawn, execFileSync } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import crypto from "node:crypto";
import { Turnkey } from "@turnkey/sdk-server";

const signet = process.env.SIGNET_BINARY;
if (!signet) throw new Error("set SIGNET_BINARY to the signet executable (scripts/test.sh does)");

const b64urlToHex = (s) => Buffer.from(s, "base64url").toString("hex");

// A fresh key pair of a curve, as Turnkey clients hold them: hex private scalar (or seed) and
// hex public key (compressed for EC curves).
export function generateKey(curve) {
  if (curve === "ed25519") {
    const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
    return {
      curve,
      publicKeyHex: b64urlToHex(publicKey.export({ format: "jwk" }).x),
      privateKeyHex: b64urlToHex(privateKey.export({ format: "jwk" }).d),
      privateKey,
    };
  }
  const namedCurve = curve === "p256" ? "prime256v1" : "secp256k1";
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ec", { namedCurve });
  const jwk = publicKey.export({ format: "jwk" });
  const y = Buffer.from(jwk.y, "base64url");
  const prefix = y[y.length - 1] % 2 === 0 ? "02" : "03";
  return {
    curve,
    publicKeyHex: prefix + b64urlToHex(jwk.x),
    privateKeyHex: b64urlToHex(privateKey.export({ format: "jwk" }).d),
    privateKey,
  };
}

// A stamper for curves @turnkey/api-key-stamper does not sign with (secp256k1, Ed25519),
// built exactly like the Go and Rust stampers: it plugs into TurnkeyClient unchanged.
export function nodeStamper(key) {
  const scheme = key.curve === "ed25519" ? "SIGNATURE_SCHEME_TK_API_ED25519" : "SIGNATURE_SCHEME_TK_API_SECP256K1";
  return {
    async stamp(payload) {
      const data = Buffer.from(payload, "utf8");
      const signature = key.curve === "ed25519"
        ? crypto.sign(null, data, key.privateKey)
        : crypto.sign("sha256", data, key.privateKey);
      const stamp = JSON.stringify({ publicKey: key.publicKeyHex, signature: signature.toString("hex"), scheme });
      return { stampHeaderName: "X-Stamp", stampHeaderValue: Buffer.from(stamp).toString("base64url") };
    },
  };
}

// An @turnkey/sdk-server API client holding `key` for `organizationId`, polling briefly: an
// activity waiting for consensus or factors comes back as it is after one retry.
export function apiClientFor(signet, key, organizationId) {
  return new Turnkey({
    apiBaseUrl: signet.baseUrl, apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex,
    defaultOrganizationId: organizationId, activityPoller: { intervalMs: 50, numRetries: 1 },
  }).apiClient();
}

// Sets plugins.settings in a data directory's signet.json. The auth proxy's listener gets a free
// port unless the settings give it one: its default, 8090, would clash between gateways that
// run at once.
export function setPluginSettings(dataDir, pluginSettings = {}) {
  const file = join(dataDir, "signet.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  const settings = { ...pluginSettings };
  settings["auth-proxy"] = { listen: "127.0.0.1:0", ...(settings["auth-proxy"] ?? {}) };
  config.plugins.settings = settings;
  writeFileSync(file, JSON.stringify(config, null, 2));
}

// With SIGNET_CONFORMANCE_PG (a libpq connection string without dbname, as scripts/postgres.sh
// prints it), each data directory's store is a fresh PostgreSQL database of its own instead of
// its SQLite file: scripts/test.sh runs the plugins' tests a second time so. Call it after
// `signet init` and before anything else opens the store; it returns what drops the database
// once the gateway has stopped.
const pgServer = process.env.SIGNET_CONFORMANCE_PG;
export function useConfiguredStore(dataDir) {
  if (!pgServer) return () => {};
  const name = `signet_conformance_${crypto.randomBytes(6).toString("hex")}`;
  const psql = (sql) => execFileSync("psql", [`${pgServer} dbname=postgres`, "-v", "ON_ERROR_STOP=1", "-qc", sql],
    { stdio: ["ignore", "ignore", "inherit"] });
  psql(`CREATE DATABASE ${name}`);
  const file = join(dataDir, "signet.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.database = { driver: "postgresql", connection: `${pgServer} dbname=${name}` };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

// `pluginSettings` lands in signet.json as plugins.settings (e.g. { sessions: {...} });
// `serveArgs` are added to `signet serve` (--tls-cert FILE --tls-key FILE).
export async function startSignet(rootKey, pluginSettings = null, { serveArgs = [] } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "signet-conformance-"));
  execFileSync(signet, ["init", "--data-dir", dataDir], { stdio: ["ignore", "ignore", "inherit"] });
  const dropStore = useConfiguredStore(dataDir);
  setPluginSettings(dataDir, pluginSettings ?? {});
  const out = execFileSync(signet, ["org", "create", "--data-dir", dataDir, "--name", "Conformance",
    "--user-name", "conformance root", "--api-public-key", rootKey.publicKeyHex], { encoding: "utf8" });
  const ids = JSON.parse(out.trim());
  let served = await serve(dataDir, serveArgs);
  const gateway = {
    baseUrl: served.baseUrl, ids, dataDir,
    // The URL a line starting with `prefix` announced (a plugin's listener).
    listenerUrl: (prefix) => served.announced(prefix),
    // A command on the data directory (`signet <args> --data-dir DIR`), its output as JSON.
    command: (args) => JSON.parse(execFileSync(signet, [...args, "--data-dir", dataDir],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim()),
    // Stops the gateway (SIGTERM) and serves the same data directory again, on a new port;
    // `whileDown`, if given, runs between the two.
    async restart(whileDown = async () => {}) {
      await served.stop();
      await whileDown();
      served = await serve(dataDir, serveArgs);
      gateway.baseUrl = served.baseUrl;
    },
    async stop() {
      const code = await served.stop();
      rmSync(dataDir, { recursive: true, force: true });
      dropStore();
      return code;
    },
  };
  return gateway;
}

// `signet serve` on a data directory, once it says where it listens.
async function serve(dataDir, serveArgs) {
  const server = spawn(signet, ["serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0", ...serveArgs],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, SIGNET_LOG_LEVEL: process.env.SIGNET_LOG_LEVEL ?? "warning" } });
  // Every line it prints: the first says where it listens, those after it where its plugins'
  // listeners do ("auth proxy listening on http://...").
  const lines = [];
  const waiting = new Set();
  createInterface({ input: server.stdout }).on("line", (l) => {
    lines.push(l);
    for (const check of waiting) check();
  });
  const announced = (prefix, ms = 20000) => new Promise((resolve, reject) => {
    const check = () => {
      const l = lines.find((x) => x.startsWith(prefix));
      if (!l) return;
      waiting.delete(check);
      clearTimeout(timer);
      resolve(l.slice(l.indexOf("http")));  // http:// or https://
    };
    const timer = setTimeout(() => { waiting.delete(check); reject(new Error(`signet did not print "${prefix}" within ${ms} ms`)); }, ms);
    server.once("exit", (code) => reject(new Error(`signet exited with ${code}`)));
    waiting.add(check);
    check();
  });
  const baseUrl = await announced("signet listening on");
  return {
    baseUrl, announced,
    async stop() {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      return exited;
    },
  };
}

// A real SMTP server on loopback (tests/support/smtp_sink.py, Debian's python3-aiosmtpd):
// messages land as files in `dir`. Resolves once it listens; stop() ends it.
export async function startSmtpSink(dir) {
  const script = new URL("../support/smtp_sink.py", import.meta.url).pathname;
  const sink = spawn("/usr/bin/python3", [script, "--dir", dir], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("smtp_sink.py did not start within 10 s")), 10000);
    sink.once("exit", (code) => reject(new Error(`smtp_sink.py exited with ${code}`)));
    createInterface({ input: sink.stdout }).once("line", (l) => { clearTimeout(timer); resolve(l); });
  });
  return {
    port: Number(line.split(" ")[1]),
    async stop() {
      const exited = new Promise((resolve) => sink.once("exit", resolve));
      sink.stdin.end();  // the sink exits when its stdin closes
      await exited;
    },
  };
}

// Polls `check` every 100 ms until it gives something truthy, which it returns; fails the test
// after `ms`.
export async function until(check, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting (${ms} ms)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
