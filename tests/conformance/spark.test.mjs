// Spark through the official SDKs: @turnkey/sdk-server submits spark_prepare_transfer under
// a Spark transfer policy from Turnkey's policy examples, spark_claim_transfer,
// spark_prepare_lightning_receive and spark_sign_frost, and @buildonspark/spark-sdk plays
// everyone else (for a claim, the sender too; for FROST, its own user signer computes the share
// the gateway must give). Its DefaultSparkSigner, given the same mnemonic as the Signet wallet, derives the
// identity and leaf keys; its Rust bindings (sparkFrost) act as the operators, decrypting
// their packages and validating their Feldman shares, and as the receiver, decrypting the
// new leaf keys; its own hashing recomputes the payload the transfer signature covers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import { encryptWalletToBundle } from "@turnkey/crypto";
import { secp256k1, schnorr } from "@noble/curves/secp256k1";
import { hash_to_field } from "@noble/curves/abstract/hash-to-curve";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2";
import {
  DefaultSparkSigner, KeyDerivationType, encodeSparkAddress, getSparkFrost,
  getTransferPackageSigningPayload,
} from "@buildonspark/spark-sdk";
import { ClaimLeafKeyTweaks, SecretShare, SendLeafKeyTweaks } from "@buildonspark/spark-sdk/proto/spark";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
const mnemonic = "leaf lady until indicate praise final route toast cake minimum insect unknown";
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const bytes = (h) => new Uint8Array(Buffer.from(h, "hex"));
const sha256 = (data) => new Uint8Array(createHash("sha256").update(data).digest());
let signet, org, root, sparkAddress, sdkSigner, identityPublicKey;
const clientFor = (key) => apiClientFor(signet, key, org);

before(async () => {
  signet = await startSignet(rootKey);
  org = signet.ids.organizationId;
  root = clientFor(rootKey);
  const signerKey = (await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json()).signerPublicKey;
  const userId = signet.ids.userId;
  const init = await root.initImportWallet({ userId });
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic, importBundle: init.importBundle, userId, organizationId: org,
    dangerouslyOverrideSignerPublicKey: signerKey,
  });
  const imported = await root.importWallet({
    userId, walletName: "spark", encryptedBundle,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/8797555'/0'/0'",
                 addressFormat: "ADDRESS_FORMAT_SPARK_REGTEST" }],
  });
  sparkAddress = imported.addresses[0];
  sdkSigner = new DefaultSparkSigner();
  identityPublicKey = await sdkSigner.createSparkWalletFromSeed(await sdkSigner.mnemonicToSeed(mnemonic), 0);
});

after(async () => {
  assert.equal(await signet.stop(), 0);
});

test("a Spark account's address is the Spark SDK's address of the same wallet's identity key, and it signs BIP-340", async () => {
  assert.equal(sparkAddress, encodeSparkAddress({ identityPublicKey, network: "REGTEST" }));
  const message = sha256("spark identity");
  const { r, s, v } = await root.signRawPayload({
    signWith: sparkAddress, payload: hex(message), encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
    hashFunction: "HASH_FUNCTION_NO_OP",
  });
  assert.equal(v, "00");
  assert.ok(schnorr.verify(bytes(r + s), message, bytes(identityPublicKey).slice(1)));
});

