// The AUTH section: the auth proxy of this organization. Enable and disable it, and edit its
// configuration (update_auth_proxy_config): origins, methods, OTP, email and SMS templates
// with a preview rendered by the gateway's own templates, senders, sessions and the wallet
// kit. The server checks every field; its errors are shown beside the field they name.
import { ApiError } from "../api.js";
import { busy, checkbox, copyButton, field, formError, h, input, notice, section, select, showErrors, textarea } from "../ui.js";

const METHODS = ["email", "sms", "passkey", "wallet", "oauth", "google", "apple", "facebook", "x", "discord"];
const SOCIAL = ["google", "apple", "facebook", "x", "discord"];

// An origin as the proxy takes it: exactly scheme://host[:port], or "*" alone. A wildcard
// inside a host would match more than the operator wrote, so the form refuses it first.
export function originProblem(origin) {
  if (origin === "*") return null;
  if (origin.includes("*")) return `"${origin}" has a partial wildcard: list each origin exactly, or use "*" alone`;
  if (!/^https?:\/\/[^/\s?#]+$/.test(origin)) return `"${origin}" is not an origin (scheme://host[:port], no path)`;
  return null;
}

export async function render(ctx, root) {
  let config = null;
  try {
    config = (await ctx.api.query("get_auth_proxy_config")).config;
  } catch (e) {
    if (!(e instanceof ApiError) || e.status >= 500) throw e;
  }
  root.replaceChildren(h("h1", {}, "AUTH"),
    h("p", {}, "The auth proxy lets a browser app with no backend sign users up and in with email or SMS codes and OAuth."));
  const enabled = config?.enabled === true;
  const toggle = h("button", { type: "button" }, enabled ? "Disable the auth proxy" : "Enable the auth proxy");
  const status = h("div", { class: "card status-row" },
    h("p", {}, "Status: ", h("strong", { id: "proxy-status" }, enabled ? "enabled" : "disabled")), toggle);
  toggle.addEventListener("click", () => busy(toggle, async () => {
    try {
      if (enabled) await ctx.api.submit("disable_auth_proxy", "ACTIVITY_TYPE_DISABLE_AUTH_PROXY", {});
      else await ctx.api.submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
      await render(ctx, root);
    } catch (e) {
      status.append(notice(e.message, "error"));
    }
  }));
  root.append(status);
  if (!config) return;
  root.append(h("div", { class: "card" }, h("p", {}, "Config ID (the app's authProxyConfigId): ",
    h("code", { id: "config-id" }, config.configId), " ", copyButton(config.configId))));
  root.append(settingsForm(ctx, root, config.settings ?? {}));
}

function settingsForm(ctx, root, s) {
  const email = s.emailCustomizationParams ?? {};
  const kit = s.walletKitSettings ?? {};
  const methods = s.allowedAuthMethods ?? METHODS;
  const origins = textarea({ rows: 3 });
  origins.value = (s.allowedOrigins ?? ["*"]).join("\n");
  const num = (v, min, max) => input({ type: "number", min, max, value: v ?? "" });
  const text = (v, attrs = {}) => input({ value: v ?? "", ...attrs });
  const f = {
    otpLength: num(s.otpLength ?? 9, 6, 9),
    otpExpirationSeconds: num(s.otpExpirationSeconds, 1, 600),
    verificationTokenExpirationSeconds: num(s.verificationTokenExpirationSeconds, 1, 86400),
    sessionExpirationSeconds: num(s.sessionExpirationSeconds, 1, 31536000),
    sendFromEmailAddress: text(s.sendFromEmailAddress, { type: "email" }),
    sendFromEmailSenderName: text(s.sendFromEmailSenderName),
    replyToEmailAddress: text(s.replyToEmailAddress, { type: "email" }),
    appName: text(email.appName),
    logoUrl: text(email.logoUrl, { type: "url" }),
    magicLinkTemplate: text(email.magicLinkTemplate),
    templateVariables: textarea({ rows: 2 }),
    smsTemplate: textarea({ rows: 2 }),
    oauthRedirectUrl: text(kit.oauthRedirectUrl, { type: "url" }),
    oauthClientIds: textarea({ rows: 3 }),
  };
  f.templateVariables.value = email.templateVariables ?? "";
  f.smsTemplate.value = s.smsCustomizationParams?.template ?? "";
  f.oauthClientIds.value = Object.entries(kit.oauthClientIds ?? {}).map(([k, v]) => `${k}=${v}`).join("\n");
  const alphabet = select([["true", "letters and digits"], ["false", "digits only"]], String(s.otpAlphanumeric ?? true));
  const methodBoxes = h("fieldset", { "data-field": "allowedAuthMethods" }, h("legend", {}, "Auth methods"),
    METHODS.map((m) => checkbox(m, `method-${m}`, methods.includes(m))));
  const socialBoxes = h("fieldset", { "data-field": "walletKitSettings.enabledSocialProviders" },
    h("legend", {}, "Wallet-kit social providers"),
    SOCIAL.map((m) => checkbox(m, `social-${m}`, (kit.enabledSocialProviders ?? []).includes(m))));
  const preview = h("div", { class: "preview", "aria-live": "polite" });
  const previewButton = h("button", { type: "button" }, "Preview the messages");
  const save = h("button", { type: "submit" }, "Save");
  const form = h("form", { class: "card", "aria-label": "Auth proxy settings", novalidate: true },
    section("Origins and methods",
      field("Allowed origins, one per line", "allowedOrigins", origins, "Exact origins such as https://app.example.com, or * alone."),
      methodBoxes, h("p", { class: "field-error", role: "alert", hidden: true })),
    section("One-time codes",
      h("div", { class: "grid" },
        field("Code length", "otpLength", f.otpLength),
        field("Alphabet", "otpAlphanumeric", alphabet),
        field("Code expiry (seconds)", "otpExpirationSeconds", f.otpExpirationSeconds),
        field("Verification token expiry (seconds)", "verificationTokenExpirationSeconds", f.verificationTokenExpirationSeconds))),
    section("Email and SMS",
      h("div", { class: "grid" },
        field("Sender address", "sendFromEmailAddress", f.sendFromEmailAddress),
        field("Sender name", "sendFromEmailSenderName", f.sendFromEmailSenderName),
        field("Reply-to address", "replyToEmailAddress", f.replyToEmailAddress),
        field("App name", "emailCustomizationParams.appName", f.appName),
        field("Logo URL", "emailCustomizationParams.logoUrl", f.logoUrl),
        field("Magic-link template (%s is the bundle)", "emailCustomizationParams.magicLinkTemplate", f.magicLinkTemplate)),
      field("Template variables (a JSON object)", "emailCustomizationParams.templateVariables", f.templateVariables),
      field("SMS template", "smsCustomizationParams.template", f.smsTemplate, "Placeholders: {{.OtpCode}}, {{.AppName}}."),
      previewButton, preview),
    section("Sessions and wallet kit",
      h("div", { class: "grid" },
        field("Session expiry (seconds)", "sessionExpirationSeconds", f.sessionExpirationSeconds),
        field("OAuth redirect URL", "walletKitSettings.oauthRedirectUrl", f.oauthRedirectUrl)),
      socialBoxes,
      field("OAuth client ids, provider=id per line", "walletKitSettings.oauthClientIds", f.oauthClientIds)),
    formError(), save);

  const value = (el) => (el.value.trim() === "" ? null : el.value.trim());
  const number = (el) => (el.value.trim() === "" ? null : Number(el.value));
  const checked = (box, names) => names.filter((n) => box.querySelector(`input[name$="-${n}"]`).checked);
  function settings() {
    const list = origins.value.split("\n").map((o) => o.trim()).filter(Boolean);
    list.forEach((o, i) => {
      const problem = originProblem(o);
      if (problem) throw new ApiError(400, { message: `invalid field allowedOrigins[${i}]: ${problem}` });
    });
    const clientIds = {};
    for (const line of f.oauthClientIds.value.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const [k, ...v] = line.split("=");
      clientIds[k.trim()] = v.join("=").trim();
    }
    return {
      allowedOrigins: list.length ? list : null,
      allowedAuthMethods: checked(methodBoxes, METHODS),
      otpLength: number(f.otpLength), otpAlphanumeric: alphabet.value === "true",
      otpExpirationSeconds: number(f.otpExpirationSeconds),
      verificationTokenExpirationSeconds: number(f.verificationTokenExpirationSeconds),
      sessionExpirationSeconds: number(f.sessionExpirationSeconds),
      sendFromEmailAddress: value(f.sendFromEmailAddress),
      sendFromEmailSenderName: value(f.sendFromEmailSenderName),
      replyToEmailAddress: value(f.replyToEmailAddress),
      emailCustomizationParams: Object.fromEntries(Object.entries({ appName: value(f.appName),
        logoUrl: value(f.logoUrl), magicLinkTemplate: value(f.magicLinkTemplate),
        templateVariables: value(f.templateVariables) }).filter(([, v]) => v !== null)),
      smsCustomizationParams: value(f.smsTemplate) ? { template: value(f.smsTemplate) } : null,
      walletKitSettings: { enabledSocialProviders: checked(socialBoxes, SOCIAL),
        oauthClientIds: clientIds, ...(value(f.oauthRedirectUrl) ? { oauthRedirectUrl: value(f.oauthRedirectUrl) } : {}) },
    };
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(save, async () => {
      try {
        await ctx.api.submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", settings());
        showErrors(form, null);
        form.append(notice("Saved.", "ok"));
      } catch (err) {
        showErrors(form, err);
      }
    });
  });
  previewButton.addEventListener("click", () => busy(previewButton, async () => {
    try {
      const s = settings();
      const p = await ctx.api.query("signet_preview_otp_message", {
        appName: s.emailCustomizationParams.appName, otpLength: s.otpLength ?? 9,
        alphanumeric: s.otpAlphanumeric, expirationSeconds: s.otpExpirationSeconds ?? 300,
        emailCustomization: { ...s.emailCustomizationParams, appName: undefined },
        ...(s.smsCustomizationParams ? { smsCustomization: s.smsCustomizationParams } : {}),
        ...(s.sendFromEmailAddress ? { sendFromEmailAddress: s.sendFromEmailAddress } : {}),
        ...(s.sendFromEmailSenderName ? { sendFromEmailSenderName: s.sendFromEmailSenderName } : {}),
        ...(s.replyToEmailAddress ? { replyToEmailAddress: s.replyToEmailAddress } : {}) });
      showErrors(form, null);
      preview.replaceChildren(
        h("h3", {}, "Email"),
        h("dl", {}, h("dt", {}, "From"), h("dd", {}, `${p.email.fromName} <${p.email.fromAddress}>`),
          p.email.replyTo ? [h("dt", {}, "Reply-to"), h("dd", {}, p.email.replyTo)] : null,
          h("dt", {}, "Subject"), h("dd", { id: "preview-subject" }, p.email.subject)),
        h("pre", { id: "preview-email" }, p.email.text),
        h("h3", {}, "SMS"), h("pre", { id: "preview-sms" }, p.sms.text));
    } catch (err) {
      // init_otp's names for the template fields are the configuration's without "Params".
      if (err.field) err.field = err.field.replace(/^(email|sms)Customization\./, "$1CustomizationParams.");
      showErrors(form, err);
    }
  }));
  return form;
}
