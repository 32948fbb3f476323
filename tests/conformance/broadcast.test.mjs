// Sending transactions through Signet with @turnkey/sdk-server, against real chains on loopback
// (chains.mjs): Hardhat's EVM for Ethereum (EIP-1559 transfers, batches through EIP-7702
// delegation to contracts/SignetBatchExecutor.sol deployed here, sponsored sends paid by the
// gateway's sponsor key, reverts with their reasons, a restart while a transaction waits for
// its block) and litesvm's SVM for Solana (a transfer, and one whose fees the sponsor pays).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { createPublicClient, createWalletClient, encodeFunctionData, http as viemHttp,
  parseEther, getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Keypair, PublicKey, SystemProgram, Transaction, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { apiClientFor, generateKey, startSignet, until } from "./harness.mjs";
import { caip2, chainId, compile, executorSource, fundedKey, newWalletAccount, startHardhat, startSolana } from "./chains.mjs";

const rootKey = generateKey("p256");
const solanaChain = "solana:devnet";
let hardhat, solana, signet, api, chain, wallet, executor, target, eth, sol, blackHole, priceSource;
// The ETH price comes from a JSON document, as a price feed's would, with more digits than a
// micro-dollar; Solana's is fixed in the settings.
const ethPrice = "3000.123456789";

const targetSource = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract Target {
  uint256 public count;
  mapping(address => uint256) public calls;
  function bump() external payable { count += 1; calls[msg.sender] += 1; }
  function refuse(string calldata why) external pure { revert(why); }
}`;

const viemChain = (url) => ({ id: chainId, name: "hardhat", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [url] } } });


// An activity @turnkey/sdk-server has no method for (eth_send_raw_transaction, and
// upsert_gas_usage_config, which the hosted service sets in its dashboard), stamped as the SDK
// stamps; its result.
async function submit(path, type, parameters) {
  const body = JSON.stringify({ type, timestampMs: String(Date.now()), organizationId: signet.ids.organizationId, parameters });
  const stamper = new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex });
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body);
  const reply = await (await fetch(`${signet.baseUrl}/public/v1/submit/${path}`,
    { method: "POST", headers: { [stampHeaderName]: stampHeaderValue }, body })).json();
  if (reply.activity?.status !== "ACTIVITY_STATUS_COMPLETED") throw new Error(JSON.stringify(reply));
  return Object.values(reply.activity.result)[0];
}
const gasLimits = (org, sub) => submit("upsert_gas_usage_config", "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG",
  { orgWindowLimitUsd: org, subOrgWindowLimitUsd: sub, windowDurationMinutes: "60" });

// What @turnkey/sdk-server returns for an activity that failed: its failure, as text.
function failure(r) {
  assert.equal(r.activity?.status, "ACTIVITY_STATUS_FAILED", JSON.stringify(r));
  return JSON.stringify(r.activity.failure);
}

const statusOf = (id) => api.getSendTransactionStatus({ sendTransactionStatusId: id });
const settled = (id) => until(async () => {
  const s = await statusOf(id);
  return ["INCLUDED", "FAILED"].includes(s.txStatus) ? s : null;
});

const bump = () => encodeFunctionData({ abi: target.abi, functionName: "bump" });
const refuse = (why) => encodeFunctionData({ abi: target.abi, functionName: "refuse", args: [why] });

const newAccount = (name, format) => newWalletAccount(api, name, format);

before(async () => {
  hardhat = await startHardhat();
  solana = await startSolana();
  priceSource = createHttpServer((req, res) => res.writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ data: { base: "ETH", currency: "USD", amount: ethPrice } })));
  await new Promise((r) => priceSource.listen(0, "127.0.0.1", r));
  // A node that takes connections and never answers.
  blackHole = createServer(() => {});
  await new Promise((r) => blackHole.listen(0, "127.0.0.1", r));
  chain = createPublicClient({ chain: viemChain(hardhat.url), transport: viemHttp() });
  wallet = createWalletClient({ account: privateKeyToAccount(fundedKey), chain: viemChain(hardhat.url), transport: viemHttp() });
  const contracts = compile({ "SignetBatchExecutor.sol": executorSource(), "Target.sol": targetSource });
  const deploy = async (c) => (await chain.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode }) })).contractAddress;
  executor = await deploy(contracts.SignetBatchExecutor);
  target = { address: await deploy(contracts.Target), abi: contracts.Target.abi };

  signet = await startSignet(rootKey, { signing: { broadcast: {
    rpc: { [caip2]: hardhat.url, [solanaChain]: solana.url,
           "eip155:84532": `http://127.0.0.1:${blackHole.address().port}` },
    allowInsecureUrls: true, pollIntervalMs: 100, timeoutSeconds: 2, giveUpSeconds: 6,
    batchExecutor: { [caip2]: executor },
    usdPrice: { [solanaChain]: "150" },
    priceSource: { [caip2]: { url: `http://127.0.0.1:${priceSource.address().port}/v2/prices/ETH-USD/spot`,
                              field: "data.amount", cacheSeconds: 60 } },
  } } });
  api = apiClientFor(signet, rootKey, signet.ids.organizationId);
  eth = await newAccount("eth");
  await chain.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: eth, value: parseEther("10") }) });
  sol = await newAccount("sol", "ADDRESS_FORMAT_SOLANA");
  solana.svm.airdrop(sol, 10n * BigInt(LAMPORTS_PER_SOL));
});

