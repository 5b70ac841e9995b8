// Errors: the core's typed errors as JS exceptions, and the few ways the host itself can fail.
// Every error is an OncelyError with a stable `code`; the core's own fields are kept as they are.

export class OncelyError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = new.target.name;
    /** A stable machine-readable code. */
    this.code = code;
  }
}

/** JSON refused by canonicalization: what is wrong (`kind`) and where (byte offset, line, column). */
export class CanonicalizationError extends OncelyError {
  constructor(e) {
    super('canon', e.message);
    this.kind = e.kind;
    this.offset = e.offset;
    this.line = e.line;
    this.column = e.column;
  }
}

/** A key could not be derived (`kind`; `at` names the pointer or field; `canon` for invalid-args). */
export class KeyDerivationError extends OncelyError {
  constructor(e) {
    super('key', e.message);
    this.kind = e.kind;
    this.at = e.at;
    this.canon = e.canon;
  }
}

/** A policy or manifest document could not be read; `at` is the JSON pointer of the problem. */
export class PolicyError extends OncelyError {
  constructor(e) {
    super('policy', `policy error at ${JSON.stringify(e.at)}: ${e.message}`);
    this.at = e.at;
    this.reason = e.message;
  }
}

/** The ledger refused an event (stale token, wrong state, …); nothing was written. */
export class LedgerError extends OncelyError {
  constructor(e) {
    super('ledger', e.message);
    this.kind = e.kind;
    this.state = e.state;
  }
}

/** Storage failed (connection dropped, disk full, …). Nothing was recorded by this call. */
export class StorageError extends OncelyError {
  constructor(message, cause) {
    super('storage', `storage: ${message}`, { cause });
  }
}

// The refusals of an effect below carry the core's sentence as their message (`said`): what the
// model reads for the same outcome (`agent.answer`), given by the ledger that raised them; the same
// in every host. Made by hand (no `said`), they say only which refusal and key.
/** @typedef {{said?: string, cause?: unknown}} Said */

/** The key was claimed before with different parameters. */
export class ConflictError extends OncelyError {
  /** @param {Said} [options] */
  constructor(key, pointer, options = {}) {
    super('conflict', options.said ?? `conflict: ${key} at ${JSON.stringify(pointer)}`);
    this.key = key;
    this.pointer = pointer;
  }
}

/** Only a human can settle this effect now (`ledger.resolve`, or `oncely ledger resolve`). */
export class EscalatedError extends OncelyError {
  /** @param {Said} [options] */
  constructor(key, reason, options = {}) {
    super('escalated', options.said ?? `escalated: ${key}: ${reason}`);
    this.key = key;
    this.reason = reason;
  }
}

/**
 * The outcome is unknown and no reconciler could settle it yet; do not retry blindly. Every
 * caller of an in-doubt entry gets this.
 */
export class InDoubtError extends OncelyError {
  /**
   * @param {string} key
   * @param {string} reason
   * @param {number | null} [retryAfterMs]
   * @param {Said} [options]
   */
  constructor(key, reason, retryAfterMs = null, options = {}) {
    super('in-doubt', options.said ?? `in-doubt: ${key}: ${reason}`, { cause: options.cause });
    this.key = key;
    this.reason = reason;
    /** When the next reconciliation is due (ms); null when not known. */
    this.retryAfterMs = retryAfterMs;
  }
}

/** Another worker holds a live claim and did not finish while we waited. */
export class InProgressError extends OncelyError {
  /**
   * @param {string} key
   * @param {string} owner
   * @param {number | null} [retryAfterMs]
   * @param {Said} [options]
   */
  constructor(key, owner, retryAfterMs = null, options = {}) {
    super('in-progress', options.said ?? `in-progress: ${key} (${owner})`);
    this.key = key;
    this.owner = owner;
    /** When to look again (ms), as the core says (as long as the claim has run, never past its lease's end). */
    this.retryAfterMs = retryAfterMs;
  }
}

/** The tool failed and the effect did not happen (recorded, unless the tool is pass-through); `cause`: what it threw. */
export class ToolFailedError extends OncelyError {
  /** @param {Said} [options] */
  constructor(reason, options = {}) {
    super('tool-failed', options.said ?? `tool-failed: ${reason}`, { cause: options.cause });
    this.reason = reason;
  }
}

/**
 * The effect happened, but the tool's value could not be encoded as JSON, so it was recorded
 * without a result: this run and every repeat of the intent raise this, and the tool is never
 * called again for it.
 */
