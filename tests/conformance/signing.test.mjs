// The signing plugin driven by the official SDKs: @turnkey/viem signs a message, typed data,
// an EIP-7702 authorization and transactions of every Ethereum type with a Signet wallet
// account, and viem (or ethers, for @turnkey/ethers) recovers the account's address from each
// signature. A policy over an ABI-decoded call decides a non-root user's transactions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createAccount } from "@turnkey/viem";
import { createWalletClient, http, recoverMessageAddress, recoverTypedDataAddress, getAddress,
         recoverTransactionAddress, parseTransaction, encodeFunctionData, parseAbi } from "viem";
import { sepolia } from "viem/chains";
import { recoverAuthorizationAddress } from "viem/utils";
import { generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, api, org, address;

before(async () => {
  signet = await startSignet(rootKey);
  org = signet.ids.organizationId;
  api = new Turnkey({
    apiBaseUrl: signet.baseUrl, apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex,
    defaultOrganizationId: org,
  }).apiClient();
  const wallet = await api.createWallet({
    walletName: "conformance",
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
  });
  address = wallet.addresses[0];
  assert.equal(address, getAddress(address), "the address is EIP-55 checksummed");
});

after(async () => {
  assert.equal(await signet.stop(), 0);
});

test("@turnkey/viem: message, typed data and EIP-7702 authorization recover to the account", async () => {
  const account = await createAccount({ client: api, organizationId: org, signWith: address });
  assert.equal(account.address, address);

  const message = "hello from signet";
  const signature = await account.signMessage({ message });
  assert.equal(await recoverMessageAddress({ message, signature }), address);

  const typedData = {
    domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
    types: {
      Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }],
      Mail: [{ name: "from", type: "Person" }, { name: "to", type: "Person" }, { name: "contents", type: "string" }, { name: "amount", type: "uint256" }],
    },
    primaryType: "Mail",
    message: {
      from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
      to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
      contents: "Hello, Bob!",
      amount: 12345678901234567890n,
    },
  };
  // Through viem's wallet action, as applications call it: it adds the EIP712Domain type
  // (calling account.signTypedData directly makes viem serialize the domain away).
  const walletClient = createWalletClient({ account, chain: sepolia, transport: http("http://127.0.0.1:9") });
  const typedSignature = await walletClient.signTypedData(typedData);
  assert.equal(await recoverTypedDataAddress({ ...typedData, signature: typedSignature }), address);

  const authorization = await account.signAuthorization({
    contractAddress: "0x63c0c19a282a1b52b07dd5a65b58948a07dae32b", chainId: 11155111, nonce: 7,
  });
  assert.ok(authorization.yParity === 0 || authorization.yParity === 1);
  assert.equal(await recoverAuthorizationAddress({ authorization }), address);
});