test("§4 case 28: spark_prepare_transfer to an allowed receiver builds packages the operators and the receiver can use", async () => {
  const member = generateKey("p256");
  const { userIds } = await root.createUsers({
    users: [{ userName: "spark member", userTags: [], authenticators: [], oauthProviders: [],
              apiKeys: [{ apiKeyName: "member", publicKey: member.publicKeyHex, curveType: "API_KEY_CURVE_P256" }] }],
  });
  const receiver = secp256k1.utils.randomPrivateKey();
  const allowed = [hex(secp256k1.getPublicKey(receiver, true)), hex(secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true))];
  await root.createPolicy({
    policyName: "spark transfers to known receivers", effect: "EFFECT_ALLOW", notes: "",
    condition: `activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER' && activity.params.transfer.receiver_public_key in ['${allowed[0]}','${allowed[1]}']`,
  });
  assert.ok(userIds.length === 1);
  const client = clientFor(member);

  const operators = [0, 1, 2].map(() => {
    const priv = secp256k1.utils.randomPrivateKey();
    return { operatorId: randomUUID(), priv, encryptionPublicKey: hex(secp256k1.getPublicKey(priv, true)) };
  });
  const leaves = [randomUUID(), randomUUID()].map((leafId) => ({ leafId, newLeafId: `${leafId}:new` }));
  const refundSignature = "30440220" + "11".repeat(32) + "0220" + "22".repeat(32);
  const transferId = randomUUID();
  const intent = (receiverPublicKey) => ({
    signWith: sparkAddress,
    transfer: {
      transferId, threshold: 2, receiverPublicKey,
      operatorRecipients: operators.map(({ operatorId, encryptionPublicKey }) => ({ operatorId, encryptionPublicKey })),
      leaves: leaves.map(({ leafId, newLeafId }, i) => ({
        leafId, oldLeafDerivation: { signingLeaf: { leafId } }, newLeafDerivation: { signingLeaf: { leafId: newLeafId } },
        ...(i === 0 ? { refundSignature } : {}),
      })),
    },
  });

  const result = await client.sparkPrepareTransfer(intent(allowed[0]));
  assert.equal(result.activity.status, "ACTIVITY_STATUS_COMPLETED");

  // The new leaf keys are the SDK's keys of the new derivations.
  assert.deepEqual(result.newLeafPublicKeys.map((k) => k.leafId), leaves.map((l) => l.leafId));
  for (const [i, { newLeafId }] of leaves.entries()) {
    const expected = await sdkSigner.getPublicKeyFromDerivation({ type: KeyDerivationType.LEAF, path: newLeafId });
    assert.equal(result.newLeafPublicKeys[i].publicKey, hex(expected));
  }

  // Each operator decrypts its package and validates its share of every leaf.
  const frost = getSparkFrost();
  const sharesByLeaf = new Map();
  const keyTweakPackage = {};
  assert.deepEqual(result.operatorPackages.map((p) => p.operatorId), operators.map((o) => o.operatorId));
  for (const [index, operator] of operators.entries()) {
    const sealed = bytes(result.operatorPackages[index].encryptedPackage);
    keyTweakPackage[operator.operatorId] = sealed;
    const { leavesToSend } = SendLeafKeyTweaks.decode(await frost.decryptEcies(sealed, operator.priv));
    assert.deepEqual(leavesToSend.map((t) => t.leafId), leaves.map((l) => l.leafId));
    for (const [leafIndex, tweak] of leavesToSend.entries()) {
      const { secretShare, proofs } = tweak.secretShareTweak;
      await frost.validateShare(secretShare, index + 1, 2, proofs);
      assert.equal(hex(tweak.pubkeySharesTweak[operator.operatorId]), hex(secp256k1.getPublicKey(secretShare, true)));
      assert.deepEqual(Object.keys(tweak.pubkeySharesTweak).sort(), operators.map((o) => o.operatorId).sort());
      assert.equal(hex(tweak.refundSignature), leafIndex === 0 ? refundSignature : "");
      // The secret cipher opens to the new leaf key for the receiver; the identity key signed it.
      const newLeafKey = await frost.decryptEcies(tweak.secretCipher, receiver);
      assert.equal(hex(secp256k1.getPublicKey(newLeafKey, true)), result.newLeafPublicKeys[leafIndex].publicKey);
      const signed = sha256(Buffer.concat([Buffer.from(tweak.leafId), Buffer.from(transferId), tweak.secretCipher]));
      assert.ok(secp256k1.verify(tweak.signature, signed, bytes(identityPublicKey)));
      const list = sharesByLeaf.get(tweak.leafId) ?? [];
      list.push({ threshold: 2, index: index + 1, share: secretShare, proofs });
      sharesByLeaf.set(tweak.leafId, list);
    }
  }
  // Any two operators recover the tweak: the old leaf key minus the new one.
  for (const { leafId, newLeafId } of leaves) {
    const shares = sharesByLeaf.get(leafId);
    const tweak = await frost.recoverSecret([shares[0], shares[2]]);
    assert.equal(hex(await frost.recoverSecret([shares[1], shares[2]])), hex(tweak));
    const expected = await sdkSigner.subtractPrivateKeysGivenDerivationPaths(leafId, newLeafId);
    assert.equal(hex(secp256k1.getPublicKey(tweak, true)), hex(expected));
    assert.equal(hex(shares[0].proofs[0]), hex(expected));
  }
  // The user signature covers the SDK's transfer package payload over the ciphertexts.
  const payload = getTransferPackageSigningPayload(transferId, { keyTweakPackage });
  const signature = secp256k1.Signature.fromDER(bytes(result.transferUserSignature));
  assert.ok(secp256k1.verify(signature, payload, bytes(identityPublicKey)));

  // A receiver the policy does not name: implicitly denied.
  const stranger = hex(secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true));
  const refused = await client.sparkPrepareTransfer({ ...intent(stranger), transfer: { ...intent(stranger).transfer, transferId: randomUUID() } });
  assert.equal(refused.activity.status, "ACTIVITY_STATUS_FAILED");
  assert.match(refused.activity.failure.message, /implicit deny/);
  assert.equal(refused.operatorPackages, undefined);
});

