// oncely/mcp: a registerTool callback (@modelcontextprotocol/sdk 1.x) that honours the key in `_meta`.
import type { OncelyRequestInfo, ProviderOptions } from './provider.js';

export type { OncelyRequestInfo, ProviderOptions } from './provider.js';

/** What the SDK gives a tool callback (RequestHandlerExtra), as far as once() reads it. */
export interface ToolExtra {
  _meta?: Record<string, unknown>;
  sessionId?: string;
  authInfo?: { clientId?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The extra a wrapped callback gets: `oncely` on keyed calls. */
export type OncelyExtra<E> = E & { oncely?: OncelyRequestInfo };

export interface McpProviderOptions<E> extends ProviderOptions<E> {
  /** The tool's name in the ledger (required: the SDK does not tell the callback). */
  tool: string;
}

/** Wrap a `registerTool` callback with an inputSchema: `(args, extra)`. */
export function once<A, E extends ToolExtra, R>(
  cb: (args: A, extra: OncelyExtra<E>) => R | Promise<R>,
  options: McpProviderOptions<E>,
): (args: A, extra: E) => Promise<R>;
/** Wrap a `registerTool` callback without an inputSchema: `(extra)`. */
export function once<E extends ToolExtra, R>(cb: (extra: OncelyExtra<E>) => R | Promise<R>, options: McpProviderOptions<E>): (extra: E) => Promise<R>;
