// Balances, supported assets and transaction histories through @turnkey/sdk-server
// (listSupportedAssets, getWalletAddressBalances, listEthTransactionHistory,
// listSolTransactionHistory), read from real chains on loopback (chains.mjs): Hardhat's EVM with an
// OpenZeppelin ERC-20 deployed here, and litesvm's SVM running the SPL Token program. Transfers are
// made outside the gateway, by other accounts, as a deposit would be (and one through it); the
// expected figures come from the chains' own readers (viem's receipts and balanceOf, litesvm's
// accounts).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createPublicClient, createWalletClient, http as viemHttp, parseEther, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { appendTransactionMessageInstructions, createTransactionMessage, generateKeyPairSigner, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners } from "@solana/kit";
import { getCreateAccountInstruction, getTransferSolInstruction } from "@solana-program/system";
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction,
  getInitializeAccount3Instruction, getInitializeMint2Instruction, getMintSize, getMintToInstruction,
  getTokenSize, getTransferInstruction } from "@solana-program/token";
import { PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { apiClientFor, generateKey, startSignet, until } from "./harness.mjs";
import { caip2, chainId, compile, fundedKey, newWalletAccount, startHardhat, startSolana } from "./chains.mjs";

const rootKey = generateKey("p256");
const devnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
let hardhat, solana, signet, api, chain, wallet, dollar, other, mint, payer, priceSource;

const tokenSource = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract TestDollar is ERC20 {
  constructor() ERC20("Test Dollar", "TUSD") { _mint(msg.sender, 1000000 * 10 ** 6); }
  function decimals() public pure override returns (uint8) { return 6; }
}
contract Other is ERC20 {
  constructor() ERC20("Other", "OTH") { _mint(msg.sender, 10 ** 24); }
}`;

const viemChain = (url) => ({ id: chainId, name: "hardhat", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [url] } } });

// A Solana transaction of the test's own, paid and signed by `payer`, run at once.
async function runSolana(instructions) {
  const message = pipe(createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(
      { blockhash: solana.svm.latestBlockhash(), lastValidBlockHeight: 1000000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m));
  return solana.execute(await signTransactionMessageWithSigners(message));
}


const newAccount = (name, format) => newWalletAccount(api, name, format);

before(async () => {
  hardhat = await startHardhat();
  solana = await startSolana();
  chain = createPublicClient({ chain: viemChain(hardhat.url), transport: viemHttp() });
  wallet = createWalletClient({ account: privateKeyToAccount(fundedKey), chain: viemChain(hardhat.url), transport: viemHttp() });
  const contracts = compile({ "Tokens.sol": tokenSource });
  const deploy = async (c) => (await chain.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode }) })).contractAddress;
  dollar = { address: await deploy(contracts.TestDollar), abi: contracts.TestDollar.abi };
  other = { address: await deploy(contracts.Other), abi: contracts.Other.abi };

  payer = await generateKeyPairSigner();
  solana.svm.airdrop(payer.address, 10_000_000_000n);
  mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  await runSolana([
    getCreateAccountInstruction({ payer, newAccount: mint, space, programAddress: TOKEN_PROGRAM_ADDRESS,
      lamports: solana.svm.minimumBalanceForRentExemption(space) }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address })]);

  // The SPL token's price comes from a JSON document, as a price feed's would.
  priceSource = createServer((req, res) => res.writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ data: { amount: "2.4" } })));
  await new Promise((r) => priceSource.listen(0, "127.0.0.1", r));

  signet = await startSignet(rootKey, { signing: { broadcast: {
    rpc: { [caip2]: hardhat.url, "solana:devnet": solana.url },
    allowInsecureUrls: true, timeoutSeconds: 5, pollIntervalMs: 100,
    history: { [caip2]: { fromBlock: "0" }, "solana:devnet": { fromSlot: "0" } },
    usdPrice: { [caip2]: "3000" },
    assets: {
      [caip2]: [
        { contract: dollar.address, symbol: "TUSD", name: "Test Dollar", decimals: 6, stable: true, usdPrice: "1",
          logoUrl: "https://example.com/tusd.png" },
        { contract: other.address, symbol: "OTH", name: "Other", decimals: 18 }],
      "solana:devnet": [
        { mint: mint.address, symbol: "TSPL", name: "Test SPL", decimals: 6,
          priceSource: { url: `http://127.0.0.1:${priceSource.address().port}/price`, field: "data.amount" } }],
    },
  } } });
  api = apiClientFor(signet, rootKey, signet.ids.organizationId);
});

