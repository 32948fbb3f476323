// whoami with nothing but a credentials file that `signet org create` generated: the file's
// fields are @turnkey/sdk-server's configuration, so it goes to the SDK as it is.
//   node tests/conformance/whoami.mjs signet-data/<organizationId>.api-key.json
// scripts/fresh-debian.sh runs it against the gateway `scripts/run.sh` started; the
// conformance suite calls whoamiWith() (credentials.test.mjs).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Turnkey } from "@turnkey/sdk-server";

export async function whoamiWith(credentialsFile) {
  const credentials = JSON.parse(readFileSync(credentialsFile, "utf8"));
  const client = new Turnkey(credentials).apiClient();
  return client.getWhoami({ organizationId: credentials.defaultOrganizationId });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.length !== 3) {
    console.error("usage: node whoami.mjs CREDENTIALS_FILE");
    process.exit(2);
  }
  console.log(JSON.stringify(await whoamiWith(process.argv[2])));
}
