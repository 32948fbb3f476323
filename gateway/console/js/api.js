// The public API, as the console calls it: every call a stamped POST to this gateway's own
// /public/v1/query/* or /public/v1/submit/*, the same requests the official SDKs send.

// An answer the gateway refused. `field` is the field its message names ("invalid field
// X: ..."), without the "parameters." prefix, so that a form can show it beside that field;
// `position` is a policy expression's character offset, when the message gives one.
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
    const field = /(?:invalid|missing required) field ([A-Za-z0-9_.[\]]+)/.exec(this.message);
    this.field = field ? field[1].replace(/^parameters\./, "").replace(/:$/, "") : null;
    const at = /at position (\d+)/.exec(this.message);
    this.position = at ? Number(at[1]) : null;
  }
}

export class Api {
  constructor(stamper, organizationId) {
    this.stamper = stamper;
    this.organizationId = organizationId;
  }
  async post(path, payload) {
    const body = JSON.stringify(payload);
    const [name, value] = await this.stamper.stamp(body);
    const response = await fetch(path, { method: "POST", body, credentials: "omit",
      headers: { "Content-Type": "application/json", [name]: value } });
    const text = await response.text();
    let json;
    try { json = JSON.parse(text); } catch { json = { message: text }; }
    if (!response.ok) throw new ApiError(response.status, json);
    return json;
  }
  query(name, body = {}) {
    return this.post(`/public/v1/query/${name}`, { organizationId: this.organizationId, ...body });
  }
  // The activity, whatever its status; a FAILED one becomes an ApiError naming its reason.
  async submit(path, type, parameters, organizationId = this.organizationId) {
    const r = await this.post(`/public/v1/submit/${path}`,
      { type, timestampMs: String(Date.now()), organizationId, parameters });
    const activity = r.activity;
    if (activity?.status === "ACTIVITY_STATUS_FAILED")
      throw new ApiError(400, { message: activity.failure?.message ?? "the activity failed" });
    return activity;
  }
}
