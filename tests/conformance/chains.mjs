// Real chains for the broadcast tests, on loopback: Hardhat's EVM node (chain id 11155111,
// Prague, so EIP-7702 applies) with contracts compiled by solc-js, and Solana's SVM from
// litesvm behind the JSON-RPC methods a gateway uses (getLatestBlockhash, sendTransaction with
// its preflight, getSignatureStatuses, getBlockHeight, getTransaction, getBalance,
// getTokenAccountsByOwner, and batches of them), with blocks, slots,
// confirmation levels and blockhash expiry as a cluster has them. No validator can run here;
// litesvm runs the transactions for real. solana_rpc.mjs serves the Solana side alone for the
// C++ gateway tests.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import solc from "solc";
import { LiteSVM } from "litesvm";
import { getBase58Decoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getTokenDecoder } from "@solana-program/token";

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

// Compiles Solidity sources ({"Name.sol": text}) and returns {Name: {abi, bytecode}}, for every
// contract the sources define or import.
export function compile(sources) {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  // Imports ("@openzeppelin/contracts/…") are read from the packages the lock file pins.
  const findImports = (path) => {
    try { return { contents: readFileSync(require.resolve(path), "utf8") }; } catch (e) { return { error: e.message }; }
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\\n"));
  const contracts = {};
  for (const file of Object.values(out.contracts))
    for (const [name, c] of Object.entries(file))
      contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return contracts;
}

// A new wallet with one account of `format` (Ethereum or Solana), through the SDK client `api`;
// its address.
export async function newWalletAccount(api, name, format = "ADDRESS_FORMAT_ETHEREUM") {
  const solana = format === "ADDRESS_FORMAT_SOLANA";
  const w = await api.createWallet({ walletName: name, accounts: [{ curve: solana ? "CURVE_ED25519" : "CURVE_SECP256K1",
    pathFormat: "PATH_FORMAT_BIP32", path: solana ? "m/44'/501'/0'/0'" : "m/44'/60'/0'/0/0", addressFormat: format }] });
  return w.addresses[0];
}

export function executorSource() {
  return readFileSync(new URL("../../plugins/signing/contracts/SignetBatchExecutor.sol", import.meta.url), "utf8");
}

// Solana's TransactionError and InstructionError variants without fields, in their enums' order
// (litesvm hands the enum's number; the JSON-RPC API names the variant).
const transactionErrors = ["AccountInUse", "AccountLoadedTwice", "AccountNotFound",
  "ProgramAccountNotFound", "InsufficientFundsForFee", "InvalidAccountForFee", "AlreadyProcessed",
  "BlockhashNotFound", "CallChainTooDeep", "MissingSignatureForFee", "InvalidAccountIndex",
  "SignatureFailure", "InvalidProgramForExecution", "SanitizeFailure", "ClusterMaintenance",
  "AccountBorrowOutstanding", "WouldExceedMaxBlockCostLimit", "UnsupportedVersion",
  "InvalidWritableAccount", "WouldExceedMaxAccountCostLimit", "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks", "AddressLookupTableNotFound", "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData", "InvalidAddressLookupTableIndex", "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit", "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded", "ResanitizationNeeded", "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction", "ProgramCacheHitMaxLimit", "CommitCancelled"];
const instructionErrors = ["GenericError", "InvalidArgument", "InvalidInstructionData",
  "InvalidAccountData", "AccountDataTooSmall", "InsufficientFunds", "IncorrectProgramId",
  "MissingRequiredSignature", "AccountAlreadyInitialized", "UninitializedAccount",
  "UnbalancedInstruction", "ModifiedProgramId", "ExternalAccountLamportSpend",
  "ExternalAccountDataModified", "ReadonlyLamportChange", "ReadonlyDataModified",
  "DuplicateAccountIndex", "ExecutableModified", "RentEpochModified", "NotEnoughAccountKeys",
  "AccountDataSizeChanged", "AccountNotExecutable", "AccountBorrowFailed",
  "AccountBorrowOutstanding", "DuplicateAccountOutOfSync", "InvalidError",
  "ExecutableDataModified", "ExecutableLamportChange", "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId", "CallDepth", "MissingAccount", "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded", "InvalidSeeds", "InvalidRealloc", "ComputationalBudgetExceeded",
  "PrivilegeEscalation", "ProgramEnvironmentSetupFailure", "ProgramFailedToComplete",
  "ProgramFailedToCompile", "Immutable", "IncorrectAuthority", "AccountNotRentExempt",
  "InvalidAccountOwner", "ArithmeticOverflow", "UnsupportedSysvar", "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded", "MaxAccountsExceeded", "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits"];

// A litesvm error as the JSON-RPC API writes a TransactionError: "BlockhashNotFound",
// {"InstructionError": [0, {"Custom": 1}]}, {"InsufficientFundsForRent": {"account_index": 1}}.
export function rpcTransactionError(err) {
  if (typeof err === "number") return transactionErrors[err] ?? `TransactionError${err}`;
  const instruction = (e) => typeof e === "number" ? instructionErrors[e] ?? `InstructionError${e}`
    : e.constructor.name === "InstructionErrorCustom" ? { Custom: e.code } : { BorshIoError: e.msg };
  switch (err.constructor.name) {
    case "TransactionErrorInstructionError": return { InstructionError: [err.index, instruction(err.err())] };
    case "TransactionErrorDuplicateInstruction": return { DuplicateInstruction: err.index };
    case "TransactionErrorInsufficientFundsForRent": return { InsufficientFundsForRent: { account_index: err.accountIndex } };
    default: return { [err.constructor.name.replace(/^TransactionError/, "")]: { account_index: err.accountIndex } };
  }
}

// Solana's SVM behind JSON-RPC, as a cluster behaves to a client. `svm` is the LiteSVM itself,
// for the test's own setup.
// - Blocks: one every `blockMs` (and on demand, advance(n)), each with a new blockhash valid for
//   150 blocks; slots run ahead of block heights, as every fourth leader slot is skipped.
// - sendTransaction: a blockhash that expired or was never issued is refused as the node's
//   preflight refuses it (BlockhashNotFound), and so is a transaction whose simulation fails;
//   otherwise the transaction is queued and lands in the next block, where it runs for real:
//   it may fail there (the fee is still paid), as it does when the bank changed after preflight.
//   setLandFailures(true) skips the preflight simulation, so that a failing transaction lands and
//   fails; setDropTransactions(true) accepts transactions and never includes them (a leader that
//   dropped them), so that their blockhash expires.
// - getSignatureStatuses: "processed" in its block, "confirmed" once a later block is built on
//   it, "finalized" (confirmations null) 32 blocks later; getBlockHeight and getSlot; getTransaction
//   once confirmed, with the fee paid.
// - getSignaturesForAddress, getBlock, and getTransaction's balances before and after (lamports
//   and SPL tokens) with its keys, as transaction histories read them.
// - getBalance; getTokenAccountsByOwner (a mint or programId filter, jsonParsed) over the SPL
//   Token program's accounts, decoded by @solana-program/token. litesvm cannot list accounts, so
//   the accounts looked at are those of every transaction that ran: sent here, or run by the test
//   with execute(tx).
export async function startSolana({ blockMs = 50 } = {}) {
  // litesvm itself accepts its latest blockhash only; the blockhashes' 150 blocks are kept here.
  const svm = new LiteSVM().withBlockhashCheck(false);
  const decode = getTransactionDecoder();
  const decodeMessage = getCompiledTransactionMessageDecoder();
  const base58 = getBase58Decoder();
  let slot = 1, height = 1;
  const validUntil = new Map([[svm.latestBlockhash(), height + 150]]);  // blockhash -> last valid height
  let queued = [];                // transactions waiting for the next block
  const landed = new Map();       // signature -> {slot, height, err, fee}
  const statusCalls = new Map();  // signature -> getSignatureStatuses calls that asked about it
  let dropTransactions = false, landFailures = false;
  const seen = new Set();          // every account of a transaction that ran
  const byAddress = new Map();     // account -> signatures of the transactions it was in, in order
  const blocks = new Map([[slot, { blockhash: svm.latestBlockhash(), height, parentSlot: 0, time: Date.now() }]]);
  const tokenBalances = (keys) => keys.flatMap((pubkey, accountIndex) => {
    const account = svm.getAccount(pubkey);
    if (!account?.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== 165) return [];
    const token = getTokenDecoder().decode(account.data);
    const { decimals } = getMintDecoder().decode(svm.getAccount(token.mint).data);
    const amount = token.amount.toString();
    return [{ accountIndex, mint: token.mint, owner: token.owner, programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount, decimals, uiAmount: Number(amount) / 10 ** decimals,
        uiAmountString: String(Number(amount) / 10 ** decimals) } }];
  });
  // Runs a transaction, and keeps what getTransaction reports of it: its keys, as signers and
  // writable, and the balances before and after.
  const run = (tx) => {
    const message = decodeMessage.decode(tx.messageBytes);
    const keys = message.staticAccounts;
    const { numSignerAccounts: signers, numReadonlySignerAccounts: readonlySigners,
      numReadonlyNonSignerAccounts: readonlyOthers } = message.header;
    for (const a of keys) seen.add(a);
    const balances = () => keys.map((k) => Number(svm.getBalance(k) ?? 0n));
    const pre = { balances: balances(), tokens: tokenBalances(keys) };
    const result = svm.sendTransaction(tx);
    const signature = base58.decode(Object.values(tx.signatures)[0]);
    for (const a of keys) byAddress.set(a, [...(byAddress.get(a) ?? []), signature]);
    const accountKeys = keys.map((pubkey, i) => ({ pubkey, signer: i < signers, source: "transaction",
      writable: i < signers ? i < signers - readonlySigners : i < keys.length - readonlyOthers }));
    return { result, signature, details: { accountKeys, preBalances: pre.balances, preTokenBalances: pre.tokens,
      postBalances: balances(), postTokenBalances: tokenBalances(keys), fee: 5000 * signers } };
  };
  const tokenAccountsOf = (owner, filter) => [...seen].flatMap((pubkey) => {
    const account = svm.getAccount(pubkey);
    if (!account?.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== 165) return [];
    const token = getTokenDecoder().decode(account.data);
    if (token.owner !== owner || (filter.mint && token.mint !== filter.mint) ||
        (filter.programId && filter.programId !== TOKEN_PROGRAM_ADDRESS)) return [];
    const { decimals } = getMintDecoder().decode(svm.getAccount(token.mint).data);
    const amount = token.amount.toString();
    return [{ pubkey, account: { executable: false, lamports: Number(account.lamports), owner: TOKEN_PROGRAM_ADDRESS,
      rentEpoch: 0, space: 165, data: { program: "spl-token", space: 165, parsed: { type: "account", info: {
        isNative: false, mint: token.mint, owner: token.owner, state: "initialized",
        tokenAmount: { amount, decimals, uiAmount: Number(amount) / 10 ** decimals,
          uiAmountString: String(Number(amount) / 10 ** decimals) } } } } } }];
  });

  const produceBlock = () => {
    slot += height % 4 === 0 ? 2 : 1;  // a skipped leader slot now and then
    height += 1;
    svm.warpToSlot(BigInt(slot));
    for (const { tx, signature } of queued) {
      const { result, details } = run(tx);
      const failed = typeof result.err === "function";
      // The base fee per signature, paid whether it failed or not.
      landed.set(signature, { slot, height, err: failed ? rpcTransactionError(result.err()) : null, ...details });
    }
    queued = [];
    const parentSlot = [...blocks.keys()].at(-1);
    svm.expireBlockhash();
    validUntil.set(svm.latestBlockhash(), height + 150);
    blocks.set(slot, { blockhash: svm.latestBlockhash(), height, parentSlot, time: Date.now() });
  };
  const level = (t) => height - t.height >= 32 ? "finalized" : height > t.height ? "confirmed" : "processed";
  // What a node's preflight message says of an error: "Error processing Instruction 0: custom
  // program error: 0x1", or the variant's name.
  const describe = (err) => {
    const [index, cause] = err.InstructionError ?? [];
    if (cause === undefined) return typeof err === "string" ? err : JSON.stringify(err);
    return `Error processing Instruction ${index}: ${cause.Custom !== undefined
      ? `custom program error: 0x${cause.Custom.toString(16)}` : JSON.stringify(cause)}`;
  };
  const preflightError = (message, err, logs = []) =>
    Object.assign(new Error(`Transaction simulation failed: ${message}`), { code: -32002, data: { err, logs } });

  const handle = (method, params) => {
    switch (method) {
      case "getLatestBlockhash":
        return { context: { slot }, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: height + 150 } };
      case "getBlockHeight":
        return height;
      case "getSlot": {
        // "finalized": the slot of the block 32 below the newest.
        if (params[0]?.commitment !== "finalized") return slot;
        let finalized = 0;
        for (const [s, b] of blocks) if (b.height <= height - 32) finalized = s;
        return finalized;
      }
      case "sendTransaction": {
        const bytes = Buffer.from(params[0], params[1]?.encoding === "base58" ? undefined : "base64");
        const tx = decode.decode(bytes);
        const signature = base58.decode(bytes.subarray(1, 65));
        if (landed.has(signature) || queued.some((q) => q.signature === signature))
          throw Object.assign(new Error("Transaction simulation failed: This transaction has already been processed"),
            { code: -32002, data: { err: "AlreadyProcessed", logs: [] } });
        const lastValid = validUntil.get(decodeMessage.decode(tx.messageBytes).lifetimeToken);
        if (lastValid === undefined || lastValid < height)
          throw preflightError("Blockhash not found", "BlockhashNotFound");
        if (!params[1]?.skipPreflight && !landFailures) {
          const simulated = svm.simulateTransaction(tx);
          if (typeof simulated.err === "function") {
            const err = rpcTransactionError(simulated.err());
            throw preflightError(describe(err), err, simulated.meta().logs());
          }
        }
        if (!dropTransactions) queued.push({ tx, signature, bytes });
        return signature;
      }
      case "getSignatureStatuses":
        return { context: { slot }, value: params[0].map((s) => {
          statusCalls.set(s, (statusCalls.get(s) ?? 0) + 1);
          const t = landed.get(s);
          if (!t) return null;
          const status = level(t);
          return { slot: t.slot, confirmations: status === "finalized" ? null : height - t.height, err: t.err,
            status: t.err ? { Err: t.err } : { Ok: null }, confirmationStatus: status };
        }) };
      case "getTransaction": {
        const t = landed.get(params[0]);
        return t && level(t) !== "processed" ? { slot: t.slot, blockTime: Math.floor(blocks.get(t.slot).time / 1000),
          meta: { err: t.err, fee: t.fee, status: t.err ? { Err: t.err } : { Ok: null },
            preBalances: t.preBalances, postBalances: t.postBalances,
            preTokenBalances: t.preTokenBalances, postTokenBalances: t.postTokenBalances },
          transaction: { signatures: [params[0]], message: { accountKeys: t.accountKeys } } } : null;
      }
      case "getSignaturesForAddress": {
        // Newest first, at the commitment asked (confirmed by default), between `before` and `until`.
        const { limit = 1000, before, until, commitment = "confirmed" } = params[1] ?? {};
        const ranks = ["processed", "confirmed", "finalized"];
        const list = [...(byAddress.get(params[0]) ?? [])].reverse().filter((s) => landed.has(s));
        let start = before ? list.indexOf(before) + 1 : 0;
        let end = until ? list.indexOf(until) : list.length;
        if (end < 0) end = list.length;
        return list.slice(start, end).filter((s) => ranks.indexOf(level(landed.get(s))) >= ranks.indexOf(commitment))
          .slice(0, limit).map((signature) => {
            const t = landed.get(signature);
            return { signature, slot: t.slot, err: t.err, memo: null, blockTime: Math.floor(blocks.get(t.slot).time / 1000),
              confirmationStatus: level(t) };
          });
      }
      case "getBlock": {
        const b = blocks.get(params[0]);
        if (!b) throw Object.assign(new Error(`Slot ${params[0]} was skipped, or missing`), { code: -32007 });
        return { blockhash: b.blockhash, blockHeight: b.height, blockTime: Math.floor(b.time / 1000),
          parentSlot: b.parentSlot, previousBlockhash: blocks.get(b.parentSlot)?.blockhash ?? b.blockhash };
      }
      case "getBalance":
        return { context: { slot }, value: Number(svm.getBalance(params[0]) ?? 0n) };
      case "getTokenAccountsByOwner":
        if (params[2]?.encoding !== "jsonParsed")
          throw Object.assign(new Error("only jsonParsed is served here"), { code: -32602 });
        return { context: { slot }, value: tokenAccountsOf(params[0], params[1] ?? {}) };
      default:
        throw Object.assign(new Error(`method ${method} is not served here`), { code: -32601 });
    }
  };
  const server = await serveJsonRpc(handle);
  let timer = setInterval(produceBlock, blockMs);
  return {
    svm, url: server.url,
    advance(blocks = 1) { for (let i = 0; i < blocks; ++i) produceBlock(); },
    // Runs a transaction at once, outside any block, as the test's own setup; throws if it fails.
    execute(tx) {
      const { result, signature, details } = run(tx);
      if (typeof result.err === "function") throw new Error(`transaction failed: ${result.meta().logs().join("\n")}`);
      landed.set(signature, { slot, height, err: null, ...details });  // in the newest block
      svm.expireBlockhash();
      validUntil.set(svm.latestBlockhash(), height + 150);
      return signature;
    },
    // Blocks only on advance() while paused, so that a test sees each confirmation level.
    pause() { clearInterval(timer); },
    resume() { clearInterval(timer); timer = setInterval(produceBlock, blockMs); },
    setDropTransactions(on) { dropTransactions = on; },
    setLandFailures(on) { landFailures = on; },
    height: () => height,
    queued: () => queued.length,
    statusCalls: (signature) => statusCalls.get(signature) ?? 0,
    landed: (signature) => landed.get(signature) ?? null,
    stop: () => { clearInterval(timer); return server.stop(); },
  };
}

// A JSON-RPC 2.0 server on a free loopback port: `handle(method, params)` returns the result or
// throws an error with its code (and data). A batch (an array of calls) is answered with an
// array, last call first, since a node may answer a batch in any order.
export async function serveJsonRpc(handle) {
  const answer = (call) => {
    try {
      return { jsonrpc: "2.0", id: call.id, result: handle(call.method, call.params ?? []) };
    } catch (e) {
      return { jsonrpc: "2.0", id: call.id, error: { code: e.code ?? -32000, message: e.message, data: e.data } };
    }
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      const call = JSON.parse(body);
      const reply = Array.isArray(call) ? call.map(answer).reverse() : answer(call);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}
