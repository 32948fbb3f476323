// The organization's users and their credentials (API keys and passkeys), and the IP allowlists
// that fence its API keys (set_ip_allowlist). The signed-in user can register a passkey here,
// to sign in with it next time.
import { createPasskey } from "../stamp.js";
import { busy, h, idCell, localPages, mono, notice, pager, section, table, time } from "../ui.js";

export async function render(ctx, root, [userId]) {
  const { users } = await ctx.api.query("list_users");
  if (userId) return renderUser(ctx, root, users.find((u) => u.userId === userId));
  const list = pager((rows) => table("Users", [
    ["Name", (u) => h("a", { href: `#/users/${u.userId}` }, u.userName)],
    ["Email", (u) => u.userEmail ?? ""],
    ["Phone", (u) => u.userPhoneNumber ?? ""],
    ["API keys", (u) => String(u.apiKeys.length)],
    ["Passkeys", (u) => String(u.authenticators.length)],
    ["User ID", (u) => idCell(u.userId)],
  ], rows), localPages(users));
  root.replaceChildren(h("h1", {}, "Users"), list.element, await allowlists(ctx, users));
  await list.show(0);
}

// The organization's own allowlist when it is on, and each API key's that has rules.
async function allowlists(ctx, users) {
  const keys = users.flatMap((u) => u.apiKeys.map((k) => ({ user: u, key: k })));
  const [own, ...ofKeys] = await Promise.all([
    ctx.api.query("get_ip_allowlist"),
    ...keys.map(({ key }) => ctx.api.query("get_ip_allowlist", { publicKey: key.credential.publicKey })),
  ]);
  const rows = [];
  if (own.allowlist.enabled) rows.push({ scope: "Every API key of the organization", list: own.allowlist });
  ofKeys.forEach(({ allowlist }, i) => {
    if (allowlist.rules.length)
      rows.push({ scope: `${keys[i].key.apiKeyName} (${keys[i].user.userName})`, list: allowlist });
  });
  const rules = (list) => list.rules.map((r) => (r.label ? `${r.cidr} (${r.label})` : r.cidr)).join(", ");
  return section("IP allowlists", table("IP allowlists", [
    ["Applies to", (r) => r.scope],
    ["Allowed networks", (r) => mono(rules(r.list) || "none: every address is refused")],
    ["When unreadable", (r) => (r.list.onEvaluationError === "ALLOW" ? "allow" : "deny")],
  ], rows, "No IP allowlist: API keys are accepted from any address."));
}

async function renderUser(ctx, root, user) {
  if (!user) {
    root.replaceChildren(notice("No such user in this organization.", "error"));
    return;
  }
  const self = user.userId === ctx.me.userId;
  const add = h("button", { type: "button", id: "add-passkey" }, "Register a passkey for this user");
  const outcome = h("div", { "aria-live": "polite" });
  add.addEventListener("click", () => busy(add, async () => {
    try {
      const passkey = await createPasskey(user.userName);
      await ctx.api.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", {
        userId: user.userId,
        authenticators: [{ authenticatorName: `console passkey ${new Date().toISOString().slice(0, 10)}`, ...passkey }] });
      await render(ctx, root, [user.userId]);
      root.append(notice("Passkey registered.", "ok"));
    } catch (e) {
      outcome.replaceChildren(notice(e.message, "error"));
    }
  }));
  root.replaceChildren(
    h("p", {}, h("a", { href: "#/users" }, "← All users")),
    h("h1", {}, user.userName),
    h("p", {}, "User ID ", idCell(user.userId), user.userEmail ? ` · ${user.userEmail}` : ""),
    section("API keys", table("API keys", [
      ["Name", (k) => k.apiKeyName], ["Public key", (k) => mono(k.credential.publicKey)],
      ["Type", (k) => k.credential.type], ["Created", (k) => time(k.createdAt)],
      ["Expires after", (k) => (k.expirationSeconds ? `${k.expirationSeconds} s` : "never")],
    ], user.apiKeys, "No API keys.")),
    section("Passkeys", table("Passkeys", [
      ["Name", (a) => a.authenticatorName], ["Credential ID", (a) => mono(a.credentialId)],
      ["Created", (a) => time(a.createdAt)],
    ], user.authenticators, "No passkeys."), self ? add : null, outcome));
}
