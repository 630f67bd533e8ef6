// A family as Cytoscape elements. Threads are the nodes dagre lays out, joined by their
// fork and subagent edges (and merge-back / subagent-result transfers drawn dashed).
// Inside each thread box sit, positioned by `place` after the layout:
//   first row  its runs, one cell per ordinal, coloured by provider (rolled back: faded;
//              interrupted by a usage limit: a dashed dark border);
//   one lane   per provider thread: native runs filled, runs its handoffs cover pale,
//              active runs it has not seen hollow, then its handoffs coloured by status.
// A lane whose provider has a usage limit in force says so, in amber.
// Rows with nothing to show (a thread without runs yet, e.g. an abandoned fork) are left out.
// Edges and their labels are drawn above the boxes (manual z-index) on a white backing, so a
// label that reaches into a box is still whole and readable.
// Every element carries `kind` and `ref` (the GraphQL id the details panel asks about).

import { t } from "./i18n.js";

const CELL = 16;
const STEP = CELL + 3;
const ROW = CELL + 8;
const LABEL = 128;
const PAD = 12;
const HEAD = 30;
const HANDOFF = 34;

const PROVIDERS = { codex: "#10a37f", claude: "#d97757" };
const PALETTE = ["#1e88e5", "#8e24aa", "#f4511e", "#3949ab", "#00897b", "#6d4c41"];
export const STATUS = {
  READY: "#2e7d32",
  CONSUMED: "#2e7d32",
  RESOLVED_NATIVE: "#2e7d32",
  RESOLVED_PORTABLE: "#2e7d32",
  PENDING: "#f9a825",
  SUPERSEDED: "#9e9e9e",
  FAILED: "#c62828",
};
const RETIRED = new Set(["STALE", "DIVERGENT", "FAILED", "ROLLED_BACK"]);
export const LIMITED = "#b28704";
const RUN_CLASSES = { ROLLED_BACK: "rolled", INTERRUPTED: "interrupted" };
// Paint order (with "z-index-compare: manual"): boxes, then what is inside them, then edges.
const Z = { box: 0, inner: 1, edge: 2 };

export function providerColor(provider) {
  if (PROVIDERS[provider]) return PROVIDERS[provider];
  const hash = [...provider].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) >>> 0, 7);
  return PALETTE[hash % PALETTE.length];
}

export const STYLE = [
  {
    selector: "node",
    style: {
      "font-family": "system-ui, sans-serif",
      "font-size": 9,
      "text-valign": "center",
      "z-index-compare": "manual",
      "z-index": Z.inner,
    },
  },
  {
    selector: "node[kind='thread']",
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      "z-index": Z.box,
      "background-color": "#f7f9fc",
      "border-width": 1,
      "border-color": "#90a4ae",
      label: "data(label)",
      "font-size": 12,
      "font-weight": "bold",
      "text-valign": "top",
      "text-margin-y": HEAD - 6,
      "text-max-width": "data(textWidth)",
      "text-wrap": "ellipsis",
    },
  },
  { selector: "node[kind='thread'].focus", style: { "border-width": 3, "border-color": "#1565c0" } },
  {
    selector: "node[kind='run'], node[kind='cell']",
    style: { shape: "rectangle", width: CELL, height: CELL, "background-color": "data(color)" },
  },
  { selector: "node[kind='run']", style: { label: "data(ordinal)", color: "#fff", "font-size": 8 } },
  { selector: "node.rolled", style: { "background-opacity": 0.25, color: "#555" } },
  {
    selector: "node[kind='run'].interrupted",
    style: { "border-width": 2, "border-style": "dashed", "border-color": "#212121" },
  },
  { selector: "node.handed", style: { "background-opacity": 0.3, "border-width": 1, "border-color": "data(color)" } },
  { selector: "node.missing", style: { "background-color": "#fff", "border-width": 1, "border-color": "#b0bec5" } },
  {
    selector: "node[kind='lane'], node[kind='caption']",
    style: {
      shape: "round-rectangle",
      width: LABEL - 8,
      height: CELL + 2,
      label: "data(label)",
      "background-color": "#fff",
      "border-width": 1,
      "border-color": "data(color)",
      "text-halign": "center",
      "text-max-width": LABEL - 12,
      "text-wrap": "ellipsis",
    },
  },
  { selector: "node[kind='caption']", style: { "border-width": 0, "background-opacity": 0 } },
  { selector: "node[kind='lane'].retired", style: { "border-style": "dashed", color: "#c62828" } },
  { selector: "node[kind='lane'].limited", style: { "border-width": 2, "border-color": LIMITED, color: LIMITED } },
  {
    selector: "node[kind='handoff']",
    style: {
      shape: "round-tag",
      width: HANDOFF - 4,
      height: CELL,
      label: "data(label)",
      "font-size": 8,
      "background-color": "data(color)",
      "background-opacity": 0.2,
      "border-width": 2,
      "border-color": "data(color)",
    },
  },
  { selector: "node[kind='handoff'][status='SUPERSEDED']", style: { "border-style": "dashed" } },
  {
    selector: "edge",
    style: {
      width: 2,
      "curve-style": "bezier",
      "target-arrow-shape": "triangle",
      "line-color": "data(color)",
      "target-arrow-color": "data(color)",
      // Over the boxes, level (not rotated along the edge) and in two short lines (kind,
      // status) so the label fits in the gap dagre leaves between ranks.
      "z-index-compare": "manual",
      "z-index": Z.edge,
      label: "data(label)",
      "font-size": 10,
      "text-wrap": "wrap",
      "text-background-color": "#fff",
      "text-background-opacity": 0.9,
      "text-background-padding": 2,
      "text-background-shape": "round-rectangle",
      // A fork and the merge-back or subagent result along the same pair of threads are
      // bundled: drawn as curves far enough apart that their labels do not overlap.
      "control-point-step-size": 70,
    },
  },
  { selector: "edge[relationship='SUBAGENT']", style: { "line-style": "dotted", width: 3 } },
  { selector: "edge[kind='transfer']", style: { "line-style": "dashed" } },
  { selector: ":selected", style: { "overlay-color": "#1565c0", "overlay-opacity": 0.25 } },
];