test("@turnkey/crypto: exported wallets and keys decrypt to the same addresses, and an encrypted mnemonic imports", async () => {
  const { decryptExportBundle, encryptWalletToBundle, encryptPrivateKeyToBundle } = await import("@turnkey/crypto");
  const { mnemonicToAccount, privateKeyToAccount } = await import("viem/accounts");
  const { uncompressRawPublicKey } = await import("@turnkey/crypto");
  const signerKey = (await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json()).signerPublicKey;
  const embedded = generateKey("p256");
  const targetPublicKey = Buffer.from(uncompressRawPublicKey(Buffer.from(embedded.publicKeyHex, "hex"))).toString("hex");

  const wallets = await api.getWallets({ organizationId: org });
  const walletId = wallets.wallets[0].walletId;
  const exported = await api.exportWallet({ walletId, targetPublicKey });
  const mnemonic = await decryptExportBundle({
    exportBundle: exported.exportBundle, embeddedKey: embedded.privateKeyHex, organizationId: org,
    dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: true,
  });
  assert.equal(mnemonicToAccount(mnemonic).address, address);
  await assert.rejects(decryptExportBundle({ exportBundle: exported.exportBundle, embeddedKey: embedded.privateKeyHex,
    organizationId: org, returnMnemonic: true }));  // the hosted signer key does not match

  const accountExport = await api.exportWalletAccount({ address, targetPublicKey });
  const accountKey = await decryptExportBundle({
    exportBundle: accountExport.exportBundle, embeddedKey: embedded.privateKeyHex, organizationId: org,
    dangerouslyOverrideSignerPublicKey: signerKey, keyFormat: "HEXADECIMAL",
  });
  assert.equal(privateKeyToAccount(`0x${accountKey}`).address, address);

  const created = await api.createPrivateKeys({ privateKeys: [{ privateKeyName: "exported", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }] });
  const keyExport = await api.exportPrivateKey({ privateKeyId: created.privateKeys[0].privateKeyId, targetPublicKey });
  const rawKey = await decryptExportBundle({
    exportBundle: keyExport.exportBundle, embeddedKey: embedded.privateKeyHex, organizationId: org,
    dangerouslyOverrideSignerPublicKey: signerKey, keyFormat: "HEXADECIMAL",
  });
  assert.equal(privateKeyToAccount(`0x${rawKey}`).address, created.privateKeys[0].addresses[0].address);

  const userId = signet.ids.userId;
  const toImport = "leaf lady until indicate praise final route toast cake minimum insect unknown";
  const init = await api.initImportWallet({ userId });
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic: toImport, importBundle: init.importBundle, userId, organizationId: org,
    dangerouslyOverrideSignerPublicKey: signerKey,
  });
  const imported = await api.importWallet({
    userId, walletName: "imported", encryptedBundle,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
  });
  assert.equal(imported.addresses[0], mnemonicToAccount(toImport).address);

  const keyInit = await api.initImportPrivateKey({ userId });
  const importedKeyHex = "6fd4d81de4820d2f8f7b2df8aa63ebb4b042af5854313e1f3abae6b55eb1cf83";
  const keyBundle = await encryptPrivateKeyToBundle({
    privateKey: importedKeyHex, keyFormat: "HEXADECIMAL", importBundle: keyInit.importBundle, userId,
    organizationId: org, dangerouslyOverrideSignerPublicKey: signerKey,
  });
  const importedKey = await api.importPrivateKey({
    userId, privateKeyName: "imported key", encryptedBundle: keyBundle, curve: "CURVE_SECP256K1",
    addressFormats: ["ADDRESS_FORMAT_ETHEREUM"],
  });
  assert.equal(importedKey.addresses[0].address, privateKeyToAccount(`0x${importedKeyHex}`).address);
});

