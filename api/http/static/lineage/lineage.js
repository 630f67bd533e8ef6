// The lineage page: /lineage?thread=ID[&depth=N&direction=FAMILY|BOTH|ANCESTORS|DESCENDANTS&side=1].
// FAMILY (the default, and what the picker opens) is the thread's whole family: its
// ancestors up to `depth` generations, and everything below the oldest of them down to
// `depth` generations below the thread, so its siblings and cousins stay in view
// (`lineageOf`); the others are the API's own directions.
// Side threads (forks for a side question) are left out unless `side=1` (the "Side
// threads" toggle). A thread's details offer "Prepare a switch", a completed run's items
// "Fork here" (steer.js).
// One query reads the family's shape (family.graphql), a second what the drawn boxes show
// (boxes.graphql); a click asks for that element's details.
// Without a thread it lists the workspace's threads to pick from, newest first, as cards
// on the canvas (#start), searched by title (threads.graphql); with one, the Threads button
// shows the same list in the side panel.
// A large family is drawn in part (collapse.js): what is left out sits in "+N threads"
// group boxes, and a click on one draws what it holds.
// For tests and the curious: window.threadlineGraph is the Cytoscape instance, with
// collapsed() (the group boxes drawn), budget (the boxes drawn before any is opened),
// renderedAt (when the graph was last drawn) and timings.queried (when the family query
// answered), times in ms since navigation as performance.now() counts them;
// window.threadline.graph() is what is drawn, and document.body.dataset.state is
// loading | ready | empty | token | error.

import { askForToken, token } from "../token.js";
import { query, Unauthenticated } from "./api.js";
import { BUDGET, visibleFamily } from "./collapse.js";
import * as details from "./details.js";
import { BOXES, familyElements, FONT, fontsLoaded, GROUPED, LIMITED, providerColor, RELATIONSHIPS, STATUS, STYLE } from "./draw.js";
import { t, translate, word } from "./i18n.js";
import { picker } from "./picker.js";
import { forkFrom, switchSection } from "./steer.js";
import { alignRankTops, routeEdges } from "./route.js";

const $ = (id) => document.getElementById(id);
const panel = $("details");
/** No text smaller than this on screen: the smallest font (FONT) times the zoom. */
const READABLE_PX = 11;
const MIN_ZOOM = READABLE_PX / FONT;
const cy = cytoscape({
  container: $("graph"),
  style: STYLE,
  autoungrabify: true,
  minZoom: MIN_ZOOM,
  maxZoom: 4,
  // The wheel scrolls (pans) the graph, as it would a page; with Ctrl it zooms (below).
  userZoomingEnabled: false,
});
window.threadlineGraph = cy;
let family = null;
let limited = new Map(); // provider kind → its usage limit in force
let providerKinds = []; // every configured provider, for "Prepare a switch"
let asked = 0;
let boxes = new Map(); // thread id → what its box shows (boxes.graphql), asked once
const BOX_BATCH = 200; // ids per boxes request: the service's page size
let drawing = 0; // the latest drawing; an older one that answers late is dropped
let groups = []; // the "+N threads" boxes drawn
let expanded = new Set(); // threads whose children the user asked to see, all of them
const collapsed = () => groups.map((g) => ({ ...g, threads: [...g.threads] }));
cy.collapsed = collapsed;
cy.budget = BUDGET;
cy.timings = {};

window.threadline = {
  cy,
  graph: () => ({
    threads: cy.nodes("[kind='thread']").map((n) => n.id()),
    edges: cy.edges("[kind='lineage']").map((e) => ({
      from: e.data("source"),
      to: e.data("target"),
      relationship: e.data("relationship"),
      sourceRunOrdinal: e.data("sourceRunOrdinal"),
      sourceItemIndex: e.data("sourceItemIndex"),
      divergence: e.data("divergence"),
      label: e.data("label"),
    })),
    groups: collapsed(),
  }),
};

const DIRECTIONS = ["FAMILY", "BOTH", "ANCESTORS", "DESCENDANTS"];
const MAX_DEPTH = 100; // the API's cap

function settings() {
  const params = new URLSearchParams(location.search);
  const depth = Number.parseInt(params.get("depth") ?? "10", 10);
  const direction = params.get("direction");
  return {
    thread: (params.get("thread") ?? "").trim(),
    depth: Number.isFinite(depth) && depth >= 0 ? Math.min(depth, MAX_DEPTH) : 10,
    direction: DIRECTIONS.includes(direction) ? direction : "FAMILY",
    side: params.get("side") === "1" ? "1" : "0",
  };
}

