// Small DOM helpers the views share. Everything is built with createElement and textContent:
// nothing from the server is ever parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false && c !== "")
    el.append(c instanceof Node ? c : String(c));
  return el;
}

let uniqueId = 0;
const nextId = (prefix) => `${prefix}-${++uniqueId}`;

// A labelled input. `name` is the API field it edits: an error naming that field is shown
// beside it (showErrors).
export function field(label, name, control, hint) {
  const id = nextId("f");
  control.id = id;
  control.name = name;
  control.dataset.field = name;
  const error = h("p", { class: "field-error", id: `${id}-error`, role: "alert", hidden: true });
  const help = hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null;
  control.setAttribute("aria-describedby", [help?.id, error.id].filter(Boolean).join(" "));
  return h("div", { class: "field" }, h("label", { for: id }, label), control, help, error);
}
export const input = (attrs = {}) => h("input", { type: "text", autocomplete: "off", spellcheck: "false", ...attrs });
export const textarea = (attrs = {}) => h("textarea", { rows: 3, spellcheck: "false", ...attrs });
export function checkbox(label, name, checked) {
  const box = h("input", { type: "checkbox", name, checked: !!checked });
  box.dataset.field = name;
  return h("label", { class: "check" }, box, " ", label);
}
export function select(options, value) {
  return h("select", {}, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
}

// Clears a form's errors, then shows `error` beside the field it names (or the longest known
// field name it starts with: "allowedOrigins[1]" belongs to "allowedOrigins"), else at the
// form's foot. Focus moves to the field, so a keyboard user lands on what to fix.
export function showErrors(form, error) {
  for (const p of form.querySelectorAll(".field-error, .form-error")) { p.hidden = true; p.textContent = ""; }
  for (const c of form.querySelectorAll("[aria-invalid]")) c.removeAttribute("aria-invalid");
  if (!error) return;
  let target = null;
  if (error.field) {
    const controls = [...form.querySelectorAll("[data-field]")]
      .filter((c) => error.field === c.dataset.field || error.field.startsWith(c.dataset.field + ".") ||
        error.field.startsWith(c.dataset.field + "["))
      .sort((a, b) => b.dataset.field.length - a.dataset.field.length);
    target = controls[0] ?? null;
  }
  const slot = target?.closest(".field")?.querySelector(".field-error") ?? form.querySelector(".form-error");
  slot.textContent = error.message;
  slot.hidden = false;
  if (target) {
    target.setAttribute("aria-invalid", "true");
    target.focus();
  }
}
export const formError = () => h("p", { class: "form-error", role: "alert", hidden: true });

export function copyButton(text, label = "Copy") {
  const button = h("button", { type: "button", class: "copy", "aria-label": `${label} ${text}` }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select and copy";  // clipboard refused (no permission): say so
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}
export const mono = (text) => h("code", {}, text);
export const idCell = (id) => h("span", { class: "id" }, mono(id), " ", copyButton(id));
export const time = (ts) => {
  const ms = Number(ts?.seconds ? ts.seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : ts);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "";
};

// A table with a caption; `columns` are [heading, row -> cell].
export function table(caption, columns, rows, empty = "Nothing here yet.") {
  if (!rows.length) return h("p", { class: "empty" }, empty);
  return h("div", { class: "table-wrap" }, h("table", {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, columns.map(([heading]) => h("th", { scope: "col" }, heading)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, columns.map(([heading, cell]) =>
      h("td", { "data-label": heading }, cell(row))))))));
}

// Pages of a server list: `load(cursor)` returns {rows, next}; Previous goes back through the
// cursors seen. The page size is the API's paginationOptions.limit.
export function pager(render, load) {
  const box = h("div", { class: "pager-box" });
  const cursors = [undefined];
  let page = 0;
  const prev = h("button", { type: "button", onclick: () => show(page - 1) }, "Previous");
  const next = h("button", { type: "button", onclick: () => show(page + 1) }, "Next");
  const status = h("span", { class: "page-status", "aria-live": "polite" });
  async function show(n) {
    const { rows, next: cursor } = await load(cursors[n]);
    page = n;
    if (cursor !== undefined) cursors[n + 1] = cursor;
    box.replaceChildren(render(rows));
    prev.disabled = page === 0;
    next.disabled = cursor === undefined;
    status.textContent = `Page ${page + 1}`;
  }
  const nav = h("nav", { class: "pager", "aria-label": "Pages" }, prev, status, next);
  return { element: h("div", {}, box, nav), show };
}
export const PAGE = 20;

export function section(title, ...children) {
  return h("section", { "aria-labelledby": title.replace(/\W+/g, "-").toLowerCase() },
    h("h2", { id: title.replace(/\W+/g, "-").toLowerCase() }, title), ...children);
}
export function notice(text, kind = "info") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}
// Runs a button's action with the button disabled meanwhile.
export async function busy(button, action) {
  button.disabled = true;
  try { return await action(); } finally { button.disabled = false; }
}

// Pages over a list the API returns whole (users, wallets, accounts): cursors are offsets.
export const localPages = (list) => async (offset = 0) =>
  ({ rows: list.slice(offset, offset + PAGE), next: offset + PAGE < list.length ? offset + PAGE : undefined });
// Pages of a server list with paginationOptions: one row more than shown says a next page
// exists; the last row shown is its cursor.
export const serverPages = (fetchPage, idOf) => async (after) => {
  const rows = await fetchPage({ limit: String(PAGE + 1), ...(after ? { after } : {}) });
  return { rows: rows.slice(0, PAGE), next: rows.length > PAGE ? idOf(rows[PAGE - 1]) : undefined };
};

// A search form over a paged server list: each submission starts again at page one with the
// form's current filters (`filters()`); a refused filter is shown beside its field.
// `fetchPage(filters, paginationOptions)` returns the rows, `render(rows)` their table.
export function filteredList(form, filters, fetchPage, idOf, render) {
  const results = h("div", {});
  async function load() {
    const current = filters();
    const list = pager(render, serverPages((options) => fetchPage(current, options), idOf));
    results.replaceChildren(list.element);
    await list.show(0);
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await load();
      showErrors(form, null);
    } catch (err) {
      showErrors(form, err);
    }
  });
  return { element: results, load };
}