test("@turnkey/crypto: secrets encrypted with encryptSecretToBundle import, list, and export to decryptSecretBundle", async () => {
  const { encryptSecretToBundle, decryptSecretBundle } = await import("@turnkey/crypto");
  const signerKey = (await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json()).signerPublicKey;
  const encryptionSuite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1";
  // init_import_secrets and delete_secrets through @turnkey/http, whose client has them.
  const http = new TurnkeyClient({ baseUrl: signet.baseUrl },
    new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
  const activityBody = (type, parameters) => ({ type, organizationId: org, timestampMs: String(Date.now()), parameters });
  const initActivity = (await http.initImportSecrets(activityBody("ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
    { encryptionSuite, numSecrets: 2 }))).activity;
  assert.equal(initActivity.status, "ACTIVITY_STATUS_COMPLETED");
  const init = initActivity.result.initImportSecretsResult;
  assert.equal(init.enclaveTargetMessages.length, 2);
  await assert.rejects(encryptSecretToBundle({
    plaintext: "x", ingressTargetBundle: init.enclaveTargetMessages[0], organizationId: org,
  }), /does not match signer key from bundle/); // the hosted key did not sign it
  await assert.rejects(encryptSecretToBundle({
    plaintext: "x", ingressTargetBundle: init.enclaveTargetMessages[0], organizationId: "another-org",
    dangerouslyOverrideSignerPublicKey: signerKey,
  }), /organization id does not match/);

  const plaintexts = ["sk_live_conformance_0123", "pässwörd with spaces"];
  const secrets = [];
  for (let i = 0; i < 2; i++) {
    const { secretPayload, targetPublicKey } = await encryptSecretToBundle({
      plaintext: plaintexts[i], ingressTargetBundle: init.enclaveTargetMessages[i], organizationId: org,
      dangerouslyOverrideSignerPublicKey: signerKey,
    });
    secrets.push({ name: `conformance-secret-${i}`, secretPayload, targetPublicKey, encryptionSuite,
                   staticProperties: [{ key: "purpose", value: `test ${i}` }] });
  }
  const { secretIds } = await api.importSecrets({ secrets });
  assert.equal(secretIds.length, 2);

  const listed = (await api.listSecrets({})).secrets.filter((s) => secretIds.includes(s.secretId));
  assert.deepEqual(listed.map((s) => s.name).sort(), ["conformance-secret-0", "conformance-secret-1"]);
  for (const s of listed) {
    assert.match(s.createdAtUnixMs, /^[0-9]+$/);
    assert.equal(s.staticProperties[0].key, "purpose");
  }

  const receiver = generateKey("p256");
  const { secretPayloads } = await api.exportSecrets({
    secrets: secretIds.map((secretId) => ({ secretId, targetPublicKey: receiver.publicKeyHex, encryptionSuite })),
  });
  for (let i = 0; i < 2; i++)
    assert.equal(await decryptSecretBundle({
      secretPayload: secretPayloads[i], embeddedPrivateKey: receiver.privateKeyHex, organizationId: org,
      dangerouslyOverrideSignerPublicKey: signerKey,
    }), plaintexts[i]);

  const deleted = (await http.deleteSecrets(activityBody("ACTIVITY_TYPE_DELETE_SECRETS", { secretIds }))).activity;
  assert.deepEqual(deleted.result.deleteSecretsResult.secretIds, secretIds);
  assert.equal((await api.listSecrets({})).secrets.filter((s) => secretIds.includes(s.secretId)).length, 0);
});

test("@turnkey/ethers signs a message and typed data that ethers verifies", async () => {
  const { TurnkeySigner } = await import("@turnkey/ethers");
  const { verifyMessage, verifyTypedData } = await import("ethers");
  const signer = new TurnkeySigner({ client: api, organizationId: org, signWith: address });
  assert.equal(await signer.getAddress(), address);
  const message = "hello from ethers";
  assert.equal(verifyMessage(message, await signer.signMessage(message)), address);
  const domain = { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" };
  const types = { Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }],
                  Mail: [{ name: "from", type: "Person" }, { name: "to", type: "Person" }, { name: "contents", type: "string" }] };
  const value = { from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
                  to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" }, contents: "Hello, Bob!" };
  assert.equal(verifyTypedData(domain, types, value, await signer.signTypedData(domain, types, value)), address);
});

test("@turnkey/solana signs a message whose Ed25519 signature verifies", async () => {
  const { TurnkeySigner } = await import("@turnkey/solana");
  const { PublicKey } = await import("@solana/web3.js");
  const crypto = await import("node:crypto");
  const wallet = await api.createWallet({
    walletName: "solana",
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }],
  });
  const solAddress = wallet.addresses[0];
  const signer = new TurnkeySigner({ organizationId: org, client: api });
  const message = new TextEncoder().encode("hello from solana");
  const signature = await signer.signMessage(message, solAddress);
  assert.equal(signature.length, 64);
  // Verify with node's Ed25519 over the raw 32-byte key the address encodes.
  const raw = new PublicKey(solAddress).toBytes();
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(raw)]);
  const key = crypto.createPublicKey({ key: spki, format: "der", type: "spki" });
  assert.equal(crypto.verify(null, Buffer.from(message), key, Buffer.from(signature)), true);
});

