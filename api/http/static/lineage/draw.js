// A family as Cytoscape elements. Threads are the nodes dagre lays out, top to bottom,
// joined by their fork and subagent edges (and merge-back / subagent-result transfers drawn
// dashed, back up to the thread they went to).
// Inside each thread box sit, positioned by `place` after the layout:
//   its title (at most two lines; the full title is in the tooltip and the details panel);
//   on a fork or subagent, how it was opened (relationship, source run, the transfer's status,
//              how far it and its source moved apart) and each merge-back or subagent result
//              it sent back, in the edge's colour: what the edges mean, written where no edge
//              runs, so no line ever crosses a label;
//   first row  its runs, one cell per ordinal, coloured by provider (rolled back: faded;
//              interrupted by a usage limit: a dashed dark border);
//   one lane   per provider thread: native runs filled, runs its handoffs cover pale,
//              active runs it has not seen hollow, then its handoffs coloured by status.
// A lane whose provider has a usage limit in force is amber ("limited" is in its tooltip).
// Rows with nothing to show (a thread without runs yet, e.g. an abandoned fork) are left out.
// Edges carry their label (kind, status, drift) as data; it is drawn only while the edge is
// hovered or selected, above everything, on a white backing.
// A "+N threads" group box (collapse.js) stands for threads left out under a parent; it is
// laid out like a thread box, joined to its parent by a dashed grey edge.
// Every element carries `kind` and `ref` (the GraphQL id the details panel asks about; a
// group's is its parent's).
// Sizes are at zoom 1; FONT is the smallest text, so FONT × zoom is the smallest on screen.

import { explained, meaning, t, word } from "./i18n.js";

export const FONT = 12;
const TITLE_FONT = 14;
// The page's Chinese font first (lineage.css: CJK code points only), then the system's.
export const CJK_FONT = "Threadline Noto Sans SC";
const FAMILY = `"${CJK_FONT}", system-ui, sans-serif`;
const LINE_HEIGHT = 1.3;
const CELL = 20;
const LABEL = 140;
const HANDOFF = 50;
const MIN_WIDTH = 220;
const TITLE_LINES = 2;
const STEP = CELL + 3;
const ROW = CELL + 8;
const PAD = 12;
export const RELATIONSHIPS = { FORK: "#1565c0", SUBAGENT: "#6a1b9a", SIDE: "#00838f" };
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
const GROUP = { w: 170, h: 44, font: 13, color: "#607d8b" };
/** The boxes dagre lays out and edges run between: threads and groups. */
export const BOXES = "[kind='thread'], [kind='group']";
export const GROUPED = "grouped"; // the kind of a parent → group edge
// Paint order (with "z-index-compare: manual"): boxes, then what is inside them, then edges.
const Z = { box: 0, inner: 1, edge: 2 };

/** Both weights of the page's Chinese font, loaded: a canvas draws with what is loaded when
 *  it draws (and `lines` measures with it), so the graph waits for it. Never fails. */
export const fontsLoaded = Promise.all(
  ["normal", "bold"].map((weight) => document.fonts.load(`${weight} ${FONT}px "${CJK_FONT}"`, "线")),
).catch(() => []);

export function providerColor(provider) {
  if (PROVIDERS[provider]) return PROVIDERS[provider];
  const hash = [...provider].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) >>> 0, 7);
  return PALETTE[hash % PALETTE.length];
}

