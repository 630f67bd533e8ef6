// GraphiQL on the vendored bundles (no CDN): queries over POST /graphql, subscriptions over
// its websocket (graphql-transport-ws). With a tokens file, send the token in the Headers
// editor as {"Authorization": "Bearer <token>"}; GraphiQL also passes those headers in the
// websocket's connection_init. A token the lineage page kept in this tab is sent with every
// request, the schema's introspection included, and shown in the Headers editor.
"use strict";

const url = new URL("graphql", document.baseURI).href;
const subscriptionUrl = url.replace(/^http/, "ws");
const token = sessionStorage.getItem("threadline.token");
const auth = token ? { Authorization: `Bearer ${token}` } : {};
const headers = token ? JSON.stringify(auth, null, 2) : "";

const defaultQuery = `# Ctrl-Enter runs the query. With a tokens file, open Headers below and send
#   {"Authorization": "Bearer <token>"}
query Threads {
  threads(first: 10) { edges { node { id title } } }
}
`;

ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    // The token goes in the fetcher itself, not only in the Headers editor: GraphiQL's first
    // introspection runs before that editor exists, so it would go out without it and the
    // schema (Docs, completion) would fail UNAUTHENTICATED until "Re-fetch schema". Headers
    // typed in the editor are merged over these, per request.
    fetcher: GraphiQL.createFetcher({ url, subscriptionUrl, headers: auth, wsConnectionParams: auth }),
    defaultQuery,
    defaultHeaders: headers,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: token ? "headers" : false,
  }),
);
