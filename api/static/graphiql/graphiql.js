// GraphiQL on the vendored bundles (no CDN): queries over POST /graphql, subscriptions over
// its websocket (graphql-transport-ws). With a tokens file, send the token in the Headers
// editor as {"Authorization": "Bearer <token>"}; GraphiQL also passes those headers in the
// websocket's connection_init. A token the lineage page kept in this tab is filled in.
"use strict";

const url = new URL("graphql", document.baseURI).href;
const subscriptionUrl = url.replace(/^http/, "ws");
const token = sessionStorage.getItem("threadline.token");
const headers = token ? JSON.stringify({ Authorization: `Bearer ${token}` }, null, 2) : "";

const defaultQuery = `# Ctrl-Enter runs the query. With a tokens file, open Headers below and send
#   {"Authorization": "Bearer <token>"}
query Threads {
  threads(first: 10) { edges { node { id title } } }
}
`;

ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    fetcher: GraphiQL.createFetcher({ url, subscriptionUrl }),
    defaultQuery,
    defaultHeaders: headers,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: token ? "headers" : false,
  }),
);
