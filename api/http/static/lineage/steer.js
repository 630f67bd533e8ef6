// Steering a thread's context from the details panel.
// "Prepare a switch" (a thread's details): choose a provider and a model, read the plan the
// next start there would follow (explain.graphql, nothing written) and the text of its
// handoff, edit it, save. The text is the prepared handoff's: one prepared before, or one
// prepareHandoff writes when the plan is read (prepare.graphql); saving submits the edited
// text over it (submit.graphql: summarySource PERSON), and the next start on that provider
// injects it as it is while its plan has not moved.
// "Fork here" (a run's details): a fork at that item of the run (fork.graphql), or a side
// thread with "side question" ticked; the page then centres on the new thread.

import { h } from "./details.js";
import { t, word } from "./i18n.js";

/** The "Prepare a switch" section of a thread's details. `ask(name, variables)` runs one
 *  of the page's GraphQL documents. */
export function switchSection(threadId, providers, ask) {
  const provider = h("select", { id: "switch-provider" }, providers.map((kind) => h("option", { value: kind }, kind)));
  const model = h("input", { id: "switch-model", type: "text", size: "16", autocomplete: "off" });
  const read = h("button", { type: "button", id: "switch-read" }, t("readPlan"));
  const plan = h("div", { id: "switch-plan" });
  const text = h("textarea", { id: "switch-text", rows: "12", hidden: "" });
  const save = h("button", { type: "button", id: "switch-save", hidden: "" }, t("save"));
  const said = h("p", { id: "switch-status", role: "status" });
  let handoffId = null;

  const asked = () => ({ thread: threadId, provider: provider.value, model: model.value.trim() || null });
  const failed = (error) => {
    said.className = "error";
    said.textContent = t("failed", error.message);
  };
  const showPlan = async () => {
    const found = (await ask("explain", asked())).explainStartContext;
    plan.replaceChildren(
      h(
        "dl",
        {},
        [
          [t("strategy"), word(found.strategy)],
          [t("providerAction"), word(found.providerAction)],
          [t("coveredRuns"), found.coveredRunOrdinals.join(", ") || t("none")],
          [t("tokens"), found.tokenEstimate],
        ].flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
      ),
      h("ul", { class: "explanation" }, found.explanation.map((line) => h("li", {}, line))),
    );
    return found;
  };

  read.addEventListener("click", async () => {
    said.className = "";
    said.textContent = t("loading");
    text.hidden = save.hidden = true;
    handoffId = null;
    try {
      const found = await showPlan();
      let prepared = found.preparedHandoff;
      if (!prepared && found.handoffStrategies.length === 0) {
        said.textContent = t("nothingToPrepare"); // the start injects no handoff at all
        return;
      }
      if (!prepared) {
        try {
          prepared = (await ask("prepare", asked())).prepareHandoff;
        } catch (error) {
          if (error.code !== "CONFLICT") throw error;
          said.textContent = error.message; // only handoffs of other threads: not this one's to edit
          return;
        }
        await showPlan(); // it now says the start would inject the prepared handoff
      }
      handoffId = prepared.id;
      text.value = prepared.summaryText;
      text.hidden = save.hidden = false;
      said.textContent = t("preparedBy", prepared.id, word(prepared.summarySource));
    } catch (error) {
      failed(error);
    }
  });
  save.addEventListener("click", async () => {
    said.className = "";
    said.textContent = t("loading");
    try {
      const saved = (await ask("submit", { handoff: handoffId, text: text.value })).submitHandoffSummary;
      handoffId = saved.id;
      await showPlan();
      said.textContent = t("saved", saved.id);
    } catch (error) {
      failed(error);
    }
  });

  return h(
    "section",
    { id: "switch" },
    h("h3", {}, t("prepareSwitch")),
    h("p", { class: "hint" }, t("switchHint")),
    h("label", {}, `${t("provider")} `, provider),
    " ",
    h("label", {}, `${t("model")} `, model),
    " ",
    read,
    plan,
    text,
    save,
    said,
  );
}

/** The "Fork here" buttons' shared option, above a run's items. */
export function sideOption() {
  return h("label", { class: "side-option" }, h("input", { type: "checkbox", id: "fork-side" }), ` ${t("sideQuestion")}`);
}

/** A "Fork here" button for item `index` of the run (-1: its input only). */
export function forkButton(run, index) {
  return h(
    "button",
    { type: "button", class: "fork-here", "data-fork-thread": run.thread.id, "data-fork-run": run.id, "data-fork-item": String(index) },
    t("forkHere"),
  );
}

/** A click on a "Fork here" button: the fork, then `go` to it; false if it was none. */
export async function forkFrom(button, panel, ask, go) {
  const side = panel.querySelector("#fork-side")?.checked ?? false;
  const variables = {
    thread: button.dataset.forkThread,
    run: button.dataset.forkRun,
    item: Number.parseInt(button.dataset.forkItem, 10),
    side,
  };
  try {
    const fork = (await ask("fork", variables)).forkThread;
    go({ thread: fork.id, ...(side ? { side: "1" } : {}) });
  } catch (error) {
    panel.append(h("p", { class: "error" }, t("failed", error.message)));
  }
}
