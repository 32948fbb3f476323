// Policies, and an editor for them. The console does not parse the policy language itself:
// the gateway's parser judges every expression, and an error it reports at a position is shown
// beside the field with that position marked and the caret placed there.
import { busy, field, formError, h, idCell, input, mono, notice, section, select, showErrors, table, textarea } from "../ui.js";

export async function render(ctx, root) {
  const { policies } = await ctx.api.query("list_policies");
  const name = input({ required: true });
  const effect = select([["EFFECT_ALLOW", "allow"], ["EFFECT_DENY", "deny"]], "EFFECT_ALLOW");
  const condition = textarea({ rows: 3, placeholder: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'" });
  const consensus = textarea({ rows: 2, placeholder: "approvers.any(user, user.id == '…')" });
  const notes = input();
  const marker = { condition: h("pre", { class: "marker", hidden: true, "aria-hidden": "true" }),
    consensus: h("pre", { class: "marker", hidden: true, "aria-hidden": "true" }) };
  let editing = null;  // the policy id being edited, or null for a new policy
  const heading = h("h2", { id: "editor-heading" }, "New policy");
  const save = h("button", { type: "submit" }, "Create policy");
  const cancel = h("button", { type: "button", hidden: true }, "Cancel editing");
  const form = h("form", { class: "card", "aria-labelledby": "editor-heading", novalidate: true }, heading,
    field("Name", "policyName", name),
    field("Effect", "effect", effect),
    field("Condition", "condition", condition, "Which activities the policy is about; empty means all."), marker.condition,
    field("Consensus", "consensus", consensus, "Who must approve; empty means the policy needs no approvals."), marker.consensus,
    field("Notes", "notes", notes), formError(), save, " ", cancel);

  function edit(p) {
    editing = p?.policyId ?? null;
    name.value = p?.policyName ?? "";
    effect.value = p?.effect ?? "EFFECT_ALLOW";
    condition.value = p?.condition ?? "";
    consensus.value = p?.consensus ?? "";
    notes.value = p?.notes ?? "";
    heading.textContent = editing ? `Edit policy ${p.policyName}` : "New policy";
    save.textContent = editing ? "Save policy" : "Create policy";
    cancel.hidden = !editing;
    name.focus();
  }
  cancel.addEventListener("click", () => edit(null));

  // The gateway's error, beside its field; a position is marked under the expression.
  function showPolicyError(err) {
    for (const m of Object.values(marker)) m.hidden = true;
    if (err.field) err.field = err.field.replace(/^policy([A-Z])/, (_, c) => c.toLowerCase())
      .replace(/^name$/, "policyName");
    showErrors(form, err);
    const control = { condition, consensus }[err.field];
    if (control && err.position !== null) {
      const at = Math.min(err.position, control.value.length);
      const lineStart = control.value.lastIndexOf("\n", at - 1) + 1;
      const lineEnd = control.value.indexOf("\n", at);
      const line = control.value.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
      marker[err.field].textContent = `${line}\n${" ".repeat(at - lineStart)}^ position ${err.position}`;
      marker[err.field].hidden = false;
      control.setSelectionRange(at, Math.min(at + 1, control.value.length));
    }
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(save, async () => {
      try {
        if (editing)
          await ctx.api.submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", {
            policyId: editing, policyName: name.value, policyEffect: effect.value,
            policyCondition: condition.value, policyConsensus: consensus.value, policyNotes: notes.value });
        else
          await ctx.api.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", {
            policyName: name.value, effect: effect.value,
            ...(condition.value.trim() ? { condition: condition.value } : {}),
            ...(consensus.value.trim() ? { consensus: consensus.value } : {}), notes: notes.value });
        await render(ctx, root);
        root.append(notice(editing ? "Policy saved." : "Policy created.", "ok"));
      } catch (err) {
        showPolicyError(err);
      }
    });
  });

  const remove = (p) => async (e) => {
    await busy(e.target, async () => {
      try {
        await ctx.api.submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", { policyId: p.policyId });
        await render(ctx, root);
      } catch (err) {
        root.append(notice(err.message, "error"));
      }
    });
  };
  root.replaceChildren(h("h1", {}, "Policies"),
    section("Policies of this organization", table("Policies", [
      ["Name", (p) => p.policyName], ["Effect", (p) => p.effect],
      ["Condition", (p) => mono(p.condition ?? "")], ["Consensus", (p) => mono(p.consensus ?? "")],
      ["Policy ID", (p) => idCell(p.policyId)],
      ["", (p) => h("span", {}, h("button", { type: "button", onclick: () => edit(p) }, "Edit"), " ",
        h("button", { type: "button", onclick: remove(p) }, "Delete"))],
    ], policies, "No policies: only the root quorum can act.")), form);
}