test("app proofs of derived addresses pass @turnkey/crypto's signature check", async () => {
  const { verifyAppProofSignature } = await import("@turnkey/crypto");
  const created = await api.createWallet({
    walletName: "proved",
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
    generateAppProofs: true,
  });
  const proofs = created.activity.appProofs;
  assert.equal(proofs.length, 1);
  verifyAppProofSignature(proofs[0]);  // throws when the signature does not verify
  const payload = JSON.parse(proofs[0].proofPayload);
  assert.equal(payload.type, "APP_PROOF_TYPE_ADDRESS_DERIVATION");
  assert.equal(payload.addressDerivationProof.address, created.addresses[0]);
  assert.throws(() => verifyAppProofSignature({ ...proofs[0], proofPayload: proofs[0].proofPayload.replace("m/44", "m/45") }));
  const listed = await api.getAppProofs({ activityId: created.activity.id });
  assert.deepEqual(listed.appProofs, proofs);
});

test("@turnkey/viem and @turnkey/ethers sign Ethereum transactions of every type, recovered to the account", async () => {
  const account = await createAccount({ client: api, organizationId: org, signWith: address });
  const to = "0x3535353535353535353535353535353535353535";
  const authorization = await account.signAuthorization({ contractAddress: to, chainId: 11155111, nonce: 1 });
  const transactions = [
    { type: "legacy", chainId: 11155111, nonce: 0, gasPrice: 1000000000n, gas: 21000n, to, value: 1n },
    { type: "eip2930", chainId: 11155111, nonce: 1, gasPrice: 1000000000n, gas: 30000n, to, value: 0n,
      accessList: [{ address: to, storageKeys: [`0x${"00".repeat(31)}01`] }] },
    { type: "eip1559", chainId: 1, nonce: 2, maxFeePerGas: 30000000000n, maxPriorityFeePerGas: 1000000000n,
      gas: 60000n, to, value: 10n ** 18n, data: "0xa9059cbb" },
    { type: "eip4844", chainId: 1, nonce: 3, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, maxFeePerBlobGas: 3n,
      gas: 21000n, to, value: 0n, blobVersionedHashes: [`0x01${"ab".repeat(31)}`] },
    { type: "eip7702", chainId: 11155111, nonce: 4, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, gas: 100000n,
      to: address, value: 0n, authorizationList: [authorization] },
  ];
  for (const tx of transactions) {
    const signed = await account.signTransaction(tx);
    assert.equal(await recoverTransactionAddress({ serializedTransaction: signed }), address, tx.type);
    const parsed = parseTransaction(signed);
    assert.equal(parsed.type, tx.type);
    assert.equal(parsed.nonce, tx.nonce);
    assert.equal(parsed.chainId, tx.chainId);
  }

  const { TurnkeySigner } = await import("@turnkey/ethers");
  const { Transaction } = await import("ethers");
  const signer = new TurnkeySigner({ client: api, organizationId: org, signWith: address });
  const signed = await signer.signTransaction({ type: 2, chainId: 1, nonce: 5, to, value: 7n, gasLimit: 21000n,
                                                maxFeePerGas: 30000000000n, maxPriorityFeePerGas: 1000000000n });
  const decoded = Transaction.from(signed);
  assert.equal(decoded.from, address);
  assert.equal(decoded.value, 7n);
});

