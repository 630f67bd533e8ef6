// GraphiQL on the vendored bundles (no CDN): queries over POST /graphql, subscriptions over
// its websocket (graphql-transport-ws). With a tokens file, the tab's bearer token (kept in
// sessionStorage, shared with the lineage page) goes with every request, the schema's
// introspection included, and in the websocket's connection_init. A tab with no token, or
// one the service refuses, is asked for one in a dialog the first time the service answers
// UNAUTHENTICATED; Authorization typed in the Headers editor wins and is never asked over.
"use strict";

const TOKEN_KEY = "threadline.token";
const url = new URL("graphql", document.baseURI).href;
const subscriptionUrl = url.replace(/^http/, "ws");
const startToken = sessionStorage.getItem(TOKEN_KEY);

const defaultQuery = `# Ctrl-Enter runs the query. With a tokens file,
# this tab asks for a token once; one typed in
# Headers below is sent instead:
#   {"Authorization": "Bearer <token>"}
query Threads {
  threads(first: 10) { edges { node { id title } } }
}
`;

const bearerHeader = (bearer) => ({ Authorization: `Bearer ${bearer}` });

// One GraphiQL fetcher per token: headers and websocket parameters are fixed when it is made.
let built = { bearer: undefined, fetcher: null };

function fetcherFor(bearer) {
  if (built.bearer !== bearer) {
    const auth = bearer ? bearerHeader(bearer) : {};
    const options = { url, subscriptionUrl, headers: auth, wsConnectionParams: auth };
    built = { bearer, fetcher: GraphiQL.createFetcher(options) };
  }
  return built.fetcher;
}

const unauthenticated = (result) =>
  Array.isArray(result?.errors) &&
  result.errors.some((error) => error?.extensions?.code === "UNAUTHENTICATED");

const typedAuthorization = (options) =>
  Object.keys(options?.headers ?? {}).some((name) => name.toLowerCase() === "authorization");

// Requests refused at once (the introspection and a query, say) share one dialog.
let asking = null;

function askForToken(refused) {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById("token-dialog");
    const input = document.getElementById("token-input");
    document.getElementById("token-refused").hidden = !refused;
    input.value = "";
    document.getElementById("token-form").onsubmit = () => {
      asking = null;
      resolve(input.value.trim());
    };
    dialog.showModal();
  });
  return asking;
}

async function fetcher(params, options) {
  for (;;) {
    const bearer = sessionStorage.getItem(TOKEN_KEY);
    const result = await fetcherFor(bearer)(params, options);
    if (!unauthenticated(result) || typedAuthorization(options)) return result;
    sessionStorage.setItem(TOKEN_KEY, await askForToken(bearer != null));
  }
}

ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery,
    defaultHeaders: startToken ? JSON.stringify(bearerHeader(startToken), null, 2) : "",
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: startToken ? "headers" : false,
  }),
);