after(async () => {
  assert.equal(await signet.stop(), 0);
  await hardhat.stop();
  await solana.stop();
  blackHole.close();
  priceSource.close();
});

test("an EIP-1559 transfer with nonce, gas and fees filled from the node", async () => {
  const to = "0x000000000000000000000000000000000000bEEF";
  const { sendTransactionStatusId } = await api.ethSendTransaction({ from: eth, caip2, calls: [{ to, value: "12345" }] });
  const s = await settled(sendTransactionStatusId);
  assert.equal(s.txStatus, "INCLUDED", JSON.stringify(s));
  const receipt = await chain.getTransactionReceipt({ hash: s.eth.txHash });
  assert.equal(receipt.type, "eip1559");
  assert.equal(getAddress(receipt.from), getAddress(eth));
  assert.equal(await chain.getBalance({ address: to }), 12345n);
});

test("a batch runs through EIP-7702 delegation to the batch executor, in one transaction", async () => {
  const before = await chain.readContract({ ...target, functionName: "count" });
  const { sendTransactionStatusId } = await api.ethSendTransaction({ from: eth, caip2,
    calls: [{ to: target.address, data: bump() }, { to: target.address, data: bump(), value: "7" }] });
  const s = await settled(sendTransactionStatusId);
  assert.equal(s.txStatus, "INCLUDED", JSON.stringify(s));
  assert.equal(await chain.readContract({ ...target, functionName: "count" }), before + 2n);
  assert.equal(await chain.readContract({ ...target, functionName: "calls", args: [eth] }), 2n);
  assert.equal(await chain.getCode({ address: eth }), `0xef0100${executor.slice(2).toLowerCase()}`);
  assert.equal((await chain.getTransactionReceipt({ hash: s.eth.txHash })).type, "eip7702");
  const nonces = await api.getNonces({ address: eth, caip2, nonce: true, gasStationNonce: true });
  assert.equal(nonces.gasStationNonce, "1");
  assert.equal(nonces.nonce, String(await chain.getTransactionCount({ address: eth })));
});

test("a sponsored send is paid by the sponsor, counted in USD, and refused past its limit", async () => {
  const { address: sponsor } = signet.command(["signing", "create-sponsor", "--family", "eip155"]);
  await chain.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: sponsor, value: parseEther("5") }) });
  // Without a configuration nothing is sponsored.
  assert.match(failure(await api.ethSendTransaction({ from: eth, caip2, sponsor: true,
    calls: [{ to: target.address, data: bump() }] })), /upsert_gas_usage_config/);
  await gasLimits("1000", "100");
  const user = await newAccount("unfunded");  // holds nothing: it cannot pay for gas
  const sponsorBefore = await chain.getBalance({ address: sponsor });
  // A nonce and fees in a sponsored request are not the sponsor's: they are left aside.
  const { sendTransactionStatusId } = await api.ethSendTransaction({ from: user, caip2, sponsor: true,
    nonce: "999", maxFeePerGas: "1", maxPriorityFeePerGas: "1",
    calls: [{ to: target.address, data: bump() }, { to: target.address, data: bump() }] });
  const s = await settled(sendTransactionStatusId);
  assert.equal(s.txStatus, "INCLUDED", JSON.stringify(s));
  const receipt = await chain.getTransactionReceipt({ hash: s.eth.txHash });
  assert.equal(getAddress(receipt.from), getAddress(sponsor));
  assert.equal(await chain.readContract({ ...target, functionName: "calls", args: [user] }), 2n);
  assert.equal(await chain.getBalance({ address: user }), 0n);
  const paid = sponsorBefore - await chain.getBalance({ address: sponsor });
  assert.equal(paid, receipt.gasUsed * receipt.effectiveGasPrice);
  const usage = await api.getGasUsage({});
  assert.equal(usage.windowDurationMinutes, 60);
  assert.equal(usage.windowLimitUsd, "1000");
  const expected = Number(paid) / 1e18 * 3000.123456;  // the price cut to micro-dollars
  assert.ok(Math.abs(Number(usage.usageUsd) - expected) < 1e-5, `${usage.usageUsd} vs ${expected}`);

  // A limit below what is used: the next sponsored send fails naming it, and nothing is sent.
  await gasLimits("0.000001", "0");
  assert.match(failure(await api.ethSendTransaction({ from: user, caip2, sponsor: true,
    calls: [{ to: target.address, data: bump() }] })), /orgWindowLimitUsd/);
});

