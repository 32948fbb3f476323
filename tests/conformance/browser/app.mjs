// The browser app of browser.test.mjs: @turnkey/core as a web app uses it, bundled for the
// browser by esbuild. Each step is a function the test calls, since the test reads the OTP
// code from the gateway's outbox between steps. Only one @turnkey/core step cannot take
// Signet's key: see verify().
import { TurnkeyClient, getAuthProxyConfig, getClientParams } from "@turnkey/core";
import { encryptOtpCodeToBundle } from "@turnkey/crypto";

let client;

window.app = {
  async start({ apiBaseUrl, authProxyUrl, authProxyConfigId, organizationId }) {
    client = new TurnkeyClient({ apiBaseUrl, authProxyUrl, authProxyConfigId, organizationId });
    await client.init();
    return true;
  },
  // What the React wallet kit reads first, with no body at all.
  async kitConfig(authProxyConfigId, authProxyUrl) {
    return { config: await getAuthProxyConfig(authProxyConfigId, authProxyUrl),
             params: await getClientParams(authProxyConfigId, authProxyUrl) };
  },
  async initOtp(contact) {
    return await client.initOtp({ otpType: "OTP_TYPE_EMAIL", contact });
  },
  // client.verifyOtp() checks the target bundle against the hosted service's pinned key and
  // takes no override, so this does what it does with @turnkey/crypto's override argument:
  // a key pair from the client's own stamper, the code encrypted to the bundle, and the
  // client's own proxyVerifyOtpV2.
  async verify(otpId, otpCode, otpEncryptionTargetBundle, signerPublicKey) {
    const publicKey = await client.createApiKeyPair();
    const encryptedOtpBundle = await encryptOtpCodeToBundle(otpCode, otpEncryptionTargetBundle,
      publicKey, signerPublicKey);
    const r = await client.httpClient.proxyVerifyOtpV2({ otpId, encryptedOtpBundle });
    return { verificationToken: r.verificationToken, publicKey };
  },
  async account(contact, verificationToken) {
    return await client.httpClient.proxyGetAccount({ filterType: "EMAIL", filterValue: contact,
      verificationToken });
  },
  async signUp(verificationToken, contact) {
    return await client.signUpWithOtp({ verificationToken, contact, otpType: "OTP_TYPE_EMAIL" });
  },
  async login(verificationToken) {
    return await client.loginWithOtp({ verificationToken });
  },
  // A request stamped with the session key the login left in the browser's IndexedDB.
  async whoami(organizationId) {
    return await client.httpClient.getWhoami({ organizationId });
  },
};
