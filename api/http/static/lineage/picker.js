// The thread picker: the workspace's threads, a page at a time, searched by title
// (threads.graphql). Each is a [data-follow] button; the page opens the one chosen.
// It asks through the page's `ask`, so a token the tab holds (or is asked for) is sent.

import { h } from "./details.js";
import { t, word } from "./i18n.js";

const SEARCH_DELAY_MS = 250;

/** Fill `section` (with #picker-search, #picker-list, #picker-more, #picker-message). */
export function picker(section, ask) {
  const search = section.querySelector("#picker-search");
  const list = section.querySelector("#picker-list");
  const more = section.querySelector("#picker-more");
  const message = section.querySelector("#picker-message");
  let after = null;
  let asked = 0;
  let loaded = false;

  async function fetchPage(reset) {
    const ticket = ++asked;
    const titleContains = search.value.trim() || null;
    section.dataset.state = "loading";
    let page;
    try {
      page = (await ask("threads", { after: reset ? null : after, titleContains })).threads;
    } catch (error) {
      if (ticket !== asked) return;
      section.dataset.state = "error";
      message.textContent = t("failed", error.message);
      return;
    }
    if (ticket !== asked) return; // a newer search answered first, or will
    if (reset) list.replaceChildren();
    list.append(...page.edges.map(({ node }) => item(node)));
    after = page.pageInfo.endCursor;
    more.hidden = !page.pageInfo.hasNextPage;
    message.textContent = list.childElementCount ? "" : t(titleContains ? "noMatch" : "noThreads");
    section.dataset.state = "ready";
    loaded = true;
  }

  let timer = null;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => fetchPage(true), SEARCH_DELAY_MS);
  });
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    clearTimeout(timer);
    fetchPage(true);
  });
  more.addEventListener("click", () => fetchPage(false));

  return {
    shown: () => !section.hidden,
    show(visible) {
      section.hidden = !visible;
      if (visible && !loaded) fetchPage(true);
      if (visible) search.focus();
    },
  };
}

function item(thread) {
  const when = new Date(thread.createdAt).toLocaleString();
  const kind = thread.relationshipToParent ? ` · ${word(thread.relationshipToParent)}` : "";
  return h(
    "li",
    {},
    h(
      "button",
      { type: "button", class: "pick", "data-follow": thread.id, title: thread.title ?? thread.id },
      h("span", { class: "pick-title" }, thread.title || t("untitled")),
      h("small", {}, `${thread.id}${kind} · ${when}`),
    ),
  );
}
