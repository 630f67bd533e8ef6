// The provider switch of docs/HANDOFFS.md, end to end, against a running service:
//   THREADLINE_URL=http://127.0.0.1:8000 THREADLINE_TOKEN=... npm run example
// Codex runs first, then Claude takes over with a handoff sized for its window; the
// thread's events arrive over the websocket meanwhile. Prints what it saw as JSON.
import assert from "node:assert/strict";

import {
  AttachNativeThreadDocument,
  CompleteRunDocument,
  CreateThreadDocument,
  StartRunDocument,
  ThreadEventsDocument,
  ThreadItemsDocument,
  ThreadlineClient,
} from "../src/index.ts";

const url = process.env.THREADLINE_URL ?? "http://127.0.0.1:8000";
const client = new ThreadlineClient({ url, token: process.env.THREADLINE_TOKEN });

const { createThread } = await client.request(CreateThreadDocument, { title: "Fix the login bug" });
const events: string[] = [];
let finished: (() => void) | undefined;
const claudeStarted = new Promise<void>((resolve) => (finished = resolve));
const stop = client.subscribe(ThreadEventsDocument, { threadId: createThread.id }, {
  next: (data) => {
    events.push(data.threadEvents.type);
    if (data.threadEvents.type === "run.started" && events.filter((e) => e === "run.started").length === 2) {
      finished?.();
    }
  },
  error: (error) => console.error(error),
});

const codex = await client.request(StartRunDocument, {
  threadId: createThread.id,
  provider: "codex",
  input: "Fix the login bug",
});
await client.request(AttachNativeThreadDocument, {
  providerThreadId: codex.startRun.providerThread!.id,
  nativeRef: "codex-123",
});
await client.request(CompleteRunDocument, {
  runId: codex.startRun.run.id,
  nativeTurnRef: "turn-1",
  items: [
    { kind: "DECISION", text: "Session cookies get SameSite=Lax" },
    { kind: "COMMAND", text: "pytest tests/login", attributes: { exitCode: 0 } },
  ],
  usage: { contextTokens: 41000, contextWindowTokens: 272000 },
});
const claude = await client.request(StartRunDocument, {
  threadId: createThread.id,
  provider: "claude",
  input: "Now add tests",
});
const items = await client.request(ThreadItemsDocument, { id: createThread.id, kinds: ["DECISION"] });
await claudeStarted;
stop();
await client.close();

assert.equal(claude.startRun.strategy, "FULL_HANDOFF_NEW_THREAD");
assert.ok(claude.startRun.contextText?.includes("SameSite=Lax"));
assert.equal(items.thread?.items.edges[0]?.node.text, "Session cookies get SameSite=Lax");
console.log(
  JSON.stringify({
    threadId: createThread.id,
    strategy: claude.startRun.strategy,
    budgetTokens: claude.startRun.budget.budgetTokens,
    quality: claude.startRun.handoffs[0]?.quality.score,
    events,
  }),
);
