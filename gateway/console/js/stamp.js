// Stamps, made in the browser exactly as the official SDKs make them, so that the console is
// an ordinary API client with no privileges of its own:
// - X-Stamp: an ECDSA P-256 SHA-256 signature over the request body, DER-encoded in hex, with
//   the compressed public key and scheme SIGNATURE_SCHEME_TK_API_P256, as base64url JSON;
// - X-Stamp-WebAuthn: a passkey assertion whose challenge is the ASCII of hex(SHA-256(body)).
// Private keys live only as non-extractable WebCrypto keys: a pasted key is imported and the
// text is dropped; a session key made for a passkey login is generated non-extractable.

const P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
const enc = new TextEncoder();

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
// An error about one field of the sign-in form, which the form shows beside it.
function fieldError(field, message) {
  return Object.assign(new Error(message), { field });
}

export function fromHex(text, what) {
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) throw new Error(`${what} is not hex`);
  return Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
}
export function base64url(bytes) {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
const bigOf = (bytes) => BigInt("0x" + (hex(bytes) || "0"));
const bytesOf = (n) => fromHex(n.toString(16).padStart(64, "0"), "coordinate");
function modPow(base, exp, mod) {
  let r = 1n;
  base %= mod;
  for (; exp > 0n; exp >>= 1n, base = (base * base) % mod) if (exp & 1n) r = (r * base) % mod;
  return r;
}

// 02|03 ‖ x -> (x, y) on P-256 (SEC 1 §2.3.4): y = sqrt(x³ − 3x + b), p ≡ 3 mod 4.
export function decompressP256(compressed) {
  if (compressed.length !== 33 || (compressed[0] !== 2 && compressed[0] !== 3))
    throw new Error("the public key must be a compressed P-256 key: 66 hex characters, 02 or 03 first");
  const x = bigOf(compressed.slice(1));
  const rhs = (((x * x * x - 3n * x + B) % P) + P) % P;
  let y = modPow(rhs, (P + 1n) / 4n, P);
  if ((y * y) % P !== rhs) throw new Error("the public key is not a point of P-256");
  if (Number(y & 1n) !== (compressed[0] & 1)) y = P - y;
  return { x: bytesOf(x), y: bytesOf(y) };
}
function compress(raw) {  // 04 ‖ x ‖ y -> 02|03 ‖ x
  return hex(Uint8Array.of(2 + (raw[64] & 1), ...raw.slice(1, 33)));
}

// IEEE P1363 r ‖ s (what WebCrypto returns) -> DER SEQUENCE { INTEGER r, INTEGER s }.
function der(raw) {
  const integer = (bytes) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const v = bytes.slice(i);
    return v[0] & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v];
  };
  const body = [...integer(raw.slice(0, 32)), ...integer(raw.slice(32))];
  return Uint8Array.from([0x30, body.length, ...body]);
}

export const sha256Hex = async (text) =>
  hex(new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(text))));

// A stamper over a P-256 key pair: `privateKey` a non-extractable CryptoKey.
export class ApiKeyStamper {
  constructor(publicKeyHex, privateKey) {
    this.publicKey = publicKeyHex;
    this.privateKey = privateKey;
  }
  async stamp(body) {
    const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" },
      this.privateKey, enc.encode(body)));
    const stamp = { publicKey: this.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256",
      signature: hex(der(raw)) };
    return ["X-Stamp", base64url(enc.encode(JSON.stringify(stamp)))];
  }
}

// An API key pasted as hex: imported non-extractable; the key's own check that the private
// half matches the public one is WebCrypto's (a mismatch is a DataError).
export async function importApiKey(publicKeyHex, privateKeyHex) {
  const pub = publicKeyHex.trim().toLowerCase();
  const priv = privateKeyHex.trim().toLowerCase();
  let x, y, d;
  try {
    ({ x, y } = decompressP256(fromHex(pub, "the public key")));
  } catch (e) {
    throw fieldError("publicKey", e.message);
  }
  try {
    d = fromHex(priv, "the private key");
  } catch (e) {
    throw fieldError("privateKey", e.message);
  }
  if (d.length !== 32) throw fieldError("privateKey", "the private key must be 64 hex characters");
  const jwk = { kty: "EC", crv: "P-256", x: base64url(x), y: base64url(y), d: base64url(d), ext: false };
  const algorithm = { name: "ECDSA", namedCurve: "P-256" };
  const mismatch = fieldError("privateKey", "the private key does not belong to this public key");
  let key;
  try {
    key = await crypto.subtle.importKey("jwk", jwk, algorithm, false, ["sign"]);
  } catch {
    throw mismatch;
  }
  // Not every WebCrypto checks d against (x, y) on import: a signature checked under the public
  // key settles it before any request goes out.
  const check = enc.encode("signet console key check");
  const publicKey = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y },
    algorithm, true, ["verify"]);
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, check);
  if (!(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, signature, check)))
    throw mismatch;
  return new ApiKeyStamper(pub, key);
}

// A fresh session key pair, private half non-extractable, for a passkey login (stamp_login).
export async function generateSessionKey() {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return new ApiKeyStamper(compress(raw), pair.privateKey);
}

// A passkey: every stamp is an assertion over the body's digest, any of the user's
// discoverable credentials for this site.
export class PasskeyStamper {
  async stamp(body) {
    const challenge = enc.encode(await sha256Hex(body));
    const credential = await navigator.credentials.get({ publicKey: {
      challenge, rpId: location.hostname, userVerification: "preferred", timeout: 60000 } });
    const r = credential.response;
    return ["X-Stamp-WebAuthn", JSON.stringify({
      authenticatorData: base64url(r.authenticatorData), clientDataJson: base64url(r.clientDataJSON),
      credentialId: base64url(credential.rawId), signature: base64url(r.signature) })];
  }
}

// Registers a passkey with this site: what create_authenticators takes as an attestation.
export async function createPasskey(userName) {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const credential = await navigator.credentials.create({ publicKey: {
    challenge, rp: { name: "Signet console", id: location.hostname },
    user: { id: crypto.getRandomValues(new Uint8Array(16)), name: userName, displayName: userName },
    pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    timeout: 60000, attestation: "none" } });
  const transports = (credential.response.getTransports?.() ?? [])
    .map((t) => `AUTHENTICATOR_TRANSPORT_${t.toUpperCase()}`)
    .filter((t) => ["AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL",
      "AUTHENTICATOR_TRANSPORT_NFC", "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID"].includes(t));
  return { challenge: base64url(challenge), attestation: {
    credentialId: base64url(credential.rawId),
    clientDataJson: base64url(credential.response.clientDataJSON),
    attestationObject: base64url(credential.response.attestationObject), transports } };
}