const operatorSet = (count) => Array.from({ length: count }, () => {
  const priv = secp256k1.utils.randomPrivateKey();
  return { operatorId: randomUUID(), priv, encryptionPublicKey: hex(secp256k1.getPublicKey(priv, true)) };
});
const recipients = (operators) => operators.map(({ operatorId, encryptionPublicKey }) => ({ operatorId, encryptionPublicKey }));

test("spark_prepare_lightning_receive shares a preimage the operators validate and recover, and whose hash is the payment hash", async () => {
  const operators = operatorSet(3);
  const result = await root.sparkPrepareLightningReceive({
    signWith: sparkAddress, lightningReceive: { threshold: 2, operatorRecipients: recipients(operators) },
  });
  assert.equal(result.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.deepEqual(result.operatorPackages.map((p) => p.operatorId), operators.map((o) => o.operatorId));
  // What the SDK's createLightningInvoice sends each operator: a SecretShare, ECIES-encrypted to
  // it, share index the operator's 1-based position.
  const frost = getSparkFrost();
  const shares = [];
  for (const [index, operator] of operators.entries()) {
    const opened = await frost.decryptEcies(bytes(result.operatorPackages[index].encryptedPackage), operator.priv);
    const { secretShare, proofs } = SecretShare.decode(opened);
    await frost.validateShare(secretShare, index + 1, 2, proofs);
    shares.push({ threshold: 2, index: index + 1, share: secretShare, proofs });
  }
  const preimage = await frost.recoverSecret([shares[0], shares[2]]);
  assert.equal(hex(await frost.recoverSecret([shares[1], shares[0]])), hex(preimage));
  assert.equal(result.paymentHash, hex(sha256(preimage)));
  assert.equal(hex(shares[0].proofs[0]), hex(secp256k1.getPublicKey(preimage, true)));
});

test("spark_claim_transfer takes a leaf the Spark SDK sent and shares the tweak the SDK's receiver would", async () => {
  // The sender: another Spark wallet, whose SDK seals a leaf key to the Signet wallet's identity
  // key and signs it, as its transfer service does.
  const sender = new DefaultSparkSigner();
  const senderIdentity = await sender.createSparkWalletFromSeed(hex(secp256k1.utils.randomPrivateKey()), 0);
  const operators = operatorSet(3);
  const transferId = randomUUID();
  const leafIds = [randomUUID(), randomUUID()];
  const leaves = [];
  for (const leafId of leafIds) {
    const { secretCipher } = await sender.subtractSplitAndEncrypt({
      first: { type: KeyDerivationType.LEAF, path: leafId }, second: { type: KeyDerivationType.RANDOM },
      receiverPublicKey: bytes(identityPublicKey), curveOrder: secp256k1.CURVE.n, threshold: 2, numShares: 3,
    });
    const signed = sha256(Buffer.concat([Buffer.from(leafId), Buffer.from(transferId), secretCipher]));
    const senderSignature = hex(await sender.signMessageWithIdentityKey(signed, true));
    leaves.push({ leafId, ciphertext: hex(secretCipher), senderSignature });
  }
  const intent = { signWith: sparkAddress, claim: {
    transferId, senderIdentityPublicKey: senderIdentity, threshold: 2, operatorRecipients: recipients(operators), leaves,
  } };
  const result = await root.sparkClaimTransfer(intent);
  assert.equal(result.activity.status, "ACTIVITY_STATUS_COMPLETED");

  // The new leaf keys are the SDK receiver's keys of the leaves.
  assert.deepEqual(result.newLeafPublicKeys.map((k) => k.leafId), leafIds);
  for (const [i, leafId] of leafIds.entries())
    assert.equal(result.newLeafPublicKeys[i].publicKey,
      hex(await sdkSigner.getPublicKeyFromDerivation({ type: KeyDerivationType.LEAF, path: leafId })));

  // Each operator opens its ClaimLeafKeyTweaks and validates its share of every leaf.
  const frost = getSparkFrost();
  const sharesByLeaf = new Map(leafIds.map((id) => [id, []]));
  for (const [index, operator] of operators.entries()) {
    const { leavesToReceive } = ClaimLeafKeyTweaks.decode(
      await frost.decryptEcies(bytes(result.operatorPackages[index].encryptedPackage), operator.priv));
    assert.deepEqual(leavesToReceive.map((t) => t.leafId), leafIds);
    for (const tweak of leavesToReceive) {
      const { secretShare, proofs } = tweak.secretShareTweak;
      await frost.validateShare(secretShare, index + 1, 2, proofs);
      assert.equal(hex(tweak.pubkeySharesTweak[operator.operatorId]), hex(secp256k1.getPublicKey(secretShare, true)));
      assert.deepEqual(Object.keys(tweak.pubkeySharesTweak).sort(), operators.map((o) => o.operatorId).sort());
      sharesByLeaf.get(tweak.leafId).push({ threshold: 2, index: index + 1, share: secretShare, proofs });
    }
  }
  // The tweak is the one the SDK's own receiver computes from the same ciphertext and leaf.
  for (const [i, leafId] of leafIds.entries()) {
    const shares = sharesByLeaf.get(leafId);
    const tweak = await frost.recoverSecret([shares[0], shares[2]]);
    const sdkClaim = await sdkSigner.subtractAndSplitSecretWithProofsGivenDerivations({
      first: { type: KeyDerivationType.ECIES, path: bytes(leaves[i].ciphertext) },
      second: { type: KeyDerivationType.LEAF, path: leafId },
      curveOrder: secp256k1.CURVE.n, threshold: 2, numShares: 3,
    });
    assert.equal(hex(secp256k1.getPublicKey(tweak, true)), hex(sdkClaim[0].proofs[0]));
  }

  // A leaf whose signature is not the sender's is refused, naming it.
  const forged = { ...intent, claim: { ...intent.claim, senderIdentityPublicKey: hex(secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true)) } };
  await assert.rejects(root.sparkClaimTransfer(forged), /leaves\[0\]\.senderSignature: it does not verify/);
});