export class ResultNotRecordedError extends OncelyError {
  /** @param {Said} [options] */
  constructor(key, reason, options = {}) {
    super('result-not-recorded', options.said ?? `result-not-recorded: ${key}: ${reason}`, { cause: options.cause });
    this.key = key;
    this.reason = reason;
  }
}

/**
 * The tool's policy asks a person to approve this call first, and nobody has yet; the tool was
 * not called. Every ask of the intent gets this one request until a person decides
 * (`ledger.approve`, `ledger.deny`); then the next ask runs the call, or throws DeniedError.
 */
export class AwaitingApprovalError extends OncelyError {
  /** @param {Said} [options] */
  constructor(key, argsCanonical, version, options = {}) {
    super('awaiting-approval', options.said ?? `awaiting-approval: ${key}`);
    this.key = key;
    /** The arguments a person decides on (canonical JSON). */
    this.argsCanonical = argsCanonical;
    /** The entry's version to decide on. */
    this.version = version;
  }
}

/** A person denied this call: it did not happen and will not. */
export class DeniedError extends OncelyError {
  /** @param {Said} [options] */
  constructor(key, by, reason, settlement, options = {}) {
    super('denied', options.said ?? `denied: ${key} by ${by}: ${reason}`);
    this.key = key;
    this.by = by;
    this.reason = reason;
    /** The decision's id. */
    this.settlement = settlement;
  }
}

/** Lost compare-and-swap races too many times in a row. */
export class ContentionError extends OncelyError {
  /** @param {Said} [options] */
  constructor(races, options = {}) {
    super('contention', options.said ?? `contention: ${races} races`);
    this.races = races;
  }
}

/**
 * The core could not name a tool call (`agent.identify`): `kind` is `no-run` (nothing names a run
 * and the key needs one: give the conversation, thread, workflow or job id) or `invalid-meta` (an
 * MCP `_meta` member that is neither a string nor a number; `at` names it). The message is the
 * core's. Nothing was claimed or called.
 */
export class IdentityError extends OncelyError {
  constructor(e) {
    super('identity', e.message);
    this.kind = e.kind;
    this.at = e.at ?? null;
  }
}

/**
 * A wrapped tool's call that did not simply return, as the model reads it (the core's
 * `agent.answer`): the message is the reply's text (`oncely: …`), `reply` the whole reply
 * (`{code, text, key, pointer, retryAfterMs, repeatable}`), `cause` the typed error behind it
 * (an InDoubtError, a ConflictError, …). `toString()` is the text alone, for frameworks that
 * show the model `${error}`.
 */
export class AnsweredError extends OncelyError {
  constructor(reply, cause) {
    super('answered', reply.text, { cause });
    this.reply = reply;
  }

  toString() {
    return this.message;
  }
}

/**
 * A provider middleware (oncely/hono, oncely/express, oncely/mcp) is misconfigured: an empty
 * scope or tool, a policy the core cannot read or refuses for a provider route. A bug of the
 * server, not of the request.
 */
export class ConfigurationError extends OncelyError {
  constructor(message) {
    super('configuration', message);
  }
}

/** The core component trapped: a bug in oncely. This call failed; the instance was replaced. */
export class CoreTrapError extends OncelyError {
  constructor(cause) {
    super('trap', `the core component trapped (a bug in oncely): ${cause?.message ?? cause}`, { cause });
  }
}

/**
 * A string cannot be handed to the core as Unicode text (it holds a lone surrogate): an id, which
 * a WIT string cannot carry. `kind` is the core's kind for a lone surrogate.
 */
export class EncodingError extends OncelyError {
  constructor(field, index) {
    super('encoding', `${field} holds a lone UTF-16 surrogate at index ${index}; it is not Unicode text`);
    this.kind = 'lone-surrogate';
    this.field = field;
    this.index = index;
  }
}

/**
 * Thrown by a tool to say how it failed. Anything else a tool throws is read as ambiguous:
 * the effect may have happened.
 */
export class ToolError extends Error {
  constructor(reason, options) {
    super(reason, options);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/** The provider said no: the effect did NOT happen (declined card, validation error). */
export class DefiniteFailure extends ToolError {}

/** You cannot tell whether the effect happened (timeout, dropped connection, 5xx after sending). */
export class AmbiguousFailure extends ToolError {}
