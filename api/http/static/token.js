// The tab's bearer token, shared by the lineage page and GraphiQL: kept in sessionStorage
// for this browser tab only, and asked for in the page's #token-dialog when the service
// answers UNAUTHENTICATED.

const TOKEN_KEY = "threadline.token";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
};

// Requests refused at once (the introspection and a query, say) share one dialog.
let asking = null;

/** The token typed in the page's #token-dialog, or null when the dialog is closed without
 * one (Escape), so the caller can show the refusal instead of waiting. `refused`: the
 * service refused the token the tab had, which the dialog says. */
export function askForToken(refused) {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById("token-dialog");
    const input = document.getElementById("token-input");
    let settled = false;
    const settle = (given) => {
      if (settled) return; // the dialog also closes after a submit
      settled = true;
      asking = null;
      resolve(given);
    };
    document.getElementById("token-refused").hidden = !refused;
    input.value = "";
    document.getElementById("token-form").onsubmit = () => settle(input.value.trim());
    dialog.onclose = () => settle(null);
    dialog.showModal();
  });
  return asking;
}