export const STYLE = [
  {
    selector: "node",
    style: {
      "font-family": FAMILY,
      "font-size": FONT,
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
    },
  },
  { selector: "node[kind='thread'].focus", style: { "border-width": 3, "border-color": "#1565c0" } },
  {
    selector: "node[kind='group']",
    style: {
      shape: "round-rectangle",
      width: GROUP.w,
      height: GROUP.h,
      "z-index": Z.box,
      "background-color": "#eceff1",
      "border-width": 2,
      "border-style": "dashed",
      "border-color": GROUP.color,
      label: "data(label)",
      color: "#37474f",
      "font-size": GROUP.font,
      "font-weight": "bold",
      "text-halign": "center",
    },
  },
  {
    // Text blocks wrapped by `lines` below: cytoscape keeps the line breaks given.
    selector: "node[kind='title'], node[kind='opening'], node[kind='back']",
    style: {
      shape: "rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-opacity": 0,
      label: "data(label)",
      color: "data(color)",
      "text-wrap": "wrap",
      "text-max-width": "data(maxWidth)",
      "line-height": LINE_HEIGHT,
    },
  },
  { selector: "node[kind='title']", style: { "font-size": TITLE_FONT, "font-weight": "bold" } },
  {
    selector: "node[kind='run'], node[kind='cell']",
    style: { shape: "rectangle", width: CELL, height: CELL, "background-color": "data(color)" },
  },
  { selector: "node[kind='run']", style: { label: "data(ordinal)", color: "#fff" } },
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
      "text-max-width": LABEL - 14,
      "text-wrap": "ellipsis",
    },
  },
  { selector: "node[kind='caption']", style: { "border-width": 0, "background-opacity": 0 } },
  { selector: "node[kind='lane']", style: { label: "data(text)" } },
  { selector: "node[kind='lane'].retired", style: { "border-style": "dashed", color: "#c62828" } },
  { selector: "node[kind='lane'].limited", style: { "border-width": 2, "border-color": LIMITED, color: LIMITED } },
  {
    selector: "node[kind='handoff']",
    style: {
      shape: "round-tag",
      width: HANDOFF - 4,
      height: CELL,
      label: "data(label)",
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
      "z-index-compare": "manual",
      "z-index": Z.edge,
      "font-family": FAMILY,
      "font-size": FONT,
      "text-wrap": "wrap",
      "text-background-color": "#fff",
      "text-background-opacity": 0.95,
      "text-background-padding": 3,
      "text-background-shape": "round-rectangle",
      "text-border-width": 1,
      "text-border-color": "data(color)",
      "text-border-opacity": 1,
    },
  },
  { selector: "edge[relationship='SUBAGENT']", style: { "line-style": "dotted", width: 3 } },
  { selector: `edge[kind='${GROUPED}']`, style: { "line-style": "dashed" } },
  { selector: "edge[kind='transfer']", style: { "line-style": "dashed" } },
  // An edge's own label only on demand: at rest no text sits on or across a line.
  { selector: "edge.hover, edge:selected", style: { label: "data(label)", "z-index": Z.edge + 1 } },
  { selector: ":selected", style: { "overlay-color": "#1565c0", "overlay-opacity": 0.25 } },
];

/** The elements of a `lineage` answer (and of the group boxes standing for what it leaves
 *  out), and `place(cy)` to set the inner nodes after layout. */
export function familyElements(lineage, focus, limited = new Map(), groups = []) {
  const threads = new Map(lineage.nodes.map((n) => [n.thread.id, { ...n.thread, depth: n.depth }]));
  const elements = [];
  const inner = [];
  const backs = [];
  for (const thread of threads.values()) {
    for (const x of thread.incomingTransfers) {
      const back = x.type === "MERGE_BACK" || x.type === "SUBAGENT_RESULT";
      if (back && threads.has(x.sourceThread.id)) backs.push({ transfer: x, target: thread.id });
    }
  }
  const edges = lineage.edges.map((edge) => lineageEdge(edge, threads.get(edge.to)));
  for (const thread of threads.values()) {
    const opening = edges.find((e) => e.data.target === thread.id);
    const sent = backs.filter((b) => b.transfer.sourceThread.id === thread.id);
    const box = threadBox(thread, thread.id === focus, limited, opening, sent);
    elements.push(box.element);
    for (const node of box.inner) inner.push({ node, thread: thread.id });
  }
  elements.push(...edges, ...backs.map((b) => transferEdge(b.transfer, b.target)));
  elements.push(...groups.flatMap(groupElements));
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

const measure = document.createElement("canvas").getContext("2d");

/** `text` in lines no wider than `width` in `font`, at most `max` of them; what does not
 *  fit ends in "…". Words stay whole unless one alone is too wide (or the text has no
 *  spaces, as Chinese titles do); then it breaks between characters. */
export function lines(text, font, width, max = Infinity) {
  measure.font = font;
  const fits = (s) => measure.measureText(s).width <= width;
  const out = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const joined = line ? `${line} ${word}` : word;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (line) out.push(line);
    line = "";
    if (fits(word)) {
      line = word;
      continue;
    }
    for (const char of word) {
      if (line && !fits(line + char)) {
        out.push(line);
        line = "";
      }
      line += char;
    }
  }
  if (line) out.push(line);
  if (out.length <= max) return out;
  const kept = out.slice(0, max);
  let last = `${kept[max - 1]} ${out[max]}`;
  while (last && !fits(`${last}…`)) last = last.slice(0, -1);
  kept[max - 1] = `${last.trimEnd()}…`;
  return kept;
}

const fontOf = (size, weight = "normal") => `${weight} ${size}px ${FAMILY}`;