test("@turnkey/viem signs a Tempo (0x76) transaction, whose signature viem/tempo recovers to the account", async () => {
  const { tempoModerato } = await import("viem/chains");
  const { Transaction } = await import("viem/tempo");
  const account = await createAccount({ client: api, organizationId: org, signWith: address });
  const token = "0x20c0000000000000000000000000000000000001";
  const recipient = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
  const data = encodeFunctionData({ abi: parseAbi(["function transfer(address to, uint256 amount)"]),
                                    functionName: "transfer", args: [recipient, 10n] });
  const signed = await account.signTransaction(
    { chainId: tempoModerato.id, calls: [{ to: token, data }, { to: recipient, value: 1n }], nonce: 7,
      gas: 200000n, maxFeePerGas: 20000000000n, maxPriorityFeePerGas: 1000000000n, feeToken: token },
    { serializer: tempoModerato.serializers.transaction });
  assert.ok(signed.startsWith("0x76"), signed);
  const decoded = Transaction.deserialize(signed);
  assert.equal(decoded.from.toLowerCase(), address.toLowerCase());
  assert.equal(decoded.nonce, 7);
  assert.equal(decoded.calls.length, 2);
  assert.equal(decoded.calls[0].data, data);
});

test("a policy over an ABI-decoded call decides a non-root user's transactions through @turnkey/viem", async () => {
  const { Turnkey: Client } = await import("@turnkey/sdk-server");
  const weth = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";
  const abi = parseAbi(["function transfer(address dst, uint256 wad) returns (bool)"]);
  const { smartContractInterfaceId } = await api.createSmartContractInterface({
    smartContractAddress: weth, smartContractInterface: JSON.stringify(abi),
    type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "WETH",
  });
  const { smartContractInterfaces } = await api.getSmartContractInterfaces({ organizationId: org });
  assert.ok(smartContractInterfaces.some((i) => i.smartContractInterfaceId === smartContractInterfaceId && i.label === "WETH"));

  const key = generateKey("p256");
  const { userIds } = await api.createUsers({ users: [{ userName: "trader", userTags: [], authenticators: [], oauthProviders: [],
    apiKeys: [{ apiKeyName: "trader", publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }] }] });
  const dst = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7";
  await api.createPolicy({ policyName: "small WETH transfers", effect: "EFFECT_ALLOW", notes: "",
    condition: `eth.tx.to == '${weth.toLowerCase()}' && eth.tx.function_name == 'transfer' && ` +
               `eth.tx.contract_call_args['dst'] == '${dst}' && eth.tx.contract_call_args['wad'] < 1000000000000000000`,
    consensus: `approvers.any(user, user.id == '${userIds[0]}')` });
  const trader = new Client({ apiBaseUrl: signet.baseUrl, apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex,
                              defaultOrganizationId: org, activityPoller: { intervalMs: 50, numRetries: 1 } }).apiClient();
  const account = await createAccount({ client: trader, organizationId: org, signWith: address, ethereumAddress: address });
  const transfer = (wad) => account.signTransaction({ type: "eip1559", chainId: 1, nonce: 0, maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n, gas: 60000n, to: weth, value: 0n,
    data: encodeFunctionData({ abi, functionName: "transfer", args: [dst, wad] }) });
  assert.equal(await recoverTransactionAddress({ serializedTransaction: await transfer(5n * 10n ** 17n) }), address);
  await assert.rejects(transfer(2n * 10n ** 18n), /ACTIVITY_STATUS_FAILED/);  // the SDK names the status only
});

test("@turnkey/solana signs legacy and v0 transactions whose Ed25519 signatures verify", async () => {
  const { TurnkeySigner } = await import("@turnkey/solana");
  const web3 = await import("@solana/web3.js");
  const nodeCrypto = await import("node:crypto");
  const wallet = await api.createWallet({
    walletName: "solana transactions",
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }],
  });
  const payer = new web3.PublicKey(wallet.addresses[0]);
  const verify = (message, signature) => {
    const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(payer.toBytes())]);
    const key = nodeCrypto.createPublicKey({ key: spki, format: "der", type: "spki" });
    return nodeCrypto.verify(null, Buffer.from(message), key, Buffer.from(signature));
  };
  const signer = new TurnkeySigner({ organizationId: org, client: api });
  const recipient = web3.Keypair.generate().publicKey;
  const blockhash = web3.Keypair.generate().publicKey.toBase58();
  const transfer = web3.SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports: 5000 });

  const legacy = new web3.Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(transfer);
  const signedLegacy = await signer.signTransaction(legacy, payer.toBase58());
  assert.equal(verify(signedLegacy.serializeMessage(), signedLegacy.signature), true);
  assert.equal(signedLegacy.verifySignatures(), true);

  const table = new web3.AddressLookupTableAccount({
    key: web3.Keypair.generate().publicKey,
    state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0,
             addresses: [recipient] },
  });
  const message = new web3.TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions: [transfer] })
    .compileToV0Message([table]);
  assert.equal(message.addressTableLookups.length, 1);
  const signedV0 = await signer.signTransaction(new web3.VersionedTransaction(message), payer.toBase58());
  assert.equal(verify(signedV0.message.serialize(), signedV0.signatures[0]), true);
});

