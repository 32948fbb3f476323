// Webhook endpoints with their backlogs, and their latest deliveries (signet_list_webhook_deliveries:
// the newest hundred, and each endpoint's pending and dropped counts), read-only: what was sent
// where, how it went, when the next try is, and what a full backlog dropped.
import { h, idCell, localPages, mono, pager, section, table, time } from "../ui.js";

export async function render(ctx, root) {
  const [{ webhookEndpoints: endpoints = [] }, { deliveries, endpoints: counts = [] }] = await Promise.all([
    ctx.api.query("list_webhook_endpoints"), ctx.api.query("signet_list_webhook_deliveries")]);
  const names = Object.fromEntries(endpoints.map((e) => [e.endpointId, e.name]));
  const countOf = Object.fromEntries(counts.map((c) => [c.endpointId, c]));
  const list = pager((rows) => table("Latest deliveries", [
    ["Created", (d) => time(d.createdAt)], ["Endpoint", (d) => names[d.endpointId] ?? d.endpointId],
    ["Status", (d) => d.status], ["Attempts", (d) => String(d.attempts)],
    ["Last HTTP status", (d) => (d.lastHttpStatus ? String(d.lastHttpStatus) : "")],
    ["Last error", (d) => d.lastError ?? ""], ["Next attempt", (d) => time(d.nextAttemptAt)],
  ], rows, "Nothing delivered yet."), localPages(deliveries));
  root.replaceChildren(h("h1", {}, "Webhooks"),
    section("Endpoints", table("Endpoints", [
      ["Name", (e) => e.name], ["URL", (e) => mono(e.url)], ["Active", (e) => (e.isActive ? "yes" : "no")],
      ["Pending", (e) => String(countOf[e.endpointId]?.backlog ?? 0)],
      ["Dropped (backlog full)", (e) => String(countOf[e.endpointId]?.dropped ?? 0)],
      ["Endpoint ID", (e) => idCell(e.endpointId)],
    ], endpoints, "No endpoints.")),
    section("Latest deliveries", list.element));
  await list.show(0);
}
