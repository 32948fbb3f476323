// The signing plugin driven by the official SDKs: @turnkey/viem signs a message, typed data
// and an EIP-7702 authorization with a Signet wallet account, and viem recovers the account's
// address from each signature.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Turnkey } from "@turnkey/sdk-server";
import { createAccount } from "@turnkey/viem";
import { createWalletClient, http, recoverMessageAddress, recoverTypedDataAddress, getAddress } from "viem";
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