test("a policy over an IDL-decoded instruction decides a non-root user's Solana transactions through @turnkey/solana", async () => {
  const { TurnkeySigner } = await import("@turnkey/solana");
  const { Turnkey: Client } = await import("@turnkey/sdk-server");
  const web3 = await import("@solana/web3.js");
  const borsh = await import("borsh");
  const wallet = await api.createWallet({
    walletName: "solana router",
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }],
  });
  const payer = new web3.PublicKey(wallet.addresses[0]);
  const program = web3.Keypair.generate().publicKey;
  // A legacy Anchor IDL: no discriminator, so it is sha256("global:route")[0..8].
  const idl = { instructions: [{ name: "route", accounts: [{ name: "userTransferAuthority", isMut: false, isSigner: true }],
    args: [{ name: "inAmount", type: "u64" }, { name: "slippageBps", type: "u16" }, { name: "memo", type: "string" }] }], types: [] };
  await api.createSmartContractInterface({ smartContractAddress: program.toBase58(), smartContractInterface: JSON.stringify(idl),
    type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA", label: "router" });

  const key = generateKey("p256");
  const { userIds } = await api.createUsers({ users: [{ userName: "solana trader", userTags: [], authenticators: [], oauthProviders: [],
    apiKeys: [{ apiKeyName: "solana trader", publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }] }] });
  await api.createPolicy({ policyName: "small routes", effect: "EFFECT_ALLOW", notes: "",
    condition: `solana.tx.instructions.all(i, i.program_key == '${program.toBase58()}' && ` +
               `i.parsed_instruction_data.instruction_name == 'route' && ` +
               `i.parsed_instruction_data.named_accounts['userTransferAuthority'] == '${payer.toBase58()}' && ` +
               `i.parsed_instruction_data.program_call_args['inAmount'] <= 995500000 && ` +
               `i.parsed_instruction_data.program_call_args['memo'] == 'gm')`,
    consensus: `approvers.any(user, user.id == '${userIds[0]}')` });
  const trader = new Client({ apiBaseUrl: signet.baseUrl, apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex,
                              defaultOrganizationId: org, activityPoller: { intervalMs: 50, numRetries: 1 } }).apiClient();
  const signer = new TurnkeySigner({ organizationId: org, client: trader });

  // The arguments as the official borsh encoder lays them out, after the discriminator.
  const schema = { struct: { inAmount: "u64", slippageBps: "u16", memo: "string" } };
  const route = (inAmount) => new web3.Transaction({ feePayer: payer, recentBlockhash: web3.Keypair.generate().publicKey.toBase58() })
    .add(new web3.TransactionInstruction({ programId: program, keys: [{ pubkey: payer, isSigner: true, isWritable: false }],
      data: Buffer.concat([Buffer.from("e517cb977ae3ad2a", "hex"),
                           Buffer.from(borsh.serialize(schema, { inAmount, slippageBps: 50, memo: "gm" }))]) }));
  const signed = await signer.signTransaction(route(995500000n), payer.toBase58());
  assert.equal(signed.verifySignatures(), true);
  await assert.rejects(signer.signTransaction(route(995500001n), payer.toBase58()), /FAILED|failed/);
});
