// An OpenID Connect provider on loopback that this project did not write: `oidc-provider`
// (panva's certified OP implementation). Its ID tokens come out of a real authorization code
// flow: the authorization request with the client's nonce, the login and consent interactions
// (answered here for the account the test names, as a user would click through them), the
// code's redirect, and the token request with the client's secret. Signet then fetches its
// discovery document and JWKS like any issuer's. What a provider does wrong (slow, down, keys
// rotated) stays with the project's own issuer in tests/support/oidc_issuer.cpp.
import crypto from "node:crypto";
import http from "node:http";
import Provider from "oidc-provider";

const redirectUri = "https://app.example/callback";

// `clients`: the client ids tokens are issued to (each token's aud).
export async function startOidcProvider(clients) {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const provider = new Provider(url, {
    clients: clients.map((id) => ({
      client_id: id, client_secret: `secret of ${id}`, redirect_uris: [redirectUri],
      grant_types: ["authorization_code"], response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    })),
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "oidc-provider-rs256", alg: "RS256", use: "sig" }] },
    findAccount: (ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => false },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
  });
  // The interactions a user would click through: log in as the login_hint, consent to openid.
  server.on("request", async (req, res) => {
    if (!req.url.startsWith("/interaction/")) return provider.callback()(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === "login") {
        return await provider.interactionFinished(req, res,
          { login: { accountId: details.params.login_hint } }, { mergeWithLastSubmission: false });
      }
      const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
      grant.addOIDCScope("openid");
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true });
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });

  // An ID token for `sub`, issued to `clientId` with `nonce`, through the whole flow.
  async function token(sub, nonce, clientId = clients[0]) {
    const cookies = new Map();
    const keep = (response) => {
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const at = pair.indexOf("=");
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
    };
    const authorize = new URL(`${url}/auth`);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: "code",
      scope: "openid", nonce, state: crypto.randomUUID(), login_hint: sub }))
      authorize.searchParams.set(k, v);
    let next = authorize.href, code = null;
    for (let hop = 0; hop < 10 && !code; ++hop) {
      const response = await fetch(next, { redirect: "manual",
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } });
      keep(response);
      const location = response.headers.get("location");
      if (!location) throw new Error(`oidc-provider stopped at ${next}: ${response.status} ${await response.text()}`);
      next = new URL(location, next).href;
      if (next.startsWith(redirectUri)) {
        const back = new URL(next);
        if (back.searchParams.get("error")) throw new Error(`oidc-provider: ${back.search}`);
        code = back.searchParams.get("code");
      }
    }
    if (!code) throw new Error("oidc-provider gave no code within 10 redirects");
    const answer = await fetch(`${url}/token`, { method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri,
        client_id: clientId, client_secret: `secret of ${clientId}` }) });
    const body = await answer.json();
    if (!body.id_token) throw new Error(`oidc-provider's token endpoint: ${JSON.stringify(body)}`);
    return body.id_token;
  }

  return {
    url, token,
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
}