after(async () => {
  assert.equal(await signet.stop(), 0);
  await hardhat.stop();
  await solana.stop();
  priceSource.close();
});

test("list_supported_assets: the chain's native coin, then the configured tokens", async () => {
  const eth = await api.listSupportedAssets({ caip2 });
  assert.deepEqual(eth.assets, [
    { caip19: `${caip2}/slip44:60`, symbol: "ETH", name: "Ether", decimals: 18, stable: false },
    { caip19: `${caip2}/erc20:${dollar.address.toLowerCase()}`, symbol: "TUSD", name: "Test Dollar", decimals: 6,
      logoUrl: "https://example.com/tusd.png", stable: true },
    { caip19: `${caip2}/erc20:${other.address.toLowerCase()}`, symbol: "OTH", name: "Other", decimals: 18, stable: false },
  ]);
  // The human-readable alias is normalized, as the API's description says.
  const sol = await api.listSupportedAssets({ caip2: "solana:devnet" });
  assert.deepEqual(sol.assets.map((a) => a.caip19), [`${devnet}/slip44:501`, `${devnet}/token:${mint.address}`]);
  assert.deepEqual(sol.assets.map((a) => [a.symbol, a.decimals]), [["SOL", 9], ["TSPL", 6]]);
});

test("Ethereum: ether and ERC-20 transfers made by another account show up, zero balances do not", async () => {
  const account = await newAccount("balances-eth");
  assert.deepEqual((await api.getWalletAddressBalances({ address: account, caip2 })).balances, []);

  await chain.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: account, value: parseEther("1.5") }) });
  await chain.waitForTransactionReceipt({ hash: await wallet.writeContract({ ...dollar, functionName: "transfer",
    args: [account, parseUnits("250.5", 6)] }) });
  const held = await chain.readContract({ ...dollar, functionName: "balanceOf", args: [account] });
  assert.equal(held, 250_500_000n);
  assert.equal(await chain.readContract({ ...other, functionName: "balanceOf", args: [account] }), 0n);

  const { balances } = await api.getWalletAddressBalances({ address: account, caip2 });
  assert.deepEqual(balances, [
    { caip19: `${caip2}/slip44:60`, symbol: "ETH", name: "Ether", decimals: 18,
      balance: String(await chain.getBalance({ address: account })), display: { crypto: "1.5", usd: "4500.00" } },
    { caip19: `${caip2}/erc20:${dollar.address.toLowerCase()}`, symbol: "TUSD", name: "Test Dollar", decimals: 6,
      balance: String(held), display: { crypto: "250.5", usd: "250.50" } },
  ]);

  // A later transfer out (signed by the account's key elsewhere would do the same) is read anew:
  // here the funded account sends more in, and the address is given in lower case.
  await chain.waitForTransactionReceipt({ hash: await wallet.writeContract({ ...dollar, functionName: "transfer",
    args: [account, 1n] }) });
  const again = await api.getWalletAddressBalances({ address: account.toLowerCase(), caip2 });
  assert.equal(again.balances[1].balance, "250500001");
  assert.equal(again.balances[1].display.crypto, "250.500001");
});

