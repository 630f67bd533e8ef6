// GraphiQL on the vendored bundles (no CDN): queries over POST /graphql, subscriptions over
// its websocket (graphql-transport-ws). With a tokens file, the tab's bearer token (kept in
// sessionStorage, shared with the lineage page) goes with every request, the schema's
// introspection included, and in the websocket's connection_init. A tab with no token, or
// one the service refuses, is asked for one in a dialog the first time the service answers
// UNAUTHENTICATED; Authorization typed in the Headers editor wins and is never asked over.
import { askForToken, token } from "../token.js";

const url = new URL("graphql", document.baseURI).href;
const subscriptionUrl = url.replace(/^http/, "ws");
const startToken = token.get();

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
    // Plain JSON answers (no incremental delivery, which the service does not use): a
    // query's answer is then a value that can be read for UNAUTHENTICATED, not a stream.
    const options = {
      url,
      subscriptionUrl,
      headers: auth,
      wsConnectionParams: auth,
      enableIncrementalDelivery: false,
    };
    built = { bearer, fetcher: GraphiQL.createFetcher(options) };
  }
  return built.fetcher;
}

const unauthenticated = (result) =>
  Array.isArray(result?.errors) &&
  result.errors.some((error) => error?.extensions?.code === "UNAUTHENTICATED");

const typedAuthorization = (options) =>
  Object.keys(options?.headers ?? {}).some((name) => name.toLowerCase() === "authorization");

// Set when the dialog was closed without a token: GraphiQL's own second try at the schema
// (it asks again, another way, when an answer holds no `data`) is not asked over; a
// query the user runs is.
let declined = false;
const introspection = (params) => params?.operationName === "IntrospectionQuery";

async function fetcher(params, options) {
  for (;;) {
    const bearer = token.get();
    const result = await fetcherFor(bearer)(params, options);
    if (!unauthenticated(result) || typedAuthorization(options)) return result;
    if (declined && introspection(params)) return result;
    const given = await askForToken(bearer != null);
    declined = given === null;
    if (given === null) return result;
    token.set(given);
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