test("a reverting call is FAILED with its revert reason, estimated or mined", async () => {
  const estimated = await api.ethSendTransaction({ from: eth, caip2, calls: [{ to: target.address, data: refuse("not today") }] });
  let s = await settled(estimated.sendTransactionStatusId);
  assert.equal(s.txStatus, "FAILED");
  assert.match(s.txError, /not today/);
  const inner = s.error.revertChain.at(-1);
  assert.equal(inner.errorType, "native");
  assert.equal(inner.native.nativeType, "error_string");
  assert.equal(inner.native.message, "not today");
  // With its gas given, it is mined and reverts on chain; the reason comes from replaying it.
  const mined = await api.ethSendTransaction({ from: eth, caip2, gasLimit: "100000",
    calls: [{ to: target.address, data: bump() }, { to: target.address, data: refuse("on chain") }] });
  s = await settled(mined.sendTransactionStatusId);
  assert.equal(s.txStatus, "FAILED", JSON.stringify(s));
  assert.equal((await chain.getTransactionReceipt({ hash: s.eth.txHash })).status, "reverted");
  assert.equal(s.error.revertChain[0].errorType, "custom");
  assert.equal(s.error.revertChain[0].custom.errorName, "CallFailed");
  assert.equal(JSON.parse(s.error.revertChain[0].custom.paramsJson).index, 1);
  assert.equal(s.error.revertChain.at(-1).native.message, "on chain");
});

test("a gateway restarted while its transaction waits for a block still sees it INCLUDED", async () => {
  await hardhat.rpc("evm_setAutomine", [false]);
  try {
    const { sendTransactionStatusId: id } = await api.ethSendTransaction({ from: eth, caip2,
      calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: "1" }] });
    await until(async () => (await statusOf(id)).txStatus === "BROADCASTING");
    await signet.restart();
    api = apiClientFor(signet, rootKey, signet.ids.organizationId);
    assert.equal((await statusOf(id)).txStatus, "BROADCASTING");
    await hardhat.rpc("evm_mine");
    assert.equal((await settled(id)).txStatus, "INCLUDED");
  } finally {
    await hardhat.rpc("evm_setAutomine", [true]);
  }
});

test("undelegation, a raw signed transaction, and bad input named by its field", async () => {
  const u = await api.ethUndelegate7702({ from: eth, caip2 });
  assert.equal((await settled(u.sendTransactionStatusId)).txStatus, "INCLUDED");
  assert.equal(await chain.getCode({ address: eth }), undefined);

  const raw = await wallet.signTransaction(await wallet.prepareTransactionRequest({ to: eth, value: 1n }));
  const sent = await submit("eth_send_raw_transaction", "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION",
    { signedTransaction: raw, caip2 });
  assert.equal((await chain.waitForTransactionReceipt({ hash: sent.transactionHash })).status, "success");

  const call = { to: target.address, data: bump() };
  await assert.rejects(api.ethSendTransaction({ from: eth, caip2, calls: Array(51).fill(call) }), /parameters\.calls/);
  await assert.rejects(api.ethSendTransaction({ from: eth, caip2: "eip155:1", calls: [call] }), /parameters\.caip2/);
  await assert.rejects(api.ethSendTransaction({ from: getAddress(privateKeyToAccount(fundedKey).address), caip2, calls: [call] }),
    /parameters\.from/);
  await assert.rejects(api.ethSendTransaction({ from: eth, caip2, calls: [{ to: "0x1234" }] }), /parameters\.calls\[0\]\.to/);
});

test("policies read a send's eth.tx: a denied recipient is refused and nothing is sent", async () => {
  const key = generateKey("p256");
  const { userIds } = await api.createUsers({ users: [{ userName: "sender", userTags: [], authenticators: [],
    oauthProviders: [], apiKeys: [{ apiKeyName: "sender", publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }] }] });
  const sender = apiClientFor(signet, key, signet.ids.organizationId);
  await api.createPolicy({ policyName: "sender sends", effect: "EFFECT_ALLOW", notes: "",
    condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
    consensus: `approvers.any(user, user.id == '${userIds[0]}')` });
  const denied = "0x00000000000000000000000000000000000d0d0d";
  await api.createPolicy({ policyName: "never to d0d0d", effect: "EFFECT_DENY", notes: "",
    condition: `eth.tx.to == '${denied}'` });
  const allowed = await sender.ethSendTransaction({ from: eth, caip2, calls: [{ to: "0x00000000000000000000000000000000000a0a0a", value: "1" }] });
  assert.equal((await settled(allowed.sendTransactionStatusId)).txStatus, "INCLUDED");
  assert.match(failure(await sender.ethSendTransaction({ from: eth, caip2, calls: [{ to: denied, value: "1" }] })),
    /never to d0d0d/);
  assert.equal(await chain.getBalance({ address: denied }), 0n);
});

