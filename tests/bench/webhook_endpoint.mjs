// Used by http_bench.sh with WEBHOOK=slow: creates a webhook endpoint (every activity update)
// for the benchmark's organization, with @turnkey/sdk-server from tests/conformance.
//   node tests/bench/webhook_endpoint.mjs CREDENTIALS.json URL
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../conformance/package.json", import.meta.url));
const { Turnkey } = require("@turnkey/sdk-server");
const [credentialsFile, url] = process.argv.slice(2);
const credentials = JSON.parse(readFileSync(credentialsFile, "utf8"));
const api = new Turnkey(credentials).apiClient();
const r = await api.createWebhookEndpoint({ url, name: "slow receiver",
  subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
console.log(r.endpointId);
