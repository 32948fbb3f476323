// The Solana side of chains.mjs served alone, for the C++ gateway tests
// (tests/support/solana_node.hpp starts it): the first line printed is
//   solana rpc http://127.0.0.1:PORT control http://127.0.0.1:PORT
// or, when it cannot run here, "unavailable: WHY" (exit 3). The control server takes the test's
// own calls as JSON-RPC: airdrop [address, lamports], balance [address], advance [blocks],
// pause, resume, dropTransactions [bool], landFailures [bool], statusCalls [signature],
// landed [signature], queued. It exits when its standard input closes.
const unavailable = (why) => { console.log(`unavailable: ${why}`); process.exit(3); };
const major = Number(process.versions.node.split(".")[0]);
if (major < 20) unavailable(`Node ${process.versions.node}; litesvm needs Node 20 (scripts/test.sh installs it)`);
let startSolana, serveJsonRpc;
try {
  ({ startSolana, serveJsonRpc } = await import("./chains.mjs"));
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
const server = await serveJsonRpc((method, params) => {
  const fn = control[method];
  if (!fn) throw new Error(`no control method ${method}`);
  return fn(params);
});
console.log(`solana rpc ${solana.url} control ${server.url}`);
process.stdin.on("end", async () => {
  await server.stop();
  await solana.stop();
  process.exit(0);
});
process.stdin.resume();
