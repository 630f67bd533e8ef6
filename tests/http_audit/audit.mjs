// The GraphQL over HTTP spec's own audit suite (graphql-http's auditServer) against a
// served Threadline: `node audit.mjs <graphql url>`, with THREADLINE_TOKEN holding a
// token of the service when it has a tokens file. Prints every audit that is not a
// success and exits 1 when any is a warning or an error.
import { auditServer } from "graphql-http";

const url = process.argv[2];
if (!url) {
  console.error("usage: node audit.mjs <graphql url>");
  process.exit(2);
}
const token = process.env.THREADLINE_TOKEN;

// Every audit request carries the token, as a signed-in client's would.
function fetchFn(input, init = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return fetch(input, { ...init, headers });
}

const results = await auditServer({ url, fetchFn });
const counts = { ok: 0, warn: 0, error: 0 };
for (const result of results) {
  counts[result.status] += 1;
  if (result.status === "ok") continue;
  let body = "";
  if (result.response) {
    body = ` -> ${result.response.status} ${result.response.headers.get("content-type")} ${await result.response.text()}`;
  }
  console.log(`${result.status} ${result.id} ${result.name}: ${result.reason}${body}`);
}
console.log(`graphql-http audit: ${counts.ok} ok, ${counts.warn} warnings, ${counts.error} errors`);
process.exit(counts.warn || counts.error ? 1 : 0);