test("Solana: lamports and every SPL token account of the owner for a mint, summed", async () => {
  const account = await newAccount("balances-sol", "ADDRESS_FORMAT_SOLANA");
  assert.deepEqual((await api.getWalletAddressBalances({ address: account, caip2: devnet })).balances, []);

  solana.svm.airdrop(account, 2_250_000_000n);
  // Its associated token account, minted to; then a second token account of the same owner, which
  // another holder transfers to.
  const [ata] = await findAssociatedTokenPda({ owner: account, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await runSolana([
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: account, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount: 1_500_000n })]);
  const second = await generateKeyPairSigner();
  const holder = await generateKeyPairSigner();
  const [holderAta] = await findAssociatedTokenPda({ owner: holder.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const space = BigInt(getTokenSize());
  await runSolana([
    getCreateAccountInstruction({ payer, newAccount: second, space, programAddress: TOKEN_PROGRAM_ADDRESS,
      lamports: solana.svm.minimumBalanceForRentExemption(space) }),
    getInitializeAccount3Instruction({ account: second.address, mint: mint.address, owner: account }),
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: holderAta, owner: holder.address, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: holderAta, mintAuthority: payer, amount: 900_000n }),
    getTransferInstruction({ source: holderAta, destination: second.address, authority: holder, amount: 250_000n })]);

  const { balances } = await api.getWalletAddressBalances({ address: account, caip2: "solana:devnet" });
  assert.deepEqual(balances, [
    { caip19: `${devnet}/slip44:501`, symbol: "SOL", name: "Solana", decimals: 9,
      balance: String(solana.svm.getBalance(account)), display: { crypto: "2.25" } },
    { caip19: `${devnet}/token:${mint.address}`, symbol: "TSPL", name: "Test SPL", decimals: 6,
      balance: "1750000", display: { crypto: "1.75", usd: "4.20" } },
  ]);
});

test("bad input is refused naming the field, and a private key's address is not a wallet account's", async () => {
  const account = await newAccount("balances-bad");
  const sol = await newAccount("balances-bad-sol", "ADDRESS_FORMAT_SOLANA");
  await assert.rejects(api.getWalletAddressBalances({ address: account, caip2: "eip155:0x1" }), /caip2.*eip155:0x1/);
  await assert.rejects(api.listSupportedAssets({ caip2: "bitcoin:000000000019d6689c085ae165831e93" }), /caip2/);
  await assert.rejects(api.getWalletAddressBalances({ address: account, caip2: "eip155:8453" }),
    /caip2: no node is configured for "eip155:8453"/);
  await assert.rejects(api.getWalletAddressBalances({ address: "0x000000000000000000000000000000000000bEEF", caip2 }),
    /invalid field address: "0x000000000000000000000000000000000000bEEF" is not the address of a wallet account/);
  await assert.rejects(api.getWalletAddressBalances({ address: sol, caip2 }), /invalid field address: .*ADDRESS_FORMAT_SOLANA/);
  const key = await api.createPrivateKeys({ privateKeys: [{ privateKeyName: "balances-key", curve: "CURVE_SECP256K1",
    addressFormats: ["ADDRESS_FORMAT_ETHEREUM"], privateKeyTags: [] }] });
  const keyAddress = key.privateKeys[0].addresses[0].address;
  await assert.rejects(api.getWalletAddressBalances({ address: keyAddress, caip2 }), /private key addresses are not supported/);
});

