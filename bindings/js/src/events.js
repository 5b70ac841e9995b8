// What the ledger decided, as events: to hooks (`ledger.onEvent`) and, when `@opentelemetry/api`
// is installed, to OpenTelemetry through its global API (a counter `oncely.ledger.events` and an
// event on the active span), so whatever SDK the application set up sees them. This mirrors
// host/src/events.rs: the same eight kinds, with the same names, in every oncely library.
//
// Which decision is which event, and its detail, is the core's: every step of its machines
// carries its events (wit/effect.wit), and machine.js hands them here once they are true
// (`deliver`); nothing in this package works one out. tests/vectors/effects.json pins them.

/** Every kind of decision, in this order: the same names in every oncely library. */
export const EVENT_KINDS = Object.freeze([
  'claimed', 'executed', 'replayed', 'conflict', 'in-doubt', 'reconciled', 'escalated', 'resolved',
  'awaiting-approval', 'approved', 'denied',
]);

// ---- OpenTelemetry ------------------------------------------------------------------------------

// An optional peer dependency, imported once per process when the first ledger that may use it
// is made. The specifier is not a literal, so a bundler (esbuild, wrangler, webpack, vite) does
// not try to bundle it, nor fails where it is not installed; at run time a missing package is
// quietly no OpenTelemetry (give the API as the `openTelemetry` option where it cannot be
// imported by name, as in a bundled Worker).
const OTEL_API = '@opentelemetry/api';
let globalApi; // undefined: not tried yet; null: not installed; else the API
let loading = null; // while the import is under way

function loadGlobalApi() {
  if (globalApi === undefined && loading === null) {
    loading = import(/* webpackIgnore: true */ /* @vite-ignore */ OTEL_API)
      .then(apiOf, () => null)
      .then((api) => {
        globalApi = api;
        loading = null;
      });
  }
}

/** The API in a module namespace (ESM or CommonJS), or null when it is not one. */
function apiOf(m) {
  const api = m?.trace && m?.metrics ? m : m?.default;
  return typeof api?.trace?.getActiveSpan === 'function' && typeof api?.metrics?.getMeterProvider === 'function' ? api : null;
}

// The counter of the meter provider registered now: made again when the application registers
// another (the metrics API has no proxy provider, so a counter made before the SDK was set up
// would count nowhere).
let counterProvider = null;
let counter = null;

function counterOf(api) {
  const provider = api.metrics.getMeterProvider();
  if (provider !== counterProvider) {
    counter = provider.getMeter('oncely').createCounter('oncely.ledger.events', {
      unit: '{event}',
      description: 'Decisions of oncely ledgers (claimed, executed, replayed, conflict, in-doubt, reconciled, escalated, resolved)',
    });
    counterProvider = provider;
  }
  return counter;
}

function toOpenTelemetry(api, e) {
  counterOf(api).add(1, { 'oncely.event': e.kind, 'oncely.scope': e.scope, 'oncely.tool': e.tool });
  const span = api.trace.getActiveSpan();
  if (span !== undefined && span.isRecording()) {
    span.addEvent(`oncely.${e.kind}`, { 'oncely.event': e.kind, 'oncely.scope': e.scope, 'oncely.key': e.key, 'oncely.tool': e.tool, 'oncely.detail': e.detail });
  }
}

// ---- the sink of a ledger (shared by its withOwner copies) ----------------------------------------

const reportHookError = (err, e) => console.error(`oncely: an onEvent hook failed on a ${e.kind} event (${e.scope} ${e.key}):`, err);

export class Events {
  #hooks = []; // replaced, never changed in place: an emit goes through the list it started with
  #api; // undefined: the global API (when it has loaded); null: none; else the API given

  /** `openTelemetry`: undefined (the installed `@opentelemetry/api`, if any), false, or the API. */
  constructor(openTelemetry) {
    if (openTelemetry === false) this.#api = null;
    else if (openTelemetry === undefined || openTelemetry === null) loadGlobalApi();
    else if ((this.#api = apiOf(openTelemetry)) === null) throw new TypeError('openTelemetry: the @opentelemetry/api module (with trace and metrics), or false');
  }

  /** Add a hook; returns the function that removes it. */
  add(hook, onError) {
    if (typeof hook !== 'function') throw new TypeError('ledger.onEvent(hook): hook is a function');
    if (onError !== undefined && onError !== null && typeof onError !== 'function') throw new TypeError('ledger.onEvent(hook, {onError}): onError is a function');
    const h = { hook, onError: onError ?? reportHookError };
    this.#hooks = [...this.#hooks, h];
    return () => {
      this.#hooks = this.#hooks.filter((x) => x !== h);
    };
  }

  /** A promise to wait for before deciding anything while the OpenTelemetry API loads, else null. */
  pending() {
    return this.#api === undefined ? loading : null;
  }

  /** The events of one step of a machine (WIT `notice`s, the core's decisions), in order. */
  deliver(events) {
    for (const n of events) this.emit(n.kind, n.scope, n.key, n.tool, n.detail);
  }

  /** One decision, to every hook and to OpenTelemetry. Never throws. */
  emit(kind, scope, key, tool, detail) {
    const hooks = this.#hooks;
    const api = this.#api === undefined ? globalApi : this.#api;
    if (hooks.length === 0 && !api) return;
    const e = Object.freeze({ kind, scope, key, tool, detail });
    if (api) {
      try {
        toOpenTelemetry(api, e);
      } catch (err) {
        console.error(`oncely: OpenTelemetry failed on a ${kind} event:`, err);
      }
    }
    for (const h of hooks) {
      try {
        const r = h.hook(e);
        if (typeof r?.then === 'function') r.then(undefined, (err) => failed(h, err, e));
      } catch (err) {
        failed(h, err, e);
      }
    }
  }
}

// A hook threw or rejected: its onError (default: console.error) gets it, once.
function failed(h, err, e) {
  try {
    h.onError(err, e);
  } catch (err2) {
    console.error(`oncely: an onEvent hook failed on a ${e.kind} event:`, err, '\nand its onError failed on it:', err2);
  }
}
