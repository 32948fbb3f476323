// The Solana side of chains.mjs served alone, for the C++ gateway tests
// (tests/support/solana_node.hpp starts it): the first line printed is
//   solana rpc http://127.0.0.1:PORT control http://127.0.0.1:PORT
// or, when it cannot run here, "unavailable: WHY" (exit 3). The control server takes the test's
// own calls as JSON-RPC: airdrop [address, lamports], balance [address], advance [blocks],
// pause, resume, dropTransactions [bool], landFailures [bool], statusCalls [signature],
// landed [signature], queued. It exits when its standard input closes.
import { createServer } from "node:http";

const unavailable = (why) => { console.log(`unavailable: ${why}`); process.exit(3); };
const major = Number(process.versions.node.split(".")[0]);
if (major < 20) unavailable(`Node ${process.versions.node}; litesvm needs Node 20 (scripts/test.sh installs it)`);
let startSolana;
try {
  ({ startSolana } = await import("./chains.mjs"));
} catch (e) {
  unavailable(`${e.message} (run npm ci in tests/conformance)`);
}

const solana = await startSolana({ blockMs: Number(process.env.SOLANA_BLOCK_MS ?? 50) });
const control = {
  airdrop: ([address, lamports]) => { solana.svm.airdrop(address, BigInt(lamports)); return true; },
  balance: ([address]) => String(solana.svm.getBalance(address) ?? 0n),
  advance: ([blocks]) => { solana.advance(blocks); return solana.height(); },
  pause: () => { solana.pause(); return true; },
  resume: () => { solana.resume(); return true; },
  dropTransactions: ([on]) => { solana.setDropTransactions(on); return true; },
  landFailures: ([on]) => { solana.setLandFailures(on); return true; },
  statusCalls: ([signature]) => solana.statusCalls(signature),
  landed: ([signature]) => solana.landed(signature),
  queued: () => solana.queued(),
};
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    const call = JSON.parse(body);
    let reply;
    try {
      const fn = control[call.method];
      if (!fn) throw new Error(`no control method ${call.method}`);
      reply = { jsonrpc: "2.0", id: call.id, result: fn(call.params ?? []) };
    } catch (e) {
      reply = { jsonrpc: "2.0", id: call.id, error: { code: -32000, message: e.message } };
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
console.log(`solana rpc ${solana.url} control http://127.0.0.1:${server.address().port}`);
process.stdin.on("end", async () => {
  server.closeAllConnections();
  server.close();
  await solana.stop();
  process.exit(0);
});
process.stdin.resume();