test("Ethereum history: deposits from other accounts and a send through the gateway, newest first, across a restart", async () => {
  const account = await newAccount("history-eth");
  const funded = privateKeyToAccount(fundedKey).address.toLowerCase();
  const receipt = async (hash) => chain.waitForTransactionReceipt({ hash });
  const ethIn = await receipt(await wallet.sendTransaction({ to: account, value: parseEther("2") }));
  // While the gateway is down, a token deposit: the follower picks up where it stood.
  let tokenIn;
  await signet.restart(async () => {
    tokenIn = await receipt(await wallet.writeContract({ ...dollar, functionName: "transfer", args: [account, 5_000_000n] }));
  });
  api = apiClientFor(signet, rootKey, signet.ids.organizationId);
  const { sendTransactionStatusId } = await api.ethSendTransaction({ from: account, caip2,
    calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: "1000" }] });
  const sent = await until(async () => {
    const s = await api.getSendTransactionStatus({ sendTransactionStatusId });
    return s.txStatus === "INCLUDED" ? s : null;
  });
  const out = await receipt(sent.eth.txHash);
  const history = (options = {}) => api.listEthTransactionHistory({ address: account, caip2, ...options });
  const { transactions } = await until(async () => {
    const r = await history();
    return r.transactions.length >= 3 ? r : null;
  });
  assert.equal(transactions.length, 3, JSON.stringify(transactions));
  assert.deepEqual(transactions.map((t) => t.transactionHash), [out.transactionHash, tokenIn.transactionHash, ethIn.transactionHash]);
  const finalized = await chain.getBlock({ blockTag: "finalized" });
  for (const [t, r] of [[transactions[0], out], [transactions[1], tokenIn], [transactions[2], ethIn]]) {
    const block = await chain.getBlock({ blockNumber: r.blockNumber });
    assert.deepEqual(t.block, { number: String(r.blockNumber), hash: r.blockHash,
      timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace(".000Z", "Z") });
    assert.deepEqual(t.fee, { amount: String(r.gasUsed * r.effectiveGasPrice), caip19: `${caip2}/slip44:60` });
    assert.equal(t.from, r.from.toLowerCase());
    assert.ok(["CONFIRMED", "FINALIZED"].includes(t.status));
    if (r.blockNumber <= finalized.number) assert.equal(t.status, "FINALIZED");
  }
  const eth = { caip19: `${caip2}/slip44:60`, symbol: "ETH", name: "Ether", decimals: 18 };
  assert.equal(transactions[0].origin, "TURNKEY");
  assert.equal(transactions[0].turnkey.sponsored, false);
  assert.deepEqual(transactions[0].transfers, [{ direction: "OUT", amount: "1000",
    counterparty: "0x000000000000000000000000000000000000dead", asset: eth, display: { crypto: "0.000000000000001" } }]);
  assert.equal(transactions[1].origin, "EXTERNAL");
  assert.equal(transactions[1].to, dollar.address.toLowerCase());
  assert.deepEqual(transactions[1].transfers, [{ direction: "IN", amount: "5000000", counterparty: funded,
    asset: { caip19: `${caip2}/erc20:${dollar.address.toLowerCase()}`, symbol: "TUSD", name: "Test Dollar", decimals: 6 },
    display: { crypto: "5" } }]);
  assert.deepEqual(transactions[2].transfers, [{ direction: "IN", amount: String(parseEther("2")), counterparty: funded,
    asset: eth, display: { crypto: "2" } }]);

  // Pages: two, then the rest after the cursor, and back before it.
  const first = await history({ paginationOptions: { limit: "2" } });
  assert.deepEqual(first.transactions.map((t) => t.transactionHash), [out.transactionHash, tokenIn.transactionHash]);
  assert.equal(first.pageInfo.hasNextPage, true);
  const rest = await history({ paginationOptions: { limit: "2", after: first.pageInfo.endCursor } });
  assert.deepEqual(rest.transactions.map((t) => t.transactionHash), [ethIn.transactionHash]);
  assert.equal(rest.pageInfo.hasNextPage, false);
  const back = await history({ paginationOptions: { limit: "1", before: ethIn.transactionHash } });
  assert.deepEqual(back.transactions.map((t) => t.transactionHash), [tokenIn.transactionHash]);
  await assert.rejects(history({ paginationOptions: { after: "0x1234" } }), /paginationOptions: cursor "0x1234"/);
  await assert.rejects(api.listEthTransactionHistory({ address: account, caip2: "solana:devnet" }), /invalid field caip2/);
});

