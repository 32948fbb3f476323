// The console's shell: sign-in, the navigation, and a hash router (#/auth, #/activities/<id>)
// that renders one view at a time into <main>. Each view module exports render(ctx, root).
import { Api } from "./api.js";
import { forgetKey, loadKey, saveKey } from "./keystore.js";
import { ApiKeyStamper } from "./stamp.js";
import { h } from "./ui.js";
import * as signin from "./views/signin.js";

const views = {
  auth: ["AUTH", () => import("./views/auth.js")],
  users: ["Users", () => import("./views/users.js")],
  suborgs: ["Sub-organizations", () => import("./views/suborgs.js")],
  wallets: ["Wallets", () => import("./views/wallets.js")],
  policies: ["Policies", () => import("./views/policies.js")],
  activities: ["Activities", () => import("./views/activities.js")],
  webhooks: ["Webhooks", () => import("./views/webhooks.js")],
  plugins: ["Plugins", () => import("./views/plugins.js")],
  health: ["Health", () => import("./views/health.js")],
};

// How long each view took to render, for the health panel and the browser test.
window.consoleTimings = [];

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");
let ctx = null;

async function signedIn(stamper, organizationId, keep) {
  const api = new Api(stamper, organizationId);
  const me = await api.query("whoami");
  if (keep === true) await saveKey({ publicKey: stamper.publicKey, privateKey: stamper.privateKey, organizationId });
  ctx = { api, me, organizationId, signOut };
  who.replaceChildren(h("span", {}, `${me.username} · ${me.organizationName}`),
    h("button", { type: "button", onclick: signOut }, "Sign out"));
  nav.hidden = false;
  if (!location.hash || location.hash === "#/") location.hash = "#/auth";
  else route();
}

async function signOut() {
  await forgetKey();
  ctx = null;
  who.replaceChildren();
  nav.hidden = true;
  location.hash = "#/";
  route();
}

async function route() {
  const [name, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  for (const a of nav.querySelectorAll("a"))
    a.toggleAttribute("aria-current", a.getAttribute("href") === `#/${name}`);
  const started = performance.now();
  if (!ctx) {
    signin.render({ signedIn }, main);
    return;
  }
  const view = views[name] ?? views.auth;
  document.title = `${view[0]} · Signet console`;
  const root = h("div", { class: "view" });
  main.replaceChildren(root);
  try {
    await (await view[1]()).render(ctx, root, rest);
  } catch (e) {
    root.append(h("p", { class: "notice error", role: "alert" }, e.message));
  }
  window.consoleTimings.push({ view: name || "auth", ms: Math.round(performance.now() - started) });
  main.dataset.ready = name || "auth";  // the browser test waits for this
}

nav.append(h("ul", {}, Object.entries(views).map(([key, [label]]) =>
  h("li", {}, h("a", { href: `#/${key}` }, label)))));
window.addEventListener("hashchange", route);
// A link to the view already shown changes no hash: render it again, as a reload would.
nav.addEventListener("click", (e) => {
  if (e.target.closest("a")?.getAttribute("href") === location.hash) route();
});

// A key kept in IndexedDB signs the operator in again.
loadKey().then(async (kept) => {
  if (kept) {
    try {
      await signedIn(new ApiKeyStamper(kept.publicKey, kept.privateKey), kept.organizationId, false);
      return;
    } catch {
      await forgetKey();
    }
  }
  route();
}, () => route());
