// Wallets and their accounts, with each address ready to copy.
import { copyButton, h, idCell, localPages, mono, pager, section, table, time } from "../ui.js";

export async function render(ctx, root, [walletId]) {
  if (walletId) return renderWallet(ctx, root, walletId);
  const { wallets } = await ctx.api.query("list_wallets");
  const list = pager((rows) => table("Wallets", [
    ["Name", (w) => h("a", { href: `#/wallets/${w.walletId}` }, w.walletName)],
    ["Wallet ID", (w) => idCell(w.walletId)], ["Created", (w) => time(w.createdAt)],
  ], rows, "No wallets."), localPages(wallets));
  root.replaceChildren(h("h1", {}, "Wallets"), list.element);
  await list.show(0);
}

async function renderWallet(ctx, root, walletId) {
  const { accounts } = await ctx.api.query("list_wallet_accounts", { walletId });
  const list = pager((rows) => table("Accounts", [
    ["Address", (a) => h("span", { class: "id" }, mono(a.address), " ", copyButton(a.address))],
    ["Format", (a) => a.addressFormat], ["Path", (a) => a.path], ["Curve", (a) => a.curve],
  ], rows, "No accounts."), localPages(accounts));
  root.replaceChildren(h("p", {}, h("a", { href: "#/wallets" }, "← All wallets")),
    h("h1", {}, "Wallet"), h("p", {}, "Wallet ID ", idCell(walletId)), section("Accounts", list.element));
  await list.show(0);
}
