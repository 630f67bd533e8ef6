// The lineage page: /lineage?thread=ID[&depth=N&direction=BOTH|ANCESTORS|DESCENDANTS].
// One query draws the family (family.graphql); a click asks for that element's details.
// For tests and the curious: window.threadline.graph() is what is drawn, and
// document.body.dataset.state is loading | ready | empty | token | error.

import { query, token, Unauthenticated } from "./api.js";
import * as details from "./details.js";
import { familyElements, LIMITED, providerColor, STATUS, STYLE } from "./draw.js";
import { t, translate } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const panel = $("details");
const cy = cytoscape({ container: $("graph"), style: STYLE, autoungrabify: true, minZoom: 0.1 });
let family = null;
let limited = new Map(); // provider kind → its usage limit in force
let asked = 0;

window.threadline = {
  cy,
  graph: () => ({
    threads: cy.nodes("[kind='thread']").map((n) => n.id()),
    edges: cy.edges("[kind='lineage']").map((e) => ({
      from: e.data("source"),
      to: e.data("target"),
      relationship: e.data("relationship"),
      sourceRunOrdinal: e.data("sourceRunOrdinal"),
      divergence: e.data("divergence"),
      label: e.data("label"),
    })),
  }),
};

function settings() {
  const params = new URLSearchParams(location.search);
  const depth = Number.parseInt(params.get("depth") ?? "10", 10);
  return {
    thread: (params.get("thread") ?? "").trim(),
    depth: Number.isFinite(depth) && depth >= 0 ? depth : 10,
    direction: params.get("direction") ?? "BOTH",
  };
}

function go(changes) {
  const params = new URLSearchParams({ ...settings(), ...changes });
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked) params.set("lang", asked); // the language chosen in the address stays chosen
  history.pushState(null, "", `?${params}`);
  load();
}

function setState(state, message = "") {
  document.body.dataset.state = state;
  $("message").textContent = message;
}

/** A query, asking for a token (once per tab) whenever the service wants one. */
async function ask(name, variables) {
  for (let refused = false; ; refused = true) {
    try {
      return await query(name, variables);
    } catch (error) {
      if (!(error instanceof Unauthenticated)) throw error;
      token.set(await askForToken(refused || token.get() != null));
    }
  }
}

function askForToken(refused) {
  const dialog = $("token-dialog");
  $("token-refused").hidden = !refused;
  const before = document.body.dataset.state;
  setState("token");
  dialog.showModal();
  return new Promise((resolve) => {
    $("token-form").onsubmit = () => {
      setState(before);
      resolve($("token-input").value.trim());
    };
  });
}

async function load() {
  const { thread, depth, direction } = settings();
  $("thread-input").value = thread;
  $("depth-input").value = depth;
  $("direction-input").value = direction;
  cy.elements().remove();
  panel.replaceChildren(details.h("p", { class: "hint" }, t("hint")));
  if (!thread) return setState("empty", t("noThread"));
  setState("loading", t("loading"));
  try {
    const answer = await ask("family", { thread, depth, direction });
    family = answer.lineage;
    limited = new Map(answer.providers.filter((p) => p.limit).map((p) => [p.kind, p.limit]));
  } catch (error) {
    return setState("error", t("failed", error.message));
  }
  if (!family.nodes.length) return setState("empty", t("unknown", thread));
  const { elements, place } = familyElements(family, thread, limited);
  cy.add(elements);
  // rankSep leaves room between a parent and its children for the edge labels (two lines,
  // up to about 180 px wide at zoom 1 with divergence) so they sit clear of the boxes.
  const layout = { name: "dagre", rankDir: "LR", nodeSep: 60, rankSep: 240, animate: false };
  cy.elements("[kind='thread'], [kind='lineage']").layout(layout).run();
  place(cy);
  fit();
  legend();
  show(cy.getElementById(thread));
  setState("ready");
}

/** The whole family in view, but no closer than MAX_FIT_ZOOM: fitting one small thread
 *  alone would blow it up to about 4×. Zooming in by hand is still allowed. */
const MAX_FIT_ZOOM = 1.5;
function fit() {
  cy.fit(undefined, 30);
  if (cy.zoom() > MAX_FIT_ZOOM) {
    cy.zoom(MAX_FIT_ZOOM);
    cy.center();
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
  };
  let content;
  if (kind === "thread") {
    const node = family.nodes.find((n) => n.thread.id === ref);
    content = details.threadDetails({ ...node.thread, depth: node.depth }, family);
  } else if (fetchers[kind] && ref) {
    panel.dataset.kind = "loading";
    content = await fetchers[kind]().catch((error) => [details.h("p", { class: "error" }, t("failed", error.message))]);
  } else {
    return;
  }
  if (ticket !== asked) return;
  panel.replaceChildren(...content.flat().filter(Boolean));
  panel.dataset.kind = kind;
}

function legend() {
  const providers = [...new Set(family.nodes.flatMap((n) => n.thread.runs.map((r) => r.provider)))];
  const swatch = (color, text, cls = "") =>
    details.h("li", {}, details.h("span", { class: `swatch ${cls}`, style: `--c:${color}` }), text);
  $("legend").replaceChildren(
    details.h("h3", {}, t("providers")),
    details.h("ul", {}, providers.map((p) => swatch(providerColor(p), p))),
    details.h("ul", {}, [
      swatch("#607d8b", t("interruptedRun"), "interrupted"),
      swatch(LIMITED, t("limitedProvider"), "limited"),
      swatch("#607d8b", t("native")),
      swatch("#607d8b", t("handed"), "pale"),
      swatch("#607d8b", t("missing"), "hollow"),
    ]),
    details.h("h3", {}, t("statuses")),
    details.h("ul", {}, ["READY", "PENDING", "SUPERSEDED", "FAILED"].map((s) => swatch(STATUS[s], s))),
  );
}

cy.on("tap", "node, edge", (event) => show(event.target));
cy.on("dbltap", "node[kind='thread']", (event) => go({ thread: event.target.id() }));
panel.addEventListener("click", (event) => {
  const button = event.target.closest("[data-follow]");
  if (button) go({ thread: button.dataset.follow });
});
$("controls").addEventListener("submit", (event) => {
  event.preventDefault();
  go({
    thread: $("thread-input").value.trim(),
    depth: $("depth-input").value,
    direction: $("direction-input").value,
  });
});
$("fit").addEventListener("click", fit);
window.addEventListener("popstate", load);
translate(document);
load();
