export { ThreadlineClient, ThreadlineError, type ClientOptions } from "./client.ts";
export * from "./generated/graphql.ts";
