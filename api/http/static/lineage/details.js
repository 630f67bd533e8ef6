// The details panel: what a clicked element is, asked of the API only when clicked (run
// items, a handoff's summary text, a provider thread's coverage and staleness, a transfer).
// Text from the API is set as text, never as HTML.

import { field, t, word } from "./i18n.js";
import { forkButton, sideOption } from "./steer.js";

/** An element: h("p", {class: "x"}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  for (const child of children.flat()) {
    if (child != null) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const list = (values) => (values.length ? values.join(", ") : t("none"));
const range = (r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`);
const pairs = (rows) =>
  h("dl", {}, rows.filter(([, v]) => v != null && v !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
const status = (value) => h("span", { class: `status ${value}` }, word(value));

/** Buttons that re-centre the page on a thread. */
export const followButton = (id, label) =>
  h("button", { type: "button", class: "follow", "data-follow": id }, `${t("follow")} ${label ?? id}`);

export function threadDetails(thread, family) {
  const title = (id) => family.nodes.find((n) => n.thread.id === id)?.thread.title ?? id;
  const children = family.edges.filter((e) => e.from === thread.id);
  return [
    h("h2", {}, thread.title || thread.id),
    pairs([
      [t("id"), h("code", {}, thread.id)],
      [t("relationship"), word(thread.relationshipToParent)],
      [t("depthFrom"), thread.depth],
      [t("runCount"), thread.runs.length],
      [t("providerThreads"), list(thread.providerThreads.map((pt) => `${pt.provider} ${word(pt.status)}`))],
    ]),
    thread.parent ? [h("h3", {}, t("parent")), followButton(thread.parent.id, title(thread.parent.id))] : null,
    children.length ? h("h3", {}, t("children")) : null,
    children.map((e) => followButton(e.to, `${title(e.to)} (${word(e.relationship)} ${t("at", e.sourceRunOrdinal, e.sourceItemIndex) || "@–"})`)),
  ];
}

export function runDetails({ run }) {
  const fork = run.status === "COMPLETED"; // a fork at an item needs a completed run
  return [
    h("h2", {}, `${t("run")} ${run.ordinal} · ${run.provider}`),
    pairs([
      [t("id"), h("code", {}, run.id)],
      [field("status"), status(run.status)],
      [field("model"), run.model],
      [field("runtimeMode"), run.runtimeMode],
      [field("providerThread"), run.providerThread && `${run.providerThread.provider} ${word(run.providerThread.status)}`],
      [field("nativeTurnRef"), run.nativeTurnRef],
      [run.status === "INTERRUPTED" ? t("limitReason") : t("failure"), run.failureReason],
      [t("handoffs"), list(run.contextHandoffs.map((x) => `${word(x.kind)} ${range(x.coveredRunOrdinals)} ${word(x.status)}`))],
      [t("checkpoint"), run.checkpoint?.ref],
    ]),
    h("h3", {}, t("input")),
    h("pre", { class: "input" }, run.input),
    fork ? [sideOption(), forkButton(run, -1)] : null,
    h("h3", {}, `${t("items")} (${run.items.length})`),
    h(
      "ol",
      { class: "items", start: "0" },
      run.items.map((item, index) =>
        h(
          "li",
          {},
          h("b", {}, word(item.kind)),
          item.key ? ` [${item.key}]` : "",
          item.path ? ` ${item.path}` : "",
          fork ? [" ", forkButton(run, index)] : null,
          h("div", {}, item.text),
        ),
      ),
    ),
    run.checkpoint?.diffSummary.length
      ? h("ul", {}, run.checkpoint.diffSummary.map((d) => h("li", {}, `${d.changeKind} ${d.path} +${d.additions} −${d.deletions}`)))
      : null,
  ];
}