// The gateway's FROST nonces for one request (docs/signing.md): H3 of an HMAC over everything
// the share depends on, then the key; H3 here is noble's hash_to_field.
const frostNonce = (key, label, message, verifyingKey, adaptor, commitments) => {
  const bound = Buffer.concat([Buffer.from(label), message, verifyingKey,
    adaptor ? Buffer.concat([Buffer.from([1]), adaptor]) : Buffer.from([0]), commitments]);
  const seed = createHmac("sha256", key).update(bound).digest();
  const [[scalar]] = hash_to_field(Buffer.concat([seed, key]), 1, {
    DST: "FROST-secp256k1-SHA256-TR-v1nonce", p: secp256k1.CURVE.n, m: 1, k: 128, expand: "xmd", hash: nobleSha256,
  });
  return bytes(scalar.toString(16).padStart(64, "0"));
};

// BIP-341's key-path tweak with no script tree, as the operators' group key is tweaked.
const taprootKey = (point) => {
  const even = point.hasEvenY() ? point : point.negate();
  const t = BigInt("0x" + hex(schnorr.utils.taggedHash("TapTweak", even.toRawBytes(true).slice(1)))) % secp256k1.CURVE.n;
  return even.add(secp256k1.ProjectivePoint.BASE.multiply(t));
};

