// A thin typed client: every operation is a TypedDocumentNode generated from the
// service's schema, so variables and answers are checked by the compiler.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import { createClient, type Client as SocketClient } from "graphql-ws";
import WebSocket from "ws";

/** A GraphQL error of the service, with its `extensions.code` (NOT_FOUND, CONFLICT, ...). */
export class ThreadlineError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ThreadlineError";
  }
}

export interface ClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:8000 (its /graphql address works too) */
  url: string;
  /** A bearer token of the service's tokens file (none for an open service). */
  token?: string;
  /** Another fetch (a test's, a proxy's); the global one by default. */
  fetch?: typeof fetch;
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

export class ThreadlineClient {
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;
  private readonly fetcher: typeof fetch;
  private socket: SocketClient | null = null;

  constructor(private readonly options: ClientOptions) {
    this.endpoint = `${options.url.replace(/\/$/, "").replace(/\/graphql$/, "")}/graphql`;
    this.headers = { "Content-Type": "application/json" };
    if (options.token) this.headers.Authorization = `Bearer ${options.token}`;
    this.fetcher = options.fetch ?? fetch;
  }

  /** One query or mutation; its data, or a ThreadlineError for the first error. */
  async request<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    ...[variables]: TVariables extends Record<string, never> ? [] : [NoInfer<TVariables>]
  ): Promise<TResult> {
    const response = await this.fetcher(this.endpoint, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({ query: print(document), variables: variables ?? {} }),
    });
    const body = (await response.json().catch(() => ({}))) as GraphQLResponse<TResult>;
    const first = body.errors?.[0];
    if (first) {
      const code = String(first.extensions?.code ?? "ERROR");
      throw new ThreadlineError(first.message, code, first.extensions ?? {});
    }
    if (!response.ok || body.data == null) {
      throw new ThreadlineError(`HTTP ${response.status}`, "HTTP");
    }
    return body.data;
  }

  /** A subscription over graphql-transport-ws; call the returned function to stop. */
  subscribe<TResult, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
    handlers: { next: (data: TResult) => void; error?: (error: unknown) => void; complete?: () => void },
  ): () => void {
    return this.sockets().subscribe<TResult>(
      { query: print(document), variables },
      {
        next: (message) => {
          const first = message.errors?.[0];
          if (first) {
            const code = String(first.extensions?.code ?? "ERROR");
            handlers.error?.(new ThreadlineError(first.message, code, first.extensions ?? {}));
          } else if (message.data) {
            handlers.next(message.data);
          }
        },
        error: (error) => handlers.error?.(error),
        complete: () => handlers.complete?.(),
      },
    );
  }

  /** Closes the websocket, if one was opened. */
  async close(): Promise<void> {
    await this.socket?.dispose();
    this.socket = null;
  }

  private sockets(): SocketClient {
    if (this.socket === null) {
      const url = this.endpoint.replace(/^http/, "ws");
      const token = this.options.token;
      this.socket = createClient({
        url,
        webSocketImpl: WebSocket,
        // Browsers cannot set headers on a websocket: the service reads the token here too.
        connectionParams: token ? { Authorization: `Bearer ${token}` } : {},
        lazy: true,
      });
    }
    return this.socket;
  }
}
