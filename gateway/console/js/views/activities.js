// Activities: a filtered list, a page at a time; a detail view with the intent, the result
// and the votes; and approve or reject, signed with the operator's own credential, for an
// activity that waits on consensus.
import { busy, field, filteredList, formError, h, idCell, input, mono, notice, section, select, table, time } from "../ui.js";

const STATUSES = ["CREATED", "PENDING", "COMPLETED", "FAILED", "CONSENSUS_NEEDED", "REJECTED"];
const short = (s) => (s ?? "").replace(/^ACTIVITY_(STATUS|TYPE)_/, "");

export async function render(ctx, root, [activityId]) {
  if (activityId) return renderActivity(ctx, root, activityId);
  const status = select([["", "any"], ...STATUSES.map((s) => [`ACTIVITY_STATUS_${s}`, s.toLowerCase().replace("_", " ")])], "");
  const type = input({ placeholder: "ACTIVITY_TYPE_CREATE_WALLET" });
  const form = h("form", { class: "card search", "aria-label": "Filter activities" },
    field("Status", "filterByStatus", status), field("Type", "filterByType", type), formError(),
    h("button", { type: "submit" }, "Filter"));
  const list = filteredList(form, () => ({
    ...(status.value ? { filterByStatus: [status.value] } : {}),
    ...(type.value.trim() ? { filterByType: [type.value.trim()] } : {}),
  }), async (filters, paginationOptions) =>
    (await ctx.api.query("list_activities", { ...filters, paginationOptions })).activities, (a) => a.id,
  (rows) => table("Activities", [
    ["Created", (a) => time(a.createdAt)],
    ["Type", (a) => h("a", { href: `#/activities/${a.id}` }, short(a.type))],
    ["Status", (a) => h("span", { class: `status ${short(a.status).toLowerCase()}` }, short(a.status))],
    ["Activity ID", (a) => idCell(a.id)],
  ], rows, "No activities match."));
  root.replaceChildren(h("h1", {}, "Activities"), form, list.element);
  await list.load();
}

async function renderActivity(ctx, root, id) {
  const { activity: a } = await ctx.api.query("get_activity", { activityId: id });
  const outcome = h("div", { "aria-live": "polite" });
  const decide = (path, type, label) => {
    const b = h("button", { type: "button" }, label);
    b.addEventListener("click", () => busy(b, async () => {
      try {
        await ctx.api.submit(path, type, { fingerprint: a.fingerprint });
        await renderActivity(ctx, root, id);
        root.append(notice(`${label}d.`, "ok"));
      } catch (e) {
        outcome.replaceChildren(notice(e.message, "error"));
      }
    }));
    return b;
  };
  const waiting = a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED";
  const votes = a.votes ?? [];
  root.replaceChildren(...[
    h("p", {}, h("a", { href: "#/activities" }, "← All activities")),
    h("h1", {}, short(a.type)),
    h("dl", { class: "facts" },
      h("dt", {}, "Status"), h("dd", { id: "activity-status" }, short(a.status)),
      h("dt", {}, "Activity ID"), h("dd", {}, idCell(a.id)),
      h("dt", {}, "Fingerprint"), h("dd", {}, mono(a.fingerprint ?? "")),
      h("dt", {}, "Created"), h("dd", {}, time(a.createdAt))),
    waiting ? section("Decision", h("p", {}, "This activity waits for approvals. Your vote is signed with your own credential."),
      h("div", { class: "actions" }, decide("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", "Approve"), " ",
        decide("reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", "Reject")), outcome) : null,
    section("Votes", table("Votes", [
      ["User", (v) => idCell(v.userId)], ["Selection", (v) => short(v.selection).replace("VOTE_SELECTION_", "")],
      ["At", (v) => time(v.createdAt)]], votes, "No votes.")),
    section("Intent", h("pre", { class: "json" }, JSON.stringify(a.intent, null, 2))),
    a.result ? section("Result", h("pre", { class: "json" }, JSON.stringify(a.result, null, 2))) : null,
    a.failure ? section("Failure", h("pre", { class: "json" }, JSON.stringify(a.failure, null, 2))) : null,
  ].filter(Boolean));
}