test("the V1 activities through @turnkey/http: one call at the top of the intent, Solana in base64", async () => {
  const client = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
  const organizationId = signet.ids.organizationId;
  const to = "0x000000000000000000000000000000000000c0c0";
  const eth1 = await client.ethSendTransaction({ type: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION",
    timestampMs: String(Date.now()), organizationId, parameters: { from: eth, caip2, to, value: "99" } });
  const ethId = eth1.activity.result.ethSendTransactionResult.sendTransactionStatusId;
  const ethStatus = await until(async () => {
    const r = await client.getSendTransactionStatus({ organizationId, sendTransactionStatusId: ethId });
    return r.txStatus === "INCLUDED" ? r : null;
  });
  assert.ok(ethStatus.eth.txHash);
  assert.equal(await chain.getBalance({ address: to }), 99n);

  const receiver = Keypair.generate().publicKey;
  const tx = new Transaction({ feePayer: new PublicKey(sol), recentBlockhash: solana.svm.latestBlockhash() });
  tx.add(SystemProgram.transfer({ fromPubkey: new PublicKey(sol), toPubkey: receiver, lamports: LAMPORTS_PER_SOL }));
  const sol1 = await client.solSendTransaction({ type: "ACTIVITY_TYPE_SOL_SEND_TRANSACTION",
    timestampMs: String(Date.now()), organizationId, parameters: {
      unsignedTransaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
      signWith: sol, caip2: solanaChain } });
  const solId = sol1.activity.result.solSendTransactionResult.sendTransactionStatusId;
  assert.equal((await settled(solId)).txStatus, "INCLUDED");
  assert.equal(solana.svm.getBalance(receiver.toBase58()), BigInt(LAMPORTS_PER_SOL));
});

test("a node that does not answer fails the send with that cause", async () => {
  const { sendTransactionStatusId } = await api.ethSendTransaction({ from: eth, caip2: "eip155:84532",
    calls: [{ to: target.address, data: bump() }] });
  const s = await settled(sendTransactionStatusId);
  assert.equal(s.txStatus, "FAILED");
  assert.match(s.txError, /eip155:84532 node.*no answer in time/);
});

test("Solana: a transfer, and a sponsored one whose fees the sponsor pays", async () => {
  const transfer = (from, lamports) => {
    const tx = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: solana.svm.latestBlockhash() });
    tx.add(SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: receiver.publicKey, lamports }));
    return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
  };
  const receiver = Keypair.generate();
  const first = await api.solSendTransaction({ unsignedTransaction: transfer(sol, LAMPORTS_PER_SOL), signWiths: [sol], caip2: solanaChain });
  let s = await settled(first.sendTransactionStatusId);
  assert.equal(s.txStatus, "INCLUDED", JSON.stringify(s));
  assert.ok(s.solana.signature);
  assert.equal(solana.svm.getBalance(receiver.publicKey.toBase58()), BigInt(LAMPORTS_PER_SOL));

  const { address: sponsor } = signet.command(["signing", "create-sponsor", "--family", "solana"]);
  solana.svm.airdrop(sponsor, BigInt(LAMPORTS_PER_SOL));
  await gasLimits("1000", "100");
  const userBefore = solana.svm.getBalance(sol);
  const sponsored = await api.solSendTransaction({ unsignedTransaction: transfer(sol, 1000), signWiths: [sol],
    caip2: solanaChain, sponsor: true });
  s = await settled(sponsored.sendTransactionStatusId);
  assert.equal(s.txStatus, "INCLUDED", JSON.stringify(s));
  assert.equal(userBefore - solana.svm.getBalance(sol), 1000n, "the user paid the amount and no fee");
  assert.equal(solana.svm.getBalance(sponsor), BigInt(LAMPORTS_PER_SOL) - 10000n, "two signatures' fees");

  // Signers that are not the transaction's are refused.
  const other = await newAccount("other sol", "ADDRESS_FORMAT_SOLANA");
  await assert.rejects(api.solSendTransaction({ unsignedTransaction: transfer(sol, 1), signWiths: [other], caip2: solanaChain }),
    /parameters\.signWiths/);
});