function threadBox(thread, focused, limited, opening, sent) {
  const runs = thread.runs;
  const last = Math.max(1, ...runs.map((r) => r.ordinal));
  const lanes = thread.providerThreads;
  const most = Math.max(0, ...lanes.map((pt) => pt.handoffs.length));
  const cellsEnd = PAD + LABEL + last * STEP;
  const w = Math.max(MIN_WIDTH, cellsEnd + (most ? 6 + most * HANDOFF : 0) + PAD);
  const inner = [];
  const add = (data, classes = "") => inner.push({ group: "nodes", data, classes, grabbable: false });

  // The text blocks at the top, one under the other.
  const textWidth = w - 2 * PAD;
  let top = PAD / 2;
  const block = (id, kind, ref, text, color, size, weight, max, explain) => {
    const rows = lines(text, fontOf(size, weight), textWidth, max);
    const h = Math.ceil(rows.length * size * LINE_HEIGHT);
    const label = rows.join("\n");
    add({ id, kind, ref, label, full: text, explain, color, w: textWidth, h, maxWidth: textWidth + 8, dx: w / 2, dy: top + h / 2 });
    top += h + 2;
  };
  const title = thread.title || thread.id;
  block(`title:${thread.id}`, "title", thread.id, title, "#263238", TITLE_FONT, "bold", TITLE_LINES);
  if (opening) {
    const { data } = opening;
    block(`opening:${thread.id}`, "opening", data.ref, data.label.replace(/\n/g, " · "), data.color, FONT, "normal", 3, data.explain);
  }
  for (const { transfer } of sent) {
    const text = `↑ ${word(transfer.type)} · ${word(transfer.status)}`;
    block(`back:${transfer.id}`, "back", transfer.id, text, textColor(transfer.status), FONT, "normal", 2, backExplained(transfer));
  }
  const head = top + 4;

  // No runs, no "runs" row: an empty caption reads as missing data.
  const first = runs.length ? 1 : 0;
  const h = head + ROW * (first + lanes.length) + PAD / 2;
  const at = (ordinal) => PAD + LABEL + (ordinal - 1) * STEP + CELL / 2;
  const rowY = (row) => head + row * ROW + ROW / 2;

  if (runs.length) {
    add({ id: `caption:${thread.id}`, kind: "caption", label: t("runs"), dx: PAD + LABEL / 2, dy: rowY(0), color: "#fff" });
  }
  for (const run of runs) {
    const classes = RUN_CLASSES[run.status] ?? "";
    add(
      {
        id: `run:${run.id}`,
        kind: "run",
        ref: run.id,
        ordinal: run.ordinal,
        full: `${t("run")} ${run.ordinal} · ${run.provider} · ${word(run.status)}`,
        explain: [
          explained(run.ordinal, meaning("run", run.ordinal, run.provider)),
          explained(word(run.status), meaning(`run.${run.status}`)),
        ].join("\n"),
        color: providerColor(run.provider),
        dx: at(run.ordinal),
        dy: rowY(0),
      },
      classes,
    );
  }
  lanes.forEach((pt, index) => {
    const row = first + index;
    const color = providerColor(pt.provider);
    const classes = [RETIRED.has(pt.status) ? "retired" : "", limited.has(pt.provider) ? "limited" : ""];
    // Drawn without "limited" (the amber border says it, so the status is never cut off);
    // the label, the tooltip, has it.
    const text = `${pt.provider} · ${word(pt.status)}`;
    const label = `${text}${limited.has(pt.provider) ? ` · ${t("limited")}` : ""}`;
    const explain = [
      explained(pt.provider, meaning("provider")),
      explained(word(pt.status), meaning(`lane.${pt.status}`)),
      ...(limited.has(pt.provider) ? [explained(t("limited"), meaning("limited"))] : []),
    ].join("\n");
    const data = { id: `lane:${pt.id}`, kind: "lane", ref: pt.id, label, text, full: label, explain, color };
    add({ ...data, dx: PAD + LABEL / 2, dy: rowY(row) }, classes.join(" ").trim());
    const native = new Set(pt.coverage.nativeRunOrdinals);
    const covered = new Set(pt.coverage.coveredRunOrdinals);
    const cells = [
      ...[...covered].map((o) => [o, native.has(o) ? "native" : "handed"]),
      ...pt.coverage.missingRunOrdinals.map((o) => [o, "missing"]),
    ];
    for (const [ordinal, state] of cells) {
      const explain = explained(meaning("cell", ordinal), t(state));
      add({ id: `cell:${pt.id}:${ordinal}`, kind: "cell", ref: pt.id, state, explain, color, dx: at(ordinal), dy: rowY(row) }, state);
    }
    pt.handoffs.forEach((handoff, j) => {
      const { from, to } = handoff.coveredRunOrdinals;
      const range = from === to ? `${from}` : `${from}–${to}`;
      add({
        id: `handoff:${handoff.id}`,
        kind: "handoff",
        ref: handoff.id,
        status: handoff.status,
        label: range,
        full: `${range} · ${word(handoff.kind)} · ${word(handoff.status)}`,
        explain: [
          explained(range, meaning("handoff", range)),
          explained(word(handoff.status), meaning(`handoff.${handoff.status}`)),
        ].join("\n"),
        color: STATUS[handoff.status] ?? "#555",
        dx: cellsEnd + 6 + j * HANDOFF + HANDOFF / 2,
        dy: rowY(row),
      });
    });
  });
  const element = {
    group: "nodes",
    data: { id: thread.id, kind: "thread", ref: thread.id, label: title, full: title, w, h },
    classes: focused ? "focus" : "",
    grabbable: false,
  };
  return { element, inner };
}