/** The family query's answer for the page's direction. FAMILY: the ancestors first, then
 *  the descendants of the oldest one found; each thread's depth is then how many
 *  generations it is from `thread` (above or below). */
async function lineageOf(thread, depth, direction, side) {
  if (direction !== "FAMILY") return ask("family", { thread, depth, direction, side });
  const up = await ask("family", { thread, depth, direction: "ANCESTORS", side });
  const top = up.lineage.nodes.reduce((a, n) => (n.depth > a.depth ? n : a), { depth: 0, thread: { id: thread } });
  if (!up.lineage.nodes.length) return up; // no such thread
  const below = Math.min(MAX_DEPTH, top.depth + depth);
  // A side thread (or one below a side thread) picked: the way down to it is a side edge.
  const onSide = side || up.lineage.nodes.some((n) => n.thread.relationshipToParent === "SIDE");
  const down = await ask("family", { thread: top.thread.id, depth: below, direction: "DESCENDANTS", side: onSide });
  const nodes = down.lineage.nodes.map((n) => ({ ...n, depth: Math.abs(n.depth - top.depth) }));
  return { ...down, lineage: { ...down.lineage, nodes } };
}

function go(changes) {
  const params = new URLSearchParams({ ...settings(), ...changes });
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked) params.set("lang", asked); // the language chosen in the address stays chosen
  history.pushState(null, "", `?${params}`);
  load();
}

/** With no thread chosen, the canvas shows the picker as cards (and the side panel, with
 *  nothing to say yet, steps aside); otherwise the picker goes back to the side panel. */
function startScreen(on) {
  const start = $("start");
  const picker = $("picker");
  start.hidden = !on;
  document.body.classList.toggle("start", on);
  if (on && picker.parentElement !== start) start.append(picker);
  if (!on && picker.parentElement === start) document.querySelector("aside").prepend(picker);
  cy.resize(); // the side panel came or went: the graph's width changed
}

function setState(state, message = "") {
  document.body.dataset.state = state;
  $("message").textContent = message;
}

/** A query, asking for a token (once per tab) whenever the service wants one. A dialog
 * closed without a token (Escape) lets the refusal through; the next query asks again. */
async function ask(name, variables) {
  for (let refused = false; ; refused = true) {
    try {
      return await query(name, variables);
    } catch (error) {
      if (!(error instanceof Unauthenticated)) throw error;
      // Queries refused side by side share one dialog; the first to ask restores the state.
      const before = document.body.dataset.state;
      if (before !== "token") setState("token");
      const given = await askForToken(refused || token.get() != null);
      if (before !== "token") setState(before);
      if (given === null) throw error;
      token.set(given);
    }
  }
}

async function load() {
  const { thread, depth, direction, side } = settings();
  $("thread-input").value = thread;
  $("depth-input").value = depth;
  $("direction-input").value = direction;
  $("side-input").checked = side === "1";
  cy.elements().remove();
  panel.replaceChildren(details.h("p", { class: "hint" }, t("hint")));
  startScreen(!thread);
  threads.show(!thread);
  if (!thread) return setState("empty", t("noThread"));
  setState("loading", t("loading"));
  groups = [];
  expanded = new Set();
  boxes = new Map();
  const ticket = ++drawing;
  try {
    const answer = await lineageOf(thread, depth, direction, side === "1");
    family = answer.lineage;
    limited = new Map(answer.providers.filter((p) => p.limit).map((p) => [p.kind, p.limit]));
    providerKinds = answer.providers.map((p) => p.kind);
  } catch (error) {
    return setState("error", t("failed", error.message));
  }
  cy.timings = { outline: performance.now() };
  if (!family.nodes.length) return setState("empty", t("unknown", thread));
  if (await draw(thread, ticket)) show(cy.getElementById(thread));
}

/** What the boxes of these threads show (boxes.graphql), for those not asked yet. */
async function fetchBoxes(ids) {
  const missing = ids.filter((id) => !boxes.has(id));
  const batches = [];
  for (let i = 0; i < missing.length; i += BOX_BATCH) batches.push(missing.slice(i, i + BOX_BATCH));
  const answers = await Promise.all(batches.map((batch) => ask("boxes", { ids: batch })));
  for (const thread of answers.flatMap((a) => a.threadsById)) if (thread) boxes.set(thread.id, thread);
}

/** Draw what of the family fits (collapse.js), then fit it in view; false when a newer
 *  drawing started meanwhile (or its boxes could not be read). */