/** The elements of a `lineage` answer, and `place(cy)` to set the inner nodes after layout. */
export function familyElements(lineage, focus, limited = new Map()) {
  const threads = new Map(lineage.nodes.map((n) => [n.thread.id, { ...n.thread, depth: n.depth }]));
  const elements = [];
  const inner = [];
  for (const thread of threads.values()) {
    const box = threadBox(thread, thread.id === focus, limited);
    elements.push(box.element);
    for (const node of box.inner) inner.push({ node, thread: thread.id });
  }
  for (const edge of lineage.edges) elements.push(lineageEdge(edge, threads.get(edge.to)));
  for (const thread of threads.values()) {
    for (const x of thread.incomingTransfers) {
      const back = x.type === "MERGE_BACK" || x.type === "SUBAGENT_RESULT";
      if (back && threads.has(x.sourceThread.id)) elements.push(transferEdge(x, thread.id));
    }
  }
  elements.push(...inner.map((i) => i.node));
  const place = (cy) => {
    for (const { node, thread } of inner) {
      const box = cy.getElementById(thread);
      const { x, y } = box.position();
      cy.getElementById(node.data.id).position({
        x: x - box.data("w") / 2 + node.data.dx,
        y: y - box.data("h") / 2 + node.data.dy,
      });
    }
  };
  return { elements, place };
}

