"""T3 Code's handoff history rule (`selectHistory`), re-implemented as a baseline.

Read from its published source: repository pingdotgg/t3code, file
`packages/provider-core/src/server/handoffBudget.ts` at commit
2e46927e5de1a1f2128c98e82c6c7ec1144c15a4 (orchestration v2's context handoff). The same
function, with the same rule, stood earlier in
`apps/server/src/orchestration-v2/ContextHandoffBudget.ts` (commit
e7eb8622bbf4daf6f4ad64108bf9f89b28931f6a) before it moved to `provider-core`.

The rule, as ported here:

- It first sets aside what the text around the history costs (the coverage lines and
  the "selected N / omitted M" counters), measured with both counters at their widest,
  so that no count reached on the way can push the text past the budget (`reserve`).
- Then it tries messages in this order: the latest user message, the latest assistant
  message, the first user message, then every message from the newest to the oldest.
  A message already kept is passed over.
- A message is kept whole when its cost is at most what remains, and what remains shrinks
  by its cost; otherwise it is left out whole and the next one is tried (no shortening,
  no stopping: a smaller, older message can still fit after a large one did not).
- Kept messages are shown in conversation order; the left-out ones are listed.

Its roles follow T3 Code's `historicalMessage`: only a user's message has the user role;
every other item (an assistant message, a command with its output, an error, a file
change, a plan) is an assistant message, so "the latest assistant message" is the latest
item that is not a request.

Not ported, and why:

- Its token counter. T3 Code counts one token per UTF-8 byte of the JSON-escaped delivery
  form (the larger of its response-item and plain-text renderings, plus 256 bytes for the
  envelope and 1 or 4 per message). Here each message's cost is given by the caller, so
  the baseline and Threadline are held to the same estimator and the same budget.
- Which items become messages (`historicalMessage`, which folds a command, its exit code
  and output into one message and drops reasoning): the benchmark hands every rule the
  same material, one message per item (bench/baselines/handoff.py).
- The budget itself (`handoffBudget`: the model's window less the native context, the
  current input, attachments and a quarter kept for work, capped at 16,000 tokens by
  default): every rule gets the benchmark's budget.
- Attachments and the wording of its coverage text, which the benchmark's renderer
  replaces with its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bench.baselines.conversation import Kept, Message


def select_history(messages: Sequence[Message], budget: int, reserve: int = 0) -> Kept:
    """What T3 Code's rule keeps of `messages` within `budget` tokens, `reserve` of them
    set aside for the text around the history (its counters at their widest)."""
    remaining = budget - reserve
    chosen: set[int] = set()
    for index in _tried(messages):
        cost = messages[index].tokens
        if index in chosen or cost > remaining:
            continue
        chosen.add(index)
        remaining -= cost
    return Kept.of(chosen, len(messages))


def _tried(messages: Sequence[Message]) -> Iterator[int]:
    """Positions in the order the rule tries them: the latest request and the latest
    answer (what the next turn continues), the first request (the original constraints),
    then everything newest first."""
    requests = [index for index, message in enumerate(messages) if message.user]
    answers = [index for index, message in enumerate(messages) if not message.user]
    if requests:
        yield requests[-1]
    if answers:
        yield answers[-1]
    if requests:
        yield requests[0]
    yield from reversed(range(len(messages)))
