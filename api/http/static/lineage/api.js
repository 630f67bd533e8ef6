// The page's only data source: POST /graphql, with the bearer token this browser tab was
// given (kept in sessionStorage) and the page's queries, kept as .graphql files beside
// this module so their cost can be checked by the test suite.

import { token } from "../token.js";

const endpoint = new URL("graphql", document.baseURI).href;
const documents = new Map();

export class Unauthenticated extends Error {}

async function document_(name) {
  if (!documents.has(name)) {
    const response = await fetch(new URL(`./${name}.graphql`, import.meta.url));
    documents.set(name, await response.text());
  }
  return documents.get(name);
}

/** The `data` of one named query; Unauthenticated when the service wants a token, an Error
 *  with the answer's `code` when it refused. */
export async function query(name, variables) {
  const headers = { "Content-Type": "application/json" };
  const bearer = token.get();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const body = JSON.stringify({ query: await document_(name), variables });
  const response = await fetch(endpoint, { method: "POST", headers, body });
  const answer = await response.json().catch(() => ({}));
  const error = answer.errors?.[0];
  if (response.status === 401 || error?.extensions?.code === "UNAUTHENTICATED") {
    throw new Unauthenticated(error?.message ?? "");
  }
  if (error) throw Object.assign(new Error(error.message), { code: error.extensions?.code });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return answer.data;
}
