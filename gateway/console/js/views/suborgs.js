// Sub-organizations, searchable by the name of the organization or the email, phone number or
// user name of a user in it (list_suborgs' filters), a page at a time.
import { field, filteredList, formError, h, idCell, input, select, table } from "../ui.js";

export async function render(ctx, root) {
  const type = select([["", "all"], ["NAME", "organization name"], ["EMAIL", "email"],
    ["PHONE_NUMBER", "phone number"], ["USERNAME", "user name"]], "");
  const value = input({ type: "search" });
  const form = h("form", { class: "card search", role: "search", "aria-label": "Search sub-organizations" },
    field("Search by", "filterType", type), field("Value", "filterValue", value), formError(),
    h("button", { type: "submit" }, "Search"));
  const list = filteredList(form,
    () => (type.value ? { filterType: type.value, filterValue: value.value.trim() } : {}),
    async (filter, paginationOptions) =>
      (await ctx.api.query("list_suborgs", { ...filter, paginationOptions })).organizationIds, (id) => id,
    (rows) => table("Sub-organizations", [["Organization ID", (id) => idCell(id)]], rows,
      "No sub-organization matches."));
  root.replaceChildren(h("h1", {}, "Sub-organizations"), form, list.element);
  await list.load();
}