// Status colours are for lines and swatches; as text on white, pale ones are darkened.
const TEXT = { PENDING: LIMITED, SUPERSEDED: "#616161" };
const textColor = (status) => TEXT[status] ?? STATUS[status] ?? "#455a64";

function lineageEdge(edge, child) {
  const transfer = child?.incomingTransfers.find(
    (x) => (x.type === "FORK" || x.type === "SUBAGENT_SPAWN") && x.sourceThread.id === edge.from,
  );
  const at = edge.sourceRunOrdinal == null ? "" : ` ${t("at", edge.sourceRunOrdinal, edge.sourceItemIndex)}`;
  const status = transfer ? `\n${word(transfer.status)}` : "";
  const divergence = child?.divergence ?? null;
  const parts = [
    explained(word(edge.relationship), meaning(`relationship.${edge.relationship}`)),
    at && explained(at.trim(), meaning("at", edge.sourceRunOrdinal, edge.sourceItemIndex)),
    transfer &&
      explained(word(transfer.status), meaning("of", meaning(`type.${transfer.type}`), meaning(`transfer.${transfer.status}`))),
    ...driftParts(divergence).map(([part, what]) => explained(part, what)),
  ];
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
      sourceItemIndex: edge.sourceItemIndex ?? null,
      status: transfer?.status ?? null,
      divergence,
      label: `${word(edge.relationship)}${at}${status}${drift(divergence)}`,
      explain: parts.filter(Boolean).join("\n"),
      color: RELATIONSHIPS[edge.relationship] ?? RELATIONSHIPS.FORK,
    },
  };
}

// How far the child and its source moved apart since the fork, after the status on the
// edge label's second line.
function drift(divergence) {
  return driftParts(divergence)
    .map(([part]) => ` · ${part}`)
    .join("");
}

/** Each part of the drift, with what it means: [[part, meaning], ...]. */
function driftParts(divergence) {
  if (!divergence) return [];
  const parts = [];
  const { sourceRunsSinceFork: since, unmergedRunOrdinals: unmerged } = divergence;
  if (divergence.sourceRolledBackPastFork) {
    const to = divergence.sourceRolledBackTo;
    parts.push([t("rolledPast", to), meaning("rolledPast", to)]);
  } else if (since.length) parts.push([t("drift", since.length), meaning("drift", since.length)]);
  if (unmerged.length) parts.push([t("unmerged", unmerged.length), meaning("unmerged", unmerged.length)]);
  return parts;
}

/** A merge-back's or subagent result's label ("↑ MERGE_BACK · CONSUMED"), part by part. */
function backExplained(transfer) {
  return [
    explained("↑", meaning("back")),
    explained(word(transfer.type), meaning(`type.${transfer.type}`)),
    explained(word(transfer.status), meaning(`transfer.${transfer.status}`)),
  ].join("\n");
}

function groupElements(group) {
  const label = t("moreThreads", group.count);
  return [
    {
      group: "nodes",
      data: { id: group.id, kind: "group", ref: group.parent, label, full: `${label} · ${t("groupHint")}` },
      grabbable: false,
    },
    {
      group: "edges",
      data: { id: `edge:${group.id}`, kind: GROUPED, source: group.parent, target: group.id, label, color: GROUP.color },
    },
  ];
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
      label: `${word(transfer.type)}\n${word(transfer.status)}`,
      explain: backExplained(transfer),
      color: STATUS[transfer.status] ?? "#555",
    },
  };
}
