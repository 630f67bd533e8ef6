// Where the thread boxes and the edges between them go, after dagre has ranked the boxes top
// to bottom. Two rules keep every line off every label (all text sits inside the boxes):
//   - the boxes of a rank share their top edge (dagre centres them), so the band between
//     the lowest bottom of one rank and the tops of the next is free of boxes;
//   - an edge leaves the upper box straight down from its bottom side, crosses the band, and
//     enters the lower box straight down into (or leaves it straight up from) its top side.
// Each box spreads the edges it has on a side along that side, in the order of the boxes at
// their other ends, so an edge and the merge-back beside it do not draw over each other.

import { BOXES } from "./draw.js";

const SPREAD = 26; // px between two edges' ends on one side of a box
const STUB = 12; // the straight bits at both ends, so an arrowhead points straight down or up

/** Give each rank of thread boxes one top edge: dagre puts a rank's centres on one line. */
export function alignRankTops(boxes) {
  const ranks = new Map();
  boxes.forEach((box) => {
    const key = Math.round(box.position("y"));
    ranks.set(key, [...(ranks.get(key) ?? []), box]);
  });
  for (const rank of ranks.values()) {
    const top = Math.min(...rank.map((box) => box.position("y") - box.height() / 2));
    for (const box of rank) box.position("y", top + box.height() / 2);
  }
}

/** Route every edge between thread boxes; run after alignRankTops and the boxes' contents. */
export function routeEdges(cy) {
  const boxes = cy.nodes(BOXES);
  const bottoms = new Map(); // a rank's top → its lowest bottom
  boxes.forEach((box) => {
    const key = Math.round(top(box));
    bottoms.set(key, Math.max(bottoms.get(key) ?? -Infinity, bottom(box)));
  });
  const rankBottom = (box) => bottoms.get(Math.round(top(box)));
  const edges = cy.edges().filter((edge) => edge.source().id() !== edge.target().id());
  const ends = new Map(); // edge id → { upper x, lower x }
  const spreadOn = (box, side, list, other) => {
    const sorted = list.sort((a, b) => other(a).position("x") - other(b).position("x") || order(a) - order(b));
    const step = Math.min(SPREAD, (box.width() - 2 * SPREAD) / Math.max(1, sorted.length - 1));
    sorted.forEach((edge, i) => {
      const x = box.position("x") + (i - (sorted.length - 1) / 2) * step;
      ends.set(edge.id(), { ...ends.get(edge.id()), [side]: x });
    });
  };
  boxes.forEach((box) => {
    const below = edges.filter((e) => upper(e).same(box));
    const above = edges.filter((e) => lower(e).same(box));
    spreadOn(box, "upper", below.toArray(), lower);
    spreadOn(box, "lower", above.toArray(), upper);
  });
  edges.forEach((edge) => {
    const { upper: ux, lower: lx } = ends.get(edge.id());
    const high = upper(edge);
    const low = lower(edge);
    const band = rankBottom(high);
    const highEnd = { x: ux, y: bottom(high) };
    const lowEnd = { x: lx, y: top(low) };
    const path = [{ x: ux, y: band + STUB }, { x: lx, y: top(low) - STUB }];
    const down = edge.source().same(high);
    const [from, to, waypoints] = down ? [highEnd, lowEnd, path] : [lowEnd, highEnd, [...path].reverse()];
    segments(edge, from, to, waypoints);
  });
}

const top = (box) => box.position("y") - box.height() / 2;
const bottom = (box) => box.position("y") + box.height() / 2;
const upper = (edge) => (top(edge.source()) <= top(edge.target()) ? edge.source() : edge.target());
const lower = (edge) => (upper(edge).same(edge.source()) ? edge.target() : edge.source());
// Along one pair of boxes: the fork or subagent edge first, then what came back.
const order = (edge) => (edge.data("kind") === "lineage" ? 0 : 1);

/** Draw `edge` from `from` through `waypoints` to `to` (model coordinates), as Cytoscape's
 *  "segments" edges take them: weights along, and distances across, the line between the
 *  two nodes' centres. */
function segments(edge, from, to, waypoints) {
  const s = edge.source().position();
  const t = edge.target().position();
  const vx = t.x - s.x;
  const vy = t.y - s.y;
  const length = Math.hypot(vx, vy) || 1;
  const weights = waypoints.map((p) => ((p.x - s.x) * vx + (p.y - s.y) * vy) / length ** 2);
  const distances = waypoints.map((p) => ((p.x - s.x) * -vy + (p.y - s.y) * vx) / length);
  // Fixed decimals: Cytoscape's style parser takes no exponents (1e-14px).
  const n = (value) => value.toFixed(3);
  edge.style({
    "curve-style": "segments",
    "edge-distances": "node-position",
    "segment-weights": weights.map(n).join(" "),
    "segment-distances": distances.map(n).join(" "),
    "source-endpoint": `${n(from.x - s.x)}px ${n(from.y - s.y)}px`,
    "target-endpoint": `${n(to.x - t.x)}px ${n(to.y - t.y)}px`,
  });
}
