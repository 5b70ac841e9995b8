import type { ShippedStore, StorageError } from './index.js';

/** The server's persistence as read at open, and what the ledger guarantees under it. */
export class Durability {
  /** `CONFIG GET appendonly` (null: CONFIG is not allowed on this server). */
  readonly appendonly: string | null;
  /** `CONFIG GET appendfsync`. */
  readonly appendfsync: string | null;
  /** Replicas every claim waits for (`?wait_replicas=`). */
  readonly waitReplicas: number;
  /** Whether the server is part of a cluster. */
  readonly cluster: boolean;
  /** Whether a claim that returned survives the server's crash or the loss of the primary. */
  readonly claimsSurviveACrash: boolean;
  /** What the ledger guarantees under this configuration, in a sentence. */
  readonly guarantee: string;
}

/**
 * A claim reached fewer replicas than `?wait_replicas=` within `?wait_timeout_ms=` (`WAIT`): it
 * is held on the primary, the tool is not called.
 */
export class NotReplicatedError extends StorageError {
  readonly wanted: number;
  readonly acked: number;
  readonly timeoutMs: number;
}

/**
 * The Redis / Valkey store (ioredis 6.x, Node only): the Rust host's key layout and Lua scripts,
 * on one server, a primary with replicas, or a Redis Cluster.
 */
export interface RedisStore extends ShippedStore {}
export class RedisStore {
  /**
   * Connect to `redis://[user:password@]host:port[/db]` or `rediss://…`, with the query options
   * `prefix`, `wait_replicas`, `wait_timeout_ms` and `tls_ca`; a server in cluster mode is used as
   * a cluster. `onDurability` hears the persistence read at open (default: a process warning when
   * a claim would not survive the server's crash); `onError` hears connection errors (default:
   * ignored); other options go to ioredis.
   */
  static connect(
    url: string,
    options?: { onDurability?: (durability: Durability, where: string) => void; onError?: (error: Error) => void; [option: string]: unknown },
  ): Promise<RedisStore>;
  /** The write scripts, as ioredis's `scripts` option takes them (for a client of your own). */
  static readonly scripts: Record<string, { numberOfKeys: number; lua: string }>;
  /** A store over a connected ioredis client made with `RedisStore.scripts`. */
  constructor(client: unknown, options?: { prefix?: string; waitReplicas?: number; waitTimeoutMs?: number; durability?: Durability | null });
  readonly client: any;
  readonly prefix: string;
  readonly waitReplicas: number;
  readonly waitTimeoutMs: number;
  readonly cluster: boolean;
  /** The server's persistence as read at open (null for a store made over a client). */
  readonly durability: Durability | null;
}
