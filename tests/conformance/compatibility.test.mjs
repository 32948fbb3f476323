// docs/compatibility.md tells the truth: it is what compatibility.mjs generates from this build,
// and a stamped request to each operation it calls absent answers 404, one to each it says
// answers 501 does, while one to each it calls implemented gets an answer of that operation (its
// result, or its own refusal of the placeholder body), never 404 or 501.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { docPath, refusedByDesign, table } from "./compatibility.mjs";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, stamper;
before(async () => {
  signet = await startSignet(rootKey);
  stamper = new ApiKeyStamper({ apiPublicKey: rootKey.publicKeyHex, apiPrivateKey: rootKey.privateKeyHex });
});
after(async () => { await signet?.stop(); });

test("docs/compatibility.md is current (regenerate with compatibility.mjs --write)", () => {
  assert.equal(readFileSync(docPath, "utf8"), table(process.env.SIGNET_BINARY));
});

test("each operation answers as the table says", async () => {
  const rows = readFileSync(docPath, "utf8").split("\n").filter((l) => l.startsWith("| `/"));
  assert.ok(rows.length > 150);
  for (const row of rows) {
    const path = row.split("`")[1];
    const implemented = row.includes("| implemented |");
    const refused = row.includes("| answers 501: ");
    const organizationId = signet.ids.organizationId;
    const body = JSON.stringify(path.includes("/submit/")
      ? { type: "ACTIVITY_TYPE_PLACEHOLDER", timestampMs: String(Date.now()), organizationId, parameters: {} }
      : { organizationId, ...(refusedByDesign.get(path)?.body ?? {}) });
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body);
    const r = await fetch(`${signet.baseUrl}${path}`, {
      method: "POST", headers: { "content-type": "application/json", [stampHeaderName]: stampHeaderValue }, body,
    });
    const text = await r.text();
    if (implemented) {
      assert.notEqual(r.status, 404, `${path} is implemented but answered ${text}`);
      assert.notEqual(r.status, 501, `${path} is counted as implemented but answered ${text}`);
    } else if (refused) {
      assert.equal(r.status, 501, `${path} is listed as refused by design but answered ${r.status} ${text}`);
    } else {
      assert.equal(r.status, 404, `${path} is absent but answered ${r.status} ${text}`);
    }
  }
});
