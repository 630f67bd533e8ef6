// The client without a service: what it sends, and how it reports the service's errors.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ThreadlineClient, ThreadlineError } from "../src/client.ts";
import {
  CreateThreadDocument,
  StartRunDocument,
  ThreadDocument,
  ThreadItemsDocument,
} from "../src/generated/graphql.ts";

type Sent = { url: string; headers: Record<string, string>; body: { query: string; variables: unknown } };

function answering(body: unknown, status = 200): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fake = (async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(url),
      headers: init?.headers as Record<string, string>,
      body: JSON.parse(String(init?.body)),
    });
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  }) as typeof fetch;
  return { fetch: fake, sent };
}

test("a request posts the generated document with its variables and the token", async () => {
  const { fetch, sent } = answering({ data: { createThread: { id: "thr_1", title: "t", createdAt: "2026-12-01T00:00:00Z" } } });
  const client = new ThreadlineClient({ url: "http://service:8000/", token: "secret", fetch });
  const data = await client.request(CreateThreadDocument, { title: "t" });
  assert.equal(data.createThread.id, "thr_1");
  assert.equal(sent[0].url, "http://service:8000/graphql");
  assert.equal(sent[0].headers.Authorization, "Bearer secret");
  assert.match(sent[0].body.query, /mutation CreateThread/);
  assert.deepEqual(sent[0].body.variables, { title: "t" });
});

test("the service's /graphql address works as its base URL does", async () => {
  const { fetch, sent } = answering({ data: { createThread: { id: "thr_1", title: "t", createdAt: "2026-12-01T00:00:00Z" } } });
  const client = new ThreadlineClient({ url: "http://service:8000/graphql", fetch });
  await client.request(CreateThreadDocument, { title: "t" });
  assert.equal(sent[0].url, "http://service:8000/graphql");
});

test("an error of the service is a ThreadlineError with its code and extensions", async () => {
  const { fetch } = answering({
    data: null,
    errors: [{ message: "Provider 'claude' is limited", extensions: { code: "PROVIDER_LIMITED", availableProviders: ["codex"] } }],
  });
  const client = new ThreadlineClient({ url: "http://service", fetch });
  await assert.rejects(
    client.request(StartRunDocument, { threadId: "t", provider: "claude", input: "x" }),
    (error: unknown) =>
      error instanceof ThreadlineError &&
      error.code === "PROVIDER_LIMITED" &&
      JSON.stringify(error.extensions.availableProviders) === '["codex"]',
  );
});

test("an answer that is not GraphQL is an HTTP error", async () => {
  const { fetch } = answering("not json", 502);
  const client = new ThreadlineClient({ url: "http://service", fetch });
  await assert.rejects(client.request(ThreadDocument, { id: "t" }), (error: unknown) => {
    return error instanceof ThreadlineError && error.code === "HTTP";
  });
});

test("variables are checked by the compiler", () => {
  const client = new ThreadlineClient({ url: "http://service", fetch: answering({}).fetch });
  // @ts-expect-error: startRun needs threadId, provider and input
  void (() => client.request(StartRunDocument, { threadId: "t" }));
  // @ts-expect-error: a page size is a number
  void (() => client.request(ThreadItemsDocument, { id: "t", first: "ten" }));
});
