// A small health panel: the gateway's liveness probe, its store and version, the clock
// difference with this browser (stamps and activities carry timestamps), and how fast the
// console itself loaded and rendered.
import { h, section } from "../ui.js";

export async function render(ctx, root) {
  const started = performance.now();
  const probe = await fetch("/healthz", { credentials: "omit" });
  const probeMs = Math.round(performance.now() - started);
  const s = await ctx.api.query("signet_get_gateway_status");
  const skew = Math.round((Number(s.nowMs) - Date.now()) / 1000);
  const nav = performance.getEntriesByType("navigation")[0];
  const views = window.consoleTimings.slice(-8);
  const row = (label, value, id) => [h("dt", {}, label), h("dd", id ? { id } : {}, value)];
  root.replaceChildren(h("h1", {}, "Health"),
    section("Gateway", h("dl", { class: "facts" },
      row("Liveness (/healthz)", `${probe.ok ? "ok" : `HTTP ${probe.status}`} in ${probeMs} ms`, "health-probe"),
      row("Store", s.storeUp ? "answering" : "not answering", "health-store"),
      row("Version", s.version),
      row("Organizations stored", s.organizationCount),
      row("Enabled plugins", String(s.plugins.length)),
      row("Clock difference with this browser", `${skew} s`))),
    section("This console", h("dl", { class: "facts" },
      row("Page loaded in", nav ? `${Math.round(nav.loadEventEnd || nav.domContentLoadedEventEnd)} ms` : "unknown", "page-load"),
      views.map((v) => row(`Rendered ${v.view}`, `${v.ms} ms`)))));
}
