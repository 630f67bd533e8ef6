// What of a large family is drawn. Beyond BUDGET boxes a graph stops being readable (and
// laying out thousands of boxes takes seconds), so the family is opened generation by
// generation, breadth first from its root: a thread's children are drawn while the budget
// lasts, at most MAX_CHILDREN of them, and the rest of them, with everything below them,
// become one "+N threads" group box under their parent. A click on the group draws all of
// that parent's children (`expanded`), whatever the budget. The root, the path down to
// the focused thread and the focused thread itself are always drawn.

export const BUDGET = 150; // boxes (threads and groups) drawn before anything is expanded
export const MAX_CHILDREN = 8; // children of one thread drawn side by side unless expanded

/** The part of `lineage` to draw: { nodes, edges } as the query answers them, only the
 *  drawn threads, and `groups`, one per parent with hidden children:
 *  { id, parent, threads (every hidden thread under it), count }. */
export function visibleFamily(lineage, focus, expanded = new Set(), budget = BUDGET) {
  const byId = new Map(lineage.nodes.map((n) => [n.thread.id, n]));
  const children = new Map();
  const parentOf = new Map();
  for (const edge of lineage.edges) {
    if (!byId.has(edge.from) || !byId.has(edge.to)) continue;
    children.set(edge.from, [...(children.get(edge.from) ?? []), edge.to]);
    parentOf.set(edge.to, edge.from);
  }
  const pinned = new Set();
  for (let id = focus; id != null && byId.has(id); id = parentOf.get(id)) pinned.add(id);
  const roots = lineage.nodes.map((n) => n.thread.id).filter((id) => !parentOf.has(id));
  const kids = (id) => children.get(id) ?? [];

  const shown = new Set(roots);
  const groups = [];
  // Boxes drawn, plus one slot held for each drawn thread whose children are still to be
  // decided (it will show a child or a group): the budget is never overspent later.
  let committed = roots.length + roots.filter((id) => kids(id).length).length;
  // And room for the pinned threads still to come (each with its slot or group).
  let pinnedAhead = 2 * [...pinned].filter((id) => parentOf.has(id)).length;
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift();
    const all = kids(id);
    if (!all.length) continue;
    committed -= 1;
    const open = expanded.has(id);
    const hidden = [];
    let drawn = 0;
    all.forEach((child, i) => {
      const cost = 1 + (kids(child).length ? 1 : 0);
      const group = hidden.length || i < all.length - 1 ? 1 : 0; // a group may still be needed
      const fits = drawn < MAX_CHILDREN && committed + pinnedAhead + cost + group <= budget;
      if (pinned.has(child)) pinnedAhead -= 2;
      if (open || pinned.has(child) || fits) {
        drawn += 1;
        shown.add(child);
        queue.push(child);
        committed += cost;
      } else {
        hidden.push(child);
      }
    });
    if (hidden.length) {
      const threads = hidden.flatMap((child) => subtree(child, kids));
      groups.push({ id: `group:${id}`, parent: id, threads, count: threads.length });
      committed += 1;
    }
  }
  return {
    nodes: lineage.nodes.filter((n) => shown.has(n.thread.id)),
    edges: lineage.edges.filter((e) => shown.has(e.from) && shown.has(e.to)),
    groups,
  };
}

function subtree(id, kids) {
  const found = [];
  for (const stack = [id]; stack.length; ) {
    const next = stack.pop();
    found.push(next);
    stack.push(...kids(next));
  }
  return found;
}
