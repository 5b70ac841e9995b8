// The options every provider middleware takes (oncely/hono, oncely/express, oncely/mcp).
import type { Ledger, PolicyInput } from './index.js';

export interface ProviderOptions<Req> {
  /** The ledger, or a function of the request returning it (on workerd: a Ledger over a Durable Object reached through `env`). */
  ledger: Ledger | ((req: Req) => Ledger | Promise<Ledger>);
  /** The client's stable tenant or principal id (or a function of the request returning it); never its bearer token. */
  scope: string | ((req: Req) => string | Promise<string>);
  /** The operation's name in the ledger (default: `METHOD route`; required for MCP tools). */
  tool?: string;
  /** The operation's policy (docs/key-scheme.md §6); default: irreversible-external, reconciled manually. */
  policy?: PolicyInput;
  /** Refuse requests without a key (400 idempotency-key-missing); default false: they pass unkeyed. */
  required?: boolean;
  /** How long a concurrent duplicate waits for the first before 409 request-in-progress (ms); default: the core's providerWaitMs, 0. */
  waitMs?: number;
  /** This worker's id in claims (default: the ledger's). */
  owner?: string;
  /** HTTP: the largest keyed request body read (bytes); default: the core's providerMaxBody, 1 MiB; larger: 413 request-too-large. */
  maxBody?: number;
}

/** What the handler can read of a keyed request. */
export interface OncelyRequestInfo {
  /** The key the client sent. */
  clientKey: string;
  /** The ledger key of the request (`oncely1:…`). */
  key: string;
  scope: string;
  tool: string;
}