export function handoffDetails({ handoff }) {
  const from = handoff.fromProviderThreads.map((pt) => `${pt.provider} ${pt.id}`);
  return [
    h("h2", {}, `${word(handoff.kind)} ${range(handoff.coveredRunOrdinals)}`),
    pairs([
      [t("id"), h("code", {}, handoff.id)],
      [field("status"), status(handoff.status)],
      [field("strategy"), word(handoff.strategy)],
      [field("tokenEstimate"), handoff.tokenEstimate],
      [field("summarySource"), word(handoff.summarySource)],
      [field("createdByProvider"), handoff.createdByProvider],
      [field("model"), handoff.model],
      [field("generationMs"), handoff.generationMs],
      [field("fallbackReason"), handoff.fallbackReason],
      [field("failureReason"), handoff.failureReason],
    ]),
    h("h3", {}, t("provenance")),
    pairs([
      [t("sourceThread"), `${handoff.sourceThread.title ?? ""} ${handoff.sourceThread.id}`],
      [t("covered"), range(handoff.coveredRunOrdinals)],
      [t("from"), list(from)],
      [t("to"), handoff.toProviderThread && `${handoff.toProviderThread.provider} ${handoff.toProviderThread.id}`],
      [t("targetRun"), handoff.targetRun && `${handoff.targetRun.ordinal} (${handoff.targetRun.provider})`],
      [t("transfer"), handoff.transfer && `${word(handoff.transfer.type)} ${word(handoff.transfer.status)}`],
      [t("supersededBy"), handoff.supersededBy && `${handoff.supersededBy.id} ${word(handoff.supersededBy.status)}`],
    ]),
    h("h3", {}, t("context")),
    pairs([
      [t("budget"), budgetLine(handoff.budget)],
      [t("omitted"), omittedLine(handoff.omitted)],
      [t("quality"), handoff.quality.score.toFixed(2)],
      [t("fidelity"), handoff.quality.fidelity.toFixed(2)],
      ...handoff.quality.facets.map((f) => [
        word(f.kind),
        `${f.kept}/${f.total}` + (f.missing.length ? ` · ${t("notCarried")}: ${f.missing.join(", ")}` : ""),
      ]),
    ]),
    h("h3", {}, t("summary")),
    h("pre", { class: "summary" }, handoff.summaryText),
  ];
}

const omittedLine = (omitted) => {
  const cut = omitted.filter((o) => o.cut).length;
  return cut ? `${omitted.length} (${cut} ${t("shortened")})` : omitted.length;
};

const budgetLine = (b) =>
  b && `${b.budgetTokens} (${b.windowTokens} ${word(b.windowSource)} − ${b.usedTokens} − ${b.reserveTokens})`;

export function providerThreadDetails({ providerThread: pt }) {
  const cov = pt.coverage;
  const stale = pt.staleSignals.length ? list(pt.staleSignals.map(word)) : null;
  return [
    h("h2", {}, `${pt.provider} · ${word(pt.status)}`),
    pairs([
      [t("id"), h("code", {}, pt.id)],
      [field("nativeRef"), pt.nativeRef],
      [field("model"), pt.model],
      [field("runtimeMode"), pt.runtimeMode],
      [field("historyMode"), word(pt.historyMode)],
      [field("forkedFrom"), pt.forkedFrom && `${pt.forkedFrom.provider} ${pt.forkedFrom.id}`],
    ]),
    h("h3", {}, t("staleness")),
    pairs([
      [field("status"), status(pt.status)],
      [t("staleSignals"), stale ?? (pt.status === "ACTIVE" ? t("fresh") : null)],
      [t("failure"), pt.failureReason],
    ]),
    h("h3", {}, t("coverage")),
    pairs([
      [t("nativeRuns"), list(cov.nativeRunOrdinals)],
      [t("coveredRuns"), list(cov.coveredRunOrdinals)],
      [t("missingRuns"), list(cov.missingRunOrdinals)],
      [t("handoffs"), list(pt.handoffs.map((x) => `${word(x.kind)} ${range(x.coveredRunOrdinals)} ${word(x.status)}`))],
    ]),
  ];
}

export function transferDetails({ transfer: x }) {
  const point = x.sourcePoint;
  return [
    h("h2", {}, `${word(x.type)} · ${word(x.status)}`),
    pairs([
      [t("id"), h("code", {}, x.id)],
      [field("status"), status(x.status)],
      [field("resolutionStrategy"), word(x.resolutionStrategy)],
      [t("sourceThread"), `${x.sourceThread.title ?? ""} ${x.sourceThread.id}`],
      [t("sourcePoint"), [point.run && t("at", point.run.ordinal, point.itemIndex), point.checkpoint?.ref, point.providerTurnRef].filter(Boolean).join(" · ")],
      [field("providers"), [x.sourceProvider, x.targetProvider].filter(Boolean).join(" → ")],
      [field("resolvedProviderThread"), x.resolvedProviderThread && `${x.resolvedProviderThread.provider} ${x.resolvedProviderThread.id}`],
      [field("handoff"), x.handoff && `${x.handoff.id} ${word(x.handoff.status)}`],
      [t("consumedBy"), x.consumedBy?.ordinal],
      [t("failure"), x.failureReason],
    ]),
    followButton(x.targetThread.id, x.targetThread.title),
  ];
}