async function draw(thread, ticket = ++drawing) {
  const view = visibleFamily(family, thread, expanded);
  try {
    await Promise.all([fetchBoxes(view.nodes.map((n) => n.thread.id)), fontsLoaded]);
  } catch (error) {
    if (ticket === drawing) setState("error", t("failed", error.message));
    return false;
  }
  if (ticket !== drawing) return false;
  const mark = (name) => (cy.timings[name] = performance.now());
  mark("queried");
  groups = view.groups;
  cy.elements().remove();
  const nodes = view.nodes.map((n) => ({ ...n, thread: boxes.get(n.thread.id) ?? bare(n.thread) }));
  const { elements, place } = familyElements({ ...view, nodes }, thread, limited, groups);
  mark("elements");
  cy.add(elements);
  mark("added");
  // Parents above children: siblings side by side use the page's width and generations its
  // height (laid out left to right, a family filled a thin strip across the middle).
  const layout = { name: "dagre", rankDir: "TB", nodeSep: 30, rankSep: 70, animate: false };
  cy.elements(`${BOXES}, [kind='lineage'], [kind='${GROUPED}']`).layout(layout).run();
  mark("laidOut");
  alignRankTops(cy.nodes(BOXES));
  place(cy);
  mark("placed");
  routeEdges(cy);
  mark("routed");
  fit();
  legend();
  setState("ready");
  cy.renderedAt = performance.now();
  return true;
}

/** A thread the service no longer finds by id (deleted since the outline): a box, empty. */
const bare = (thread) => ({ ...thread, parent: null, runs: [], providerThreads: [], incomingTransfers: [], divergence: null });

/** The whole family in view, but no closer than MAX_FIT_ZOOM (fitting one small thread
 *  alone would blow it up to about 4×) and never so far that text gets smaller than
 *  READABLE_PX: a family too big for that is shown from its top (and left), centred on the
 *  focused thread if that would be out of view, and the rest is a scroll or a drag away. */
const MAX_FIT_ZOOM = 1.5;
const MARGIN = 20;
function fit() {
  const box = cy.elements().boundingBox();
  if (!box.w) return;
  const width = cy.width() - 2 * MARGIN;
  const height = cy.height() - 2 * MARGIN;
  const zoom = Math.min(MAX_FIT_ZOOM, Math.max(MIN_ZOOM, Math.min(width / box.w, height / box.h)));
  const focus = cy.nodes(".focus").boundingBox();
  const axis = (size, view, start, focusStart, focusSize) => {
    if (size * zoom <= view) return MARGIN + (view - size * zoom) / 2 - start * zoom;
    const fromStart = MARGIN - start * zoom;
    const focusEnd = (focusStart + focusSize) * zoom + fromStart;
    if (!focusSize || focusEnd <= MARGIN + view) return fromStart;
    return MARGIN + view / 2 - (focusStart + focusSize / 2) * zoom;
  };
  cy.viewport({
    zoom,
    pan: { x: axis(box.w, width, box.x1, focus.x1, focus.w), y: axis(box.h, height, box.y1, focus.y1, focus.h) },
  });
}

/** Wheel: scroll (pan) the graph; Ctrl or ⌘ + wheel (and a pinch): zoom at the pointer. */
function wheel(event) {
  event.preventDefault();
  const scale = event.deltaMode === 1 ? 16 : 1; // lines → pixels
  if (event.ctrlKey || event.metaKey) {
    const box = cy.container().getBoundingClientRect();
    const level = cy.zoom() * Math.exp(-event.deltaY * scale * 0.002);
    cy.zoom({ level, renderedPosition: { x: event.clientX - box.left, y: event.clientY - box.top } });
  } else {
    const dx = event.shiftKey ? event.deltaY : event.deltaX;
    const dy = event.shiftKey ? 0 : event.deltaY;
    cy.panBy({ x: -dx * scale, y: -dy * scale });
  }
}

async function show(element) {
  const ticket = ++asked;
  const kind = element.data("kind");
  const ref = element.data("ref");
  const fetchers = {
    run: () => ask("run", { id: ref }).then(details.runDetails),
    handoff: () => ask("handoff", { id: ref }).then(details.handoffDetails),
    lane: () => ask("provider_thread", { id: ref }).then(details.providerThreadDetails),
    cell: () => ask("provider_thread", { id: ref }).then(details.providerThreadDetails),
    transfer: () => ask("transfer", { id: ref }).then(details.transferDetails),
    lineage: () => ask("transfer", { id: ref }).then(details.transferDetails),
    opening: () => ask("transfer", { id: ref }).then(details.transferDetails),
    back: () => ask("transfer", { id: ref }).then(details.transferDetails),
  };
  let content;
  if (kind === "thread" || kind === "title") {
    const node = family.nodes.find((n) => n.thread.id === ref);
    content = [
      details.threadDetails({ ...(boxes.get(ref) ?? bare(node.thread)), depth: node.depth }, family),
      switchSection(ref, providerKinds, ask),
    ];
  } else if (fetchers[kind] && ref) {
    panel.dataset.kind = "loading";
    content = await fetchers[kind]().catch((error) => [details.h("p", { class: "error" }, t("failed", error.message))]);
  } else {
    return;
  }
  if (ticket !== asked) return;
  panel.replaceChildren(...content.flat(Infinity).filter(Boolean));
  panel.dataset.kind = kind;
}