function threadBox(thread, focused, limited) {
  const runs = thread.runs;
  const last = Math.max(1, ...runs.map((r) => r.ordinal));
  const lanes = thread.providerThreads;
  const most = Math.max(0, ...lanes.map((pt) => pt.handoffs.length));
  const cellsEnd = PAD + LABEL + last * STEP;
  const w = Math.max(260, cellsEnd + (most ? 6 + most * HANDOFF : 0) + PAD);
  // No runs, no "runs" row: an empty caption reads as missing data.
  const first = runs.length ? 1 : 0;
  const h = HEAD + ROW * (first + lanes.length) + PAD / 2;
  const at = (ordinal) => PAD + LABEL + (ordinal - 1) * STEP + CELL / 2;
  const rowY = (row) => HEAD + row * ROW + ROW / 2;
  const inner = [];
  const add = (data, classes = "") => inner.push({ group: "nodes", data, classes, grabbable: false });

  if (runs.length) {
    add({ id: `caption:${thread.id}`, kind: "caption", label: t("runs"), dx: PAD + LABEL / 2, dy: rowY(0), color: "#fff" });
  }
  for (const run of runs) {
    const classes = RUN_CLASSES[run.status] ?? "";
    add(
      { id: `run:${run.id}`, kind: "run", ref: run.id, ordinal: run.ordinal, color: providerColor(run.provider), dx: at(run.ordinal), dy: rowY(0) },
      classes,
    );
  }
  lanes.forEach((pt, index) => {
    const row = first + index;
    const color = providerColor(pt.provider);
    const classes = [RETIRED.has(pt.status) ? "retired" : "", limited.has(pt.provider) ? "limited" : ""];
    const label = `${pt.provider} · ${pt.status}${limited.has(pt.provider) ? ` · ${t("limited")}` : ""}`;
    add({ id: `lane:${pt.id}`, kind: "lane", ref: pt.id, label, color, dx: PAD + LABEL / 2, dy: rowY(row) }, classes.join(" ").trim());
    const native = new Set(pt.coverage.nativeRunOrdinals);
    const covered = new Set(pt.coverage.coveredRunOrdinals);
    const cells = [
      ...[...covered].map((o) => [o, native.has(o) ? "native" : "handed"]),
      ...pt.coverage.missingRunOrdinals.map((o) => [o, "missing"]),
    ];
    for (const [ordinal, state] of cells) {
      add({ id: `cell:${pt.id}:${ordinal}`, kind: "cell", ref: pt.id, state, color, dx: at(ordinal), dy: rowY(row) }, state);
    }
    pt.handoffs.forEach((handoff, j) => {
      const { from, to } = handoff.coveredRunOrdinals;
      add({
        id: `handoff:${handoff.id}`,
        kind: "handoff",
        ref: handoff.id,
        status: handoff.status,
        label: from === to ? `${from}` : `${from}–${to}`,
        color: STATUS[handoff.status] ?? "#555",
        dx: cellsEnd + 6 + j * HANDOFF + HANDOFF / 2,
        dy: rowY(row),
      });
    });
  });
  const title = thread.title || thread.id;
  const element = {
    group: "nodes",
    data: { id: thread.id, kind: "thread", ref: thread.id, label: title, w, h, textWidth: w - 16 },
    classes: focused ? "focus" : "",
    grabbable: false,
  };
  return { element, inner };
}

function lineageEdge(edge, child) {
  const transfer = child?.incomingTransfers.find(
    (x) => (x.type === "FORK" || x.type === "SUBAGENT_SPAWN") && x.sourceThread.id === edge.from,
  );
  const at = edge.sourceRunOrdinal == null ? "" : ` @${edge.sourceRunOrdinal}`;
  const status = transfer ? `\n${transfer.status}` : "";
  const divergence = child?.divergence ?? null;
  return {
    group: "edges",
    data: {
      id: `edge:${edge.from}:${edge.to}`,
      kind: "lineage",
      ref: transfer?.id ?? null,
      source: edge.from,
      target: edge.to,
      relationship: edge.relationship,
      sourceRunOrdinal: edge.sourceRunOrdinal,
      status: transfer?.status ?? null,
      divergence,
      label: `${edge.relationship}${at}${status}${drift(divergence)}`,
      color: edge.relationship === "SUBAGENT" ? "#6a1b9a" : "#1565c0",
    },
  };
}

// How far the child and its source moved apart since the fork, after the status on the
// edge label's second line.
function drift(divergence) {
  if (!divergence) return "";
  const parts = [];
  if (divergence.sourceRolledBackPastFork) parts.push(t("rolledPast", divergence.sourceRolledBackTo));
  else if (divergence.sourceRunsSinceFork.length) parts.push(t("drift", divergence.sourceRunsSinceFork.length));
  if (divergence.unmergedRunOrdinals.length) parts.push(t("unmerged", divergence.unmergedRunOrdinals.length));
  return parts.map((part) => ` · ${part}`).join("");
}

function transferEdge(transfer, target) {
  return {
    group: "edges",
    data: {
      id: `transfer:${transfer.id}`,
      kind: "transfer",
      ref: transfer.id,
      source: transfer.sourceThread.id,
      target,
      status: transfer.status,
      label: `${transfer.type}\n${transfer.status}`,
      color: STATUS[transfer.status] ?? "#555",
    },
  };
}
