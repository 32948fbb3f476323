// Sign-in, two ways: an API key pasted as hex (imported non-extractable, kept for the tab or,
// if asked, in IndexedDB), or a passkey registered on the user, which stamps one stamp_login
// that registers a fresh non-extractable session key for the rest of the visit.
import { Api } from "../api.js";
import { generateSessionKey, importApiKey, PasskeyStamper } from "../stamp.js";
import { busy, checkbox, field, formError, h, input, section, showErrors } from "../ui.js";

export function render({ signedIn }, root) {
  document.title = "Sign in · Signet console";
  const org = input({ required: true, placeholder: "organization id" });
  const pub = input({ required: true, placeholder: "02… or 03…" });
  const priv = input({ type: "password", required: true, autocomplete: "off" });
  const keep = checkbox("Keep this key in this browser (IndexedDB, non-extractable)", "keep", false);
  const apiForm = h("form", { class: "card", "aria-label": "Sign in with an API key" },
    field("Organization ID", "organizationId", org),
    field("API public key", "publicKey", pub),
    field("API private key", "privateKey", priv, "Imported into WebCrypto as a non-extractable key; the text is cleared at once."),
    keep, formError(), h("button", { type: "submit" }, "Sign in with API key"));
  apiForm.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(apiForm.querySelector("button[type=submit]"), async () => {
      try {
        const stamper = await importApiKey(pub.value, priv.value);
        priv.value = "";
        await signedIn(stamper, org.value.trim(), keep.querySelector("input").checked);
      } catch (err) {
        showErrors(apiForm, err);
      }
    });
  });

  const passkeyOrg = input({ required: true, placeholder: "organization id" });
  const passkeyForm = h("form", { class: "card", "aria-label": "Sign in with a passkey" },
    field("Organization ID", "organizationId", passkeyOrg),
    formError(), h("button", { type: "submit" }, "Sign in with a passkey"));
  passkeyForm.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(passkeyForm.querySelector("button[type=submit]"), async () => {
      try {
        const organizationId = passkeyOrg.value.trim();
        const session = await generateSessionKey();
        await new Api(new PasskeyStamper(), organizationId).submit("stamp_login",
          "ACTIVITY_TYPE_STAMP_LOGIN", { publicKey: session.publicKey, expirationSeconds: "3600" });
        await signedIn(session, organizationId, false);
      } catch (err) {
        showErrors(passkeyForm, err);
      }
    });
  });

  root.replaceChildren(h("h1", {}, "Sign in to the Signet console"),
    h("p", {}, "Every call the console makes is an ordinary stamped API request made in this browser. It has no privileges of its own."),
    h("div", { class: "columns" }, section("API key", apiForm), section("Passkey", passkeyForm)));
  main.dataset.ready = "signin";
}
const main = document.getElementById("main");
