// The credentials file `signet org create` writes when it generates the key is usable as it
// is: @turnkey/sdk-server takes it as its configuration and the gateway answers whoami.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { whoamiWith } from "./whoami.mjs";
import { setPluginSettings, useConfiguredStore } from "./harness.mjs";

const signet = process.env.SIGNET_BINARY;

// A port that was free a moment ago: the file must name the URL before the server starts.
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("the generated credentials file drives @turnkey/sdk-server as it is", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "signet-credentials-"));
  const port = await freePort();
  execFileSync(signet, ["init", "--data-dir", dataDir], { stdio: "ignore" });
  const dropStore = useConfiguredStore(dataDir);
  setPluginSettings(dataDir);
  const out = execFileSync(signet, ["org", "create", "--data-dir", dataDir, "--name", "Mine",
    "--user-name", "admin", "--base-url", `http://127.0.0.1:${port}`], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const ids = JSON.parse(out.trim());
  const file = join(dataDir, `${ids.organizationId}.api-key.json`);
  assert.deepEqual(readdirSync(dataDir).filter((f) => f.includes("api-key")), [`${ids.organizationId}.api-key.json`]);
  assert.equal(statSync(file).mode & 0o777, 0o600);

  const server = spawn(signet, ["serve", "--data-dir", dataDir, "--listen", `127.0.0.1:${port}`],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, SIGNET_LOG_LEVEL: "warning" } });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("signet did not start within 20 s")), 20000);
      server.once("exit", (code) => reject(new Error(`signet exited with ${code}`)));
      createInterface({ input: server.stdout }).once("line", () => { clearTimeout(timer); resolve(); });
    });
    const me = await whoamiWith(file);
    assert.equal(me.organizationId, ids.organizationId);
    assert.equal(me.userId, ids.userId);
    assert.equal(me.username, "admin");
    assert.equal(me.organizationName, "Mine");
  } finally {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
    dropStore();
  }
});
