// The gateway's enabled plugins and every activity type whose rollout is not general, as it
// stands for this organization: read-only (the operator changes them with `signet plugins`
// and `signet rollout` on the gateway's machine).
import { h, section, table } from "../ui.js";

export async function render(ctx, root) {
  const s = await ctx.api.query("signet_get_gateway_status");
  root.replaceChildren(h("h1", {}, "Plugins and rollout"),
    section("Enabled plugins", table("Enabled plugins", [
      ["Name", (p) => p.name], ["Version", (p) => p.version], ["What it does", (p) => p.description],
      ["Activities", (p) => String(p.activityCount)], ["Queries", (p) => String(p.queryCount)],
    ], s.plugins)),
    section("Rollout", table("Activity types not generally available", [
      ["Activity type", (r) => r.activityType], ["State", (r) => r.state + (r.percent !== undefined ? ` (${r.percent} %)` : "")],
      ["This organization", (r) => (r.admitsThisOrganization ? "admitted" : "refused")],
      ["Use instead", (r) => r.replacement ?? ""], ["Set by", (r) => (r.setByOperator ? "operator" : "plugin default")],
    ], s.rollouts, "Every activity type is generally available.")));
}
