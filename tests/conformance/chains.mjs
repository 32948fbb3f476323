// Real chains for the broadcast tests, on loopback: Hardhat's EVM node (chain id 11155111,
// Prague, so EIP-7702 applies) with contracts compiled by solc-js, and Solana's SVM from
// litesvm behind the JSON-RPC methods a gateway uses (getLatestBlockhash, sendTransaction with
// its preflight, getSignatureStatuses, getTransaction). No validator can run here; litesvm runs
// the transactions for real.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import solc from "solc";
import { LiteSVM } from "litesvm";
import { getBase58Decoder, getTransactionDecoder } from "@solana/kit";

const require = createRequire(import.meta.url);
export const chainId = 11155111;  // a chain id of the public API's list, on a local node
export const caip2 = `eip155:${chainId}`;
// Hardhat's first default account, funded with 10,000 ETH at start.
export const fundedKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

export async function startHardhat() {
  const port = await freePort();
  const cli = require.resolve("hardhat/internal/cli/cli.js");
  const project = new URL(".", import.meta.url).pathname;  // hardhat.config.cjs is here
  const node = spawn(process.execPath, [cli, "node", "--hostname", "127.0.0.1", "--port", String(port)],
    { cwd: project, stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" } });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("hardhat node did not start in 60 s")), 60000);
    createInterface({ input: node.stdout }).on("line", (l) => {
      if (l.includes("Started HTTP")) { clearTimeout(timer); resolve(); }
    });
    node.once("exit", (code) => reject(new Error(`hardhat node exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async (method, params = []) => {
    const r = await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) })).json();
    if (r.error) throw new Error(`${method}: ${r.error.message}`);
    return r.result;
  };
  return {
    url, rpc,
    async stop() {
      const exited = new Promise((r) => node.once("exit", r));
      node.kill("SIGTERM");
      await exited;
    },
  };
}

// Compiles Solidity sources ({"Name.sol": text}) and returns {Name: {abi, bytecode}}.
export function compile(sources) {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\\n"));
  const contracts = {};
  for (const file of Object.values(out.contracts))
    for (const [name, c] of Object.entries(file))
      contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return contracts;
}

export function executorSource() {
  return readFileSync(new URL("../../plugins/signing/contracts/SignetBatchExecutor.sol", import.meta.url), "utf8");
}

// Solana's SVM behind JSON-RPC. `svm` is the LiteSVM itself, for the test's own setup.
export async function startSolana() {
  const svm = new LiteSVM();
  const decode = getTransactionDecoder();
  const base58 = getBase58Decoder();
  const done = new Map();  // signature -> {err, fee}
  const handle = (method, params) => {
    switch (method) {
      case "getLatestBlockhash":
        return { context: { slot: 1 }, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 150 } };
      case "sendTransaction": {
        const bytes = Buffer.from(params[0], params[1]?.encoding === "base64" ? "base64" : "base64");
        const tx = decode.decode(bytes);
        const signature = base58.decode(bytes.subarray(1, 65));
        const result = svm.sendTransaction(tx);
        if (typeof result.err === "function") {  // a FailedTransactionMetadata: the preflight fails
          const meta = result.meta();
          throw Object.assign(new Error(`Transaction simulation failed: ${String(result.err())}`), {
            code: -32002, data: { err: String(result.err()), logs: meta.logs() } });
        }
        done.set(signature, { err: null, fee: 5000 * bytes[0] });
        return signature;
      }
      case "getSignatureStatuses":
        return { context: { slot: 1 }, value: params[0].map((s) => done.has(s)
          ? { slot: 1, confirmations: null, err: done.get(s).err, confirmationStatus: "confirmed" } : null) };
      case "getTransaction": {
        const t = done.get(params[0]);
        return t ? { slot: 1, meta: { err: t.err, fee: t.fee } } : null;
      }
      default:
        throw Object.assign(new Error(`method ${method} is not served here`), { code: -32601 });
    }
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      const call = JSON.parse(body);
      let reply;
      try {
        reply = { jsonrpc: "2.0", id: call.id, result: handle(call.method, call.params ?? []) };
      } catch (e) {
        reply = { jsonrpc: "2.0", id: call.id, error: { code: e.code ?? -32000, message: e.message, data: e.data } };
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    svm, url: `http://127.0.0.1:${server.address().port}`,
    stop: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}
