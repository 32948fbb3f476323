// docs/compatibility.md tells the truth. It is what compatibility.mjs generates from this build.
// Each operation it calls implemented, and no other, has a well-formed request in
// compatibility.mjs's `requests`: the activity type the official SDKs send, the parameters its
// request intent requires, the ids of what earlier requests made. Sent in order to one gateway,
// whose chain nodes, Discord and webhook receiver are stood in for on loopback, each must
// answer 200, with a submission's activity COMPLETED (or in the status its request is meant to
// leave it in: waiting for a vote, rejected). A stamped request to each operation the table
// calls absent answers 404, and one to each it says answers 501 does.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { keccak256 } from "viem";
import { chains, docPath, refusedByDesign, requests, table } from "./compatibility.mjs";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, standIn;

// A stand-in on loopback for what the gateway reaches out to: the nodes of `chains` (JSON-RPC,
// the reads of an empty account and a send), Discord's OAuth 2.0 token and user endpoints, and
// a webhook receiver.
async function startStandIn() {
  const rpc = {
    eth_chainId: () => `0x${Number(chains.eth.split(":")[1]).toString(16)}`,
    eth_blockNumber: () => "0x0", eth_getBlockByNumber: () => null,
    eth_getTransactionCount: () => "0x0", eth_getBalance: () => "0x0", eth_sendRawTransaction: ([raw]) => keccak256(raw),
    getSlot: () => 0, getSignaturesForAddress: () => [], getBalance: () => ({ context: { slot: 1 }, value: 0 }),
  };
  const answer = ({ id, method, params }) => (method in rpc
    ? { jsonrpc: "2.0", id, result: rpc[method](params ?? []) }
    : { jsonrpc: "2.0", id, error: { code: -32601, message: `${method} is not served here` } });
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const json = (value) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.url === "/rpc") {
      const call = JSON.parse(body);
      return json(Array.isArray(call) ? call.map(answer) : answer(call));
    }
    if (req.url === "/token") return json({ access_token: "discord-access", token_type: "Bearer" });
    if (req.url === "/users/@me") return json({ id: "80351110224678912", username: "member" });
    res.writeHead(200).end();  // a webhook delivery
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}

before(async () => {
  standIn = await startStandIn();
  signet = await startSignet(rootKey, {
    signing: { broadcast: { rpc: { [chains.eth]: `${standIn.url}/rpc`, [chains.sol]: `${standIn.url}/rpc` },
                            history: { [chains.eth]: { fromBlock: "1" }, [chains.sol]: { fromSlot: "1" } },
                            allowInsecureUrls: true, timeoutSeconds: 2 } },
    sessions: { oauth2: { discord: { tokenUrl: `${standIn.url}/token`, userInfoUrl: `${standIn.url}/users/@me` },
                          allowHttp: true } },
    webhooks: { allowInsecureUrls: true },
  });
});
after(async () => {
  await signet?.stop();
  await standIn?.close();
});

const docRows = () => readFileSync(docPath, "utf8").split("\n").filter((l) => l.startsWith("| `/"))
  .map((row) => ({ path: row.split("`")[1], row }));

// A stamped POST of `body` by `key`: the status and the parsed answer.
async function post(path, body, key) {
  const text = JSON.stringify(body);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex });
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(text);
  const r = await fetch(`${signet.baseUrl}${path}`, {
    method: "POST", headers: { "content-type": "application/json", [stampHeaderName]: stampHeaderValue }, body: text,
  });
  const answer = await r.text();
  try {
    return { status: r.status, answer: JSON.parse(answer) };
  } catch {
    return { status: r.status, answer: { message: answer } };
  }
}

test("docs/compatibility.md is current (regenerate with compatibility.mjs --write)", () => {
  assert.equal(readFileSync(docPath, "utf8"), table(process.env.SIGNET_BINARY));
});

test("compatibility.mjs has a request for each implemented operation, and for no other", () => {
  const implemented = docRows().filter(({ row }) => row.includes("| implemented |")).map(({ path }) => path);
  assert.ok(implemented.length > 100);
  const covered = new Set(requests.map((r) => r.path));
  assert.deepEqual(implemented.filter((p) => !covered.has(p)), [],
    "implemented, without a request in compatibility.mjs");
  assert.deepEqual([...covered].filter((p) => !implemented.includes(p)), [],
    "a request in compatibility.mjs, not implemented");
});

test("each implemented operation answers its well-formed request with 200", async () => {
  const value = (v, s) => (typeof v === "function" ? v(s) : v);
  const s = {
    org: signet.ids.organizationId, userId: signet.ids.userId, outbox: join(signet.dataDir, "outbox"),
    published: await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json(), hook: `${standIn.url}/hook`,
  };
  const wrong = [];
  for (const request of requests) {
    const { path, type, expect = "ACTIVITY_STATUS_COMPLETED" } = request;
    let answered = "";
    try {
      const organizationId = request.org?.(s) ?? s.org;
      const body = type
        ? { type, timestampMs: String(Date.now()), organizationId, parameters: await value(request.parameters, s) }
        : { organizationId, ...await value(request.fields, s) };
      const { status, answer } = await post(path, body, request.as?.(s) ?? rootKey);
      const { activity } = answer;
      const shown = type && activity ? { status: activity.status, failure: activity.failure } : answer;
      answered = ` (answered ${status} ${JSON.stringify(shown)})`;
      if (status !== 200 || (type && activity?.status !== expect)) throw new Error(type ? `not ${expect}` : "not 200");
      if (type) Object.assign(s, { activityId: activity.id, fingerprint: activity.fingerprint });
      Object.assign(s, request.keep?.(type ? Object.values(activity.result)[0] : answer, s));
    } catch (e) {
      wrong.push(`${path}: ${e.message}${answered}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("each operation the table calls absent answers 404, and each it says answers 501 does", async () => {
  for (const { path, row } of docRows()) {
    if (row.includes("| implemented |")) continue;
    const refused = row.includes("| answers 501: ");
    const organizationId = signet.ids.organizationId;
    const body = path.includes("/submit/")
      ? { type: "ACTIVITY_TYPE_PLACEHOLDER", timestampMs: String(Date.now()), organizationId, parameters: {} }
      : { organizationId, ...(refusedByDesign.get(path)?.body ?? {}) };
    const { status, answer } = await post(path, body, rootKey);
    assert.equal(status, refused ? 501 : 404,
      `${path} is ${refused ? "refused by design" : "absent"} but answered ${status} ${JSON.stringify(answer)}`);
  }
});