test("spark_sign_frost gives the shares and commitments the Spark SDK's own user signer computes, for either parity of the group key and its tweak, with and without an adaptor", async () => {
  const leafId = randomUUID();
  const userKey = await sdkSigner.getSigningPrivateKeyFromDerivation({ type: KeyDerivationType.LEAF, path: leafId });
  const userPublic = secp256k1.getPublicKey(userKey, true);
  const userPoint = secp256k1.ProjectivePoint.fromHex(userPublic);
  // For each parity of the group key V = P_operators + P_user and of its Taproot tweak (the
  // signer negates its share for each odd one), an operator key that gives it, and four
  // requests with fresh commitments (whose group commitment's parity varies), two with an
  // adaptor. Each operator signs under an identifier of its own.
  const requests = [];
  for (const [vOdd, pOdd] of [[false, false], [false, true], [true, false], [true, true]]) {
    let verifyingKey;
    for (;;) {
      const v = userPoint.add(secp256k1.ProjectivePoint.fromPrivateKey(secp256k1.utils.randomPrivateKey()));
      if (v.hasEvenY() !== vOdd && taprootKey(v).hasEvenY() !== pOdd) { verifyingKey = v.toRawBytes(true); break; }
    }
    for (let i = 0; i < 4; ++i) {
      const point = () => secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true);
      requests.push({
        message: randomBytes(32), verifyingKey, operatorId: hex(randomBytes(31)).padStart(64, "0"),
        hiding: point(), binding: point(), adaptor: i % 2 ? point() : null,
      });
    }
  }
  const wire = (r) => ({
    derivation: { signingLeaf: { leafId } }, message: hex(r.message), verifyingKey: hex(r.verifyingKey),
    operatorCommitments: [{ id: r.operatorId, hiding: hex(r.hiding), binding: hex(r.binding) }],
    ...(r.adaptor ? { adaptorPublicKey: hex(r.adaptor) } : {}),
  });
  const result = await root.sparkSignFrost({ signWith: sparkAddress, signatures: requests.map(wire) });
  assert.equal(result.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(result.signatures.length, requests.length);

  const frost = getSparkFrost();
  for (const [i, r] of requests.entries()) {
    const got = result.signatures[i];
    const commitments = Buffer.concat([bytes(r.operatorId), r.hiding, r.binding]);
    const nonce = ["hiding", "binding"].map((label) => frostNonce(Buffer.from(userKey), `signet spark frost ${label}`,
      r.message, Buffer.from(r.verifyingKey), r.adaptor && Buffer.from(r.adaptor), commitments));
    const selfCommitment = { hiding: secp256k1.getPublicKey(nonce[0], true), binding: secp256k1.getPublicKey(nonce[1], true) };
    assert.equal(got.hiding, hex(selfCommitment.hiding), `request ${i}`);
    assert.equal(got.binding, hex(selfCommitment.binding), `request ${i}`);
    const expected = await frost.signFrost({
      message: r.message, keyPackage: { secretKey: userKey, publicKey: userPublic, verifyingKey: r.verifyingKey },
      nonce: { hiding: nonce[0], binding: nonce[1] }, selfCommitment,
      statechainCommitments: { [r.operatorId]: { hiding: r.hiding, binding: r.binding } },
      adaptorPubKey: r.adaptor ?? undefined,
    });
    assert.equal(got.signatureShare, hex(expected), `request ${i}`);
  }

  // The same request signs with the same nonces.
  const again = await root.sparkSignFrost({ signWith: sparkAddress, signatures: [wire(requests[0])] });
  assert.deepEqual(again.signatures[0], result.signatures[0]);
  // The user's identifier (FROST's Identifier::derive("user"), which the wallet signs under)
  // among the operators' is refused, naming it.
  const [[userIdentifier]] = hash_to_field(Buffer.from("user"), 1, {
    DST: "FROST-secp256k1-SHA256-TR-v1id", p: secp256k1.CURVE.n, m: 1, k: 128, expand: "xmd", hash: nobleSha256,
  });
  await assert.rejects(root.sparkSignFrost({ signWith: sparkAddress, signatures: [{ ...wire(requests[0]),
    operatorCommitments: [{ id: userIdentifier.toString(16).padStart(64, "0"), hiding: hex(requests[0].hiding), binding: hex(requests[0].binding) }] }] }),
  /operatorCommitments\[0\]\.id: it is the user's identifier/);
});