test("Solana history: lamports and SPL tokens received, with the fee payer and signers", async () => {
  const account = await newAccount("history-sol", "ADDRESS_FORMAT_SOLANA");
  const solIn = await runSolana([getTransferSolInstruction({ source: payer, destination: account, amount: 1_000_000_000n })]);
  const holder = await generateKeyPairSigner();
  const [holderAta] = await findAssociatedTokenPda({ owner: holder.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [ata] = await findAssociatedTokenPda({ owner: account, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await runSolana([
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: holderAta, owner: holder.address, mint: mint.address }),
    getMintToInstruction({ mint: mint.address, token: holderAta, mintAuthority: payer, amount: 700_000n })]);
  const tokenIn = await runSolana([
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: account, mint: mint.address }),
    getTransferInstruction({ source: holderAta, destination: ata, authority: holder, amount: 300_000n })]);
  // And a transfer out, sent through the gateway.
  const unsigned = new Transaction({ feePayer: new PublicKey(account), recentBlockhash: solana.svm.latestBlockhash() });
  unsigned.add(SystemProgram.transfer({ fromPubkey: new PublicKey(account), toPubkey: new PublicKey(payer.address), lamports: 1234 }));
  const { sendTransactionStatusId } = await api.solSendTransaction({ caip2: "solana:devnet", signWiths: [account],
    unsignedTransaction: unsigned.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex") });
  const sent = await until(async () => {
    const s = await api.getSendTransactionStatus({ sendTransactionStatusId });
    return ["INCLUDED", "FAILED"].includes(s.txStatus) ? s : null;
  });
  assert.equal(sent.txStatus, "INCLUDED", JSON.stringify(sent));
  const { transactions } = await until(async () => {
    const r = await api.listSolTransactionHistory({ address: account, caip2: "solana:devnet" });
    return r.transactions.length >= 3 ? r : null;
  });
  assert.deepEqual(transactions.map((t) => t.signature), [sent.solana.signature, tokenIn, solIn]);
  const [out, token, sol] = transactions;
  assert.equal(out.origin, "TURNKEY");
  assert.equal(out.turnkey.sponsored, false);
  assert.equal(out.feePayer, account);
  assert.deepEqual(out.transfers, [{ direction: "OUT", amount: "1234", counterparty: payer.address,
    asset: { caip19: `${devnet}/slip44:501`, symbol: "SOL", name: "Solana", decimals: 9 }, display: { crypto: "0.000001234" } }]);
  assert.equal(token.feePayer, payer.address);
  assert.deepEqual(token.signers, [{ address: payer.address, writable: true }, { address: holder.address, writable: false }]);
  assert.deepEqual(token.fee, { amount: "10000", caip19: `${devnet}/slip44:501` });
  assert.equal(token.block.number, String(solana.landed(tokenIn).slot));
  assert.equal(token.origin, "EXTERNAL");
  assert.deepEqual(token.transfers, [{ direction: "IN", amount: "300000", counterparty: holder.address,
    asset: { caip19: `${devnet}/token:${mint.address}`, symbol: "TSPL", name: "Test SPL", decimals: 6 }, display: { crypto: "0.3" } }]);
  assert.deepEqual(sol.transfers, [{ direction: "IN", amount: "1000000000", counterparty: payer.address,
    asset: { caip19: `${devnet}/slip44:501`, symbol: "SOL", name: "Solana", decimals: 9 }, display: { crypto: "1" } }]);
  assert.deepEqual(sol.fee, { amount: "5000", caip19: `${devnet}/slip44:501` });
});

test("Ethereum history: a reorganized block's transfer is forgotten and the new chain's is read", async () => {
  const account = await newAccount("history-reorg");
  const receipt = async (hash) => chain.waitForTransactionReceipt({ hash });
  const history = async () => (await api.listEthTransactionHistory({ address: account, caip2 })).transactions
    .map((t) => t.transactionHash);
  const snapshot = await hardhat.rpc("evm_snapshot");
  const gone = await receipt(await wallet.sendTransaction({ to: account, value: parseEther("1") }));
  await until(async () => (await history()).includes(gone.transactionHash));
  // The chain drops that block, and grows another in its place.
  await hardhat.rpc("evm_revert", [snapshot]);
  const kept = await receipt(await wallet.sendTransaction({ to: account, value: parseEther("3") }));
  assert.equal(kept.blockNumber, gone.blockNumber);
  await until(async () => JSON.stringify(await history()) === JSON.stringify([kept.transactionHash]));
});