function legend() {
  const providers = [...new Set([...boxes.values()].flatMap((thread) => thread.runs.map((r) => r.provider)))];
  const swatch = (color, text, cls = "") =>
    details.h("li", {}, details.h("span", { class: `swatch ${cls}`, style: `--c:${color}` }), text);
  const edges = cy.edges().length
    ? [
        details.h("h3", {}, t("edges")),
        details.h("ul", {}, [
          swatch(RELATIONSHIPS.FORK, t("forkEdge"), "line"),
          swatch(RELATIONSHIPS.SUBAGENT, t("subagentEdge"), "line dotted"),
          ...(settings().side === "1" ? [swatch(RELATIONSHIPS.SIDE, t("sideEdge"), "line")] : []),
          swatch(STATUS.CONSUMED, t("backEdge"), "line dashed"),
        ]),
        details.h("p", { class: "hint" }, t("edgeHint")),
      ]
    : [];
  $("legend").replaceChildren(
    ...edges,
    details.h("h3", {}, t("providers")),
    details.h("ul", {}, providers.map((p) => swatch(providerColor(p), p))),
    details.h("ul", {}, [
      swatch("#607d8b", t("interruptedRun"), "interrupted"),
      swatch(LIMITED, t("limitedProvider"), "limited"),
      swatch("#607d8b", t("native")),
      swatch("#607d8b", t("handed"), "pale"),
      swatch("#607d8b", t("missing"), "hollow"),
    ]),
    ...(groups.length ? [details.h("p", { class: "hint" }, t("groupHint"))] : []),
    details.h("h3", {}, t("statuses")),
    details.h("ul", {}, ["READY", "PENDING", "SUPERSEDED", "FAILED"].map((s) => swatch(STATUS[s], word(s)))),
  );
}

cy.on("tap", "node, edge", (event) => show(event.target));
// A group box opens: every child of its thread is drawn (each may bring groups of its own).
cy.on("tap", "node[kind='group']", async (event) => {
  const parent = event.target.data("ref");
  expanded.add(parent);
  setState("loading", t("loading"));
  // The thread opened stays in view, its children under it (the family may be far wider).
  if (await draw(settings().thread)) cy.center(cy.getElementById(parent));
});
cy.on("dbltap", "node[kind='thread'], node[kind='title']", (event) => go({ thread: event.target.data("ref") }));
// The full text of what is under the pointer (a title cut to two lines, a lane's label) as
// the graph's tooltip, then what each part of it means, a line each (data "explain", see
// draw.js); an edge shows its own label while hovered.
cy.on("mouseover", "node, edge", (event) => {
  const target = event.target;
  if (target.isEdge()) target.addClass("hover");
  const text = String(target.data("full") ?? target.data("label") ?? "").replace(/\n/g, " · ");
  const explain = target.data("explain");
  cy.container().title = explain ? `${text}\n${explain}` : text;
});
cy.on("mouseout", "node, edge", (event) => {
  event.target.removeClass("hover");
  cy.container().title = "";
});
cy.container().addEventListener("wheel", wheel, { passive: false });
for (const section of [panel, $("picker")]) {
  section.addEventListener("click", (event) => {
    const button = event.target.closest("[data-follow]");
    // A thread picked from the list opens with its whole family.
    if (button) go({ thread: button.dataset.follow, ...(section === panel ? {} : { direction: "FAMILY" }) });
    const fork = event.target.closest("[data-fork-item]");
    if (fork) forkFrom(fork, panel, ask, go);
  });
}
const threads = picker($("picker"), ask);
$("pick").addEventListener("click", () => threads.show(document.body.classList.contains("start") || !threads.shown()));
$("controls").addEventListener("submit", (event) => {
  event.preventDefault();
  go({
    thread: $("thread-input").value.trim(),
    depth: $("depth-input").value,
    direction: $("direction-input").value,
    side: $("side-input").checked ? "1" : "0",
  });
});
// The side toggle redraws at once: the family with or without its side threads.
$("side-input").addEventListener("change", () => go({ side: $("side-input").checked ? "1" : "0" }));
$("fit").addEventListener("click", fit);
window.addEventListener("popstate", load);
translate(document);
load();
