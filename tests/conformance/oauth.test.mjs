// OAuth and OpenID Connect driven by the official SDKs against a real Signet, with ID tokens
// from `oidc-provider` (an OpenID provider this project did not write; oidc_provider.mjs runs
// its authorization code flow) and an OAuth 2.0 provider in Discord's manner of our own, on
// loopback (Signet fetches their keys and codes over HTTP; the issuer is named in
// sessions.oidc.insecureIssuers, as an operator names an issuer of their own):
// - @turnkey/sdk-server: sign-up with an OAuth provider, getSubOrgIds by OIDC_TOKEN,
//   oauthLogin, the legacy oauth bundle, and the provider operations;
// - @turnkey/core's AttestedStamper with an OIDC token on stamp_login (what its loginWithOauth
//   does; its completeOauth first asks the auth proxy, which Signet does not serve yet);
// - @turnkey/crypto's encryptOauth2ClientSecret with its override argument (Signet's published
//   clientSecretEncryptionPublicKey), then @turnkey/http for the OAuth 2.0 credentials and
//   oauth2_authenticate, whose token oauthLogin accepts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { decryptCredentialBundle, encryptOauth2ClientSecret, verifySessionJwtSignature } from "@turnkey/crypto";
import { AttestedStamper } from "@turnkey/core/dist/__stampers__/attested/base.mjs";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";
import { startOidcProvider } from "./oidc_provider.mjs";

const rootKey = generateKey("p256");
const audience = "web-client.apps.example";
let signet, api, parentOrg, signerKey, published, issuer, provider;

// The nonce @turnkey/crypto's docs bind a token with: sha256 of the key's hex text.
const nonceFor = (publicKeyHex) => crypto.createHash("sha256").update(publicKeyHex).digest("hex");
const listen = (server) => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
const json = (res, status, body) => { res.writeHead(status, { "content-type": "application/json" }); res.end(JSON.stringify(body)); };

// An OAuth 2.0 provider in Discord's manner: code + PKCE at /token (HTTP Basic client auth),
// the user at /users/@me.
async function startProvider(clientId, clientSecret) {
  const codes = new Map(), tokens = new Map();
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method === "POST" && req.url === "/token") {
      const form = new URLSearchParams(body);
      const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
      if (basic !== `${clientId}:${clientSecret}`) return json(res, 401, { error: "invalid_client" });
      const code = codes.get(form.get("code"));
      codes.delete(form.get("code"));
      const challenge = crypto.createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
      if (!code || code.challenge !== challenge || code.redirectUri !== form.get("redirect_uri"))
        return json(res, 400, { error: "invalid_grant", error_description: "bad code, redirect or verifier" });
      const accessToken = `access-${crypto.randomUUID()}`;
      tokens.set(accessToken, code.userId);
      return json(res, 200, { access_token: accessToken, token_type: "Bearer" });
    }
    if (req.method === "GET" && req.url === "/users/@me") {
      const userId = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
      return userId ? json(res, 200, { id: userId, username: `u${userId}` }) : json(res, 401, { error: "invalid_token" });
    }
    json(res, 404, {});
  });
  const url = `http://127.0.0.1:${await listen(server)}`;
  return {
    url,
    issueCode(userId, redirectUri, verifier) {
      const code = `code-${crypto.randomUUID()}`;
      codes.set(code, { userId, redirectUri, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") });
      return code;
    },
    close: () => server.close(),
  };
}

before(async () => {
  issuer = await startOidcProvider([audience, "second-client"]);
  provider = await startProvider("discord-client", "discord-secret");
  signet = await startSignet(rootKey, {
    sessions: {
      oidc: { insecureIssuers: [issuer.url] },
      oauth2: { discord: { tokenUrl: `${provider.url}/token`, userInfoUrl: `${provider.url}/users/@me` }, allowHttp: true },
    },
  });
  parentOrg = signet.ids.organizationId;
  published = await (await fetch(`${signet.baseUrl}/.well-known/signet.json`)).json();
  signerKey = published.signerPublicKey;
  api = apiClientFor(signet, rootKey, parentOrg);
});

after(async () => {
  await signet?.stop();
  await issuer?.close();
  provider?.close();
});

// A sub-organization signed up with the issuer's `sub`, its root user holding `key`.
async function signUp(sub, key) {
  const { subOrganizationId, rootUserIds } = await api.createSubOrganization({
    subOrganizationName: `oauth ${sub}`,
    rootUsers: [{
      userName: sub,
      apiKeys: [{ apiKeyName: "k", publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [{ providerName: "Google", oidcToken: await issuer.token(sub, "registration") }],
    }],
    rootQuorumThreshold: 1,
  });
  return { subId: subOrganizationId, userId: rootUserIds[0] };
}

test("sdk-server: sign-up with a provider, found by OIDC_TOKEN, oauthLogin, then whoami", async () => {
  const userKey = generateKey("p256");
  const { subId, userId } = await signUp("google-ann", userKey);
  const found = await api.getSubOrgIds({ organizationId: parentOrg, filterType: "OIDC_TOKEN", filterValue: await issuer.token("google-ann", "lookup") });
  assert.deepEqual(found.organizationIds, [subId]);

  const session = generateKey("p256");
  const { session: jwt } = await api.oauthLogin({
    organizationId: subId, oidcToken: await issuer.token("google-ann", nonceFor(session.publicKeyHex)), publicKey: session.publicKeyHex,
  });
  assert.equal(await verifySessionJwtSignature(jwt, signerKey), true);
  const me = await apiClientFor(signet, session, subId).getWhoami({ organizationId: subId });
  assert.equal(me.userId, userId);

  // A token whose nonce names another key is refused.
  await assert.rejects(api.oauthLogin({
    organizationId: subId, oidcToken: await issuer.token("google-ann", nonceFor(generateKey("p256").publicKeyHex)), publicKey: session.publicKeyHex,
  }), /does not bind the token/);

  // The provider operations, as the sub-organization's own user.
  const own = apiClientFor(signet, userKey, subId);
  const { providerIds } = await own.createOauthProviders({
    userId, oauthProviders: [{ providerName: "Second app", oidcToken: await issuer.token("google-ann", "n", "second-client") }],
  });
  assert.equal(providerIds.length, 1);
  const listed = await own.getOauthProviders({ organizationId: subId, userId });
  assert.deepEqual(listed.oauthProviders.map((p) => p.audience).sort(), [audience, "second-client"].sort());
  await own.deleteOauthProviders({ userId, providerIds });
  assert.equal((await own.getOauthProviders({ organizationId: subId, userId })).oauthProviders.length, 1);
});

test("sdk-server: the legacy oauth activity returns a bundle that decrypts to a working key", async () => {
  const { subId, userId } = await signUp("google-bo", generateKey("p256"));
  const target = generateKey("p256");
  const r = await api.oauth({ organizationId: subId, oidcToken: await issuer.token("google-bo", nonceFor(target.publicKeyHex)), targetPublicKey: target.publicKeyHex });
  assert.equal(r.userId, userId);
  const privateKeyHex = decryptCredentialBundle(r.credentialBundle, target.privateKeyHex);
  const stamper = new ApiKeyStamper({ apiPublicKey: compressedFromPrivate(privateKeyHex), apiPrivateKey: privateKeyHex });
  const me = await new TurnkeyClient({ baseUrl: signet.baseUrl }, stamper).getWhoami({ organizationId: subId });
  assert.equal(me.userId, userId);
});

test("@turnkey/core's attested stamper with an OIDC token logs in with stamp_login", async () => {
  const { subId, userId } = await signUp("google-cy", generateKey("p256"));
  const session = generateKey("p256");
  const attested = new AttestedStamper(new ApiKeyStamper({ apiPublicKey: session.publicKeyHex, apiPrivateKey: session.privateKeyHex }));
  attested.configure({ attestedIdentity: await issuer.token("google-cy", nonceFor(session.publicKeyHex)), publicKey: session.publicKeyHex, scheme: "STAMP_ATTESTED_SCHEME_P256_OIDC" });
  // The client knows only the parent organization, as loginWithOauth does.
  const r = await new TurnkeyClient({ baseUrl: signet.baseUrl }, attested).stampLogin({
    type: "ACTIVITY_TYPE_STAMP_LOGIN", timestampMs: String(Date.now()), organizationId: parentOrg,
    parameters: { publicKey: session.publicKeyHex, expirationSeconds: "900", invalidateExisting: false },
  });
  assert.equal(r.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(r.activity.organizationId, subId);
  const jwt = r.activity.result.stampLoginResult.session;
  assert.equal(await verifySessionJwtSignature(jwt, signerKey), true);
  const me = await apiClientFor(signet, session, subId).getWhoami({ organizationId: subId });
  assert.equal(me.userId, userId);
});

test("@turnkey/crypto encrypts the client secret; @turnkey/http runs oauth2_authenticate; oauthLogin takes its token", async () => {
  const client = new TurnkeyClient({ baseUrl: signet.baseUrl }, new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex }));
  const submit = (fn, type, parameters, organizationId = parentOrg) =>
    fn({ type, timestampMs: String(Date.now()), organizationId, parameters });
  const encryptedClientSecret = await encryptOauth2ClientSecret("discord-secret", published.clientSecretEncryptionPublicKey);
  const created = await submit(client.createOauth2Credential, "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
    { provider: "OAUTH2_PROVIDER_DISCORD", clientId: "discord-client", encryptedClientSecret });
  const oauth2CredentialId = created.activity.result.createOauth2CredentialResult.oauth2CredentialId;
  const got = await client.getOauth2Credential({ organizationId: parentOrg, oauth2CredentialId });
  assert.equal(got.oauth2Credential.clientId, "discord-client");
  const listed = await client.listOauth2Credentials({ organizationId: parentOrg });
  assert.ok(listed.oauth2Credentials.some((c) => c.oauth2CredentialId === oauth2CredentialId));

  const authenticate = async (nonce) => {
    const verifier = crypto.randomBytes(32).toString("base64url");
    const r = await submit(client.oauth2Authenticate, "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", {
      oauth2CredentialId, authCode: provider.issueCode("80351110224678912", "https://app.example/cb", verifier),
      redirectUri: "https://app.example/cb", codeVerifier: verifier, nonce,
    });
    return r.activity.result.oauth2AuthenticateResult.oidcToken;
  };
  // Sign up with the gateway's own token, then log in with another bound to a session key.
  const signupToken = await authenticate("signup");
  const claims = JSON.parse(Buffer.from(signupToken.split(".")[1], "base64url"));
  assert.equal(claims.sub, "discord:80351110224678912");
  assert.equal(claims.aud, "discord-client");
  assert.equal(claims.iss, published.oidcIssuer);
  const { subOrganizationId } = await api.createSubOrganization({
    subOrganizationName: "discord user", rootQuorumThreshold: 1,
    rootUsers: [{ userName: "d", apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "Discord", oidcToken: signupToken }] }],
  });
  const session = generateKey("p256");
  const { session: jwt } = await api.oauthLogin({ organizationId: subOrganizationId, oidcToken: await authenticate(nonceFor(session.publicKeyHex)), publicKey: session.publicKeyHex });
  assert.equal(await verifySessionJwtSignature(jwt, signerKey), true);
  const me = await apiClientFor(signet, session, subOrganizationId).getWhoami({ organizationId: subOrganizationId });
  assert.equal(me.organizationId, subOrganizationId);
});

function compressedFromPrivate(privateKeyHex) {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, "hex"));
  return ecdh.getPublicKey("hex", "compressed");
}
