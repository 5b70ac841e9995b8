// oncely: exactly-once effects for AI-agent tool calls. Every rule lives in the core component
// (gen/core: bindings/oncely-core.wasm transpiled by jco, committed); this package is its JS host.
export { answer, canonicalize, checkTools, classify, coreDefaults, defaultPolicy, deriveKey, deriveKeys, explain, identify, intentKey, limits, machineSteps, parsePolicy, resolveTool } from './core.js';
export { replyTo } from './adapters/shared.js';
export { Ledger, happened, notHappened, unknown, systemClock } from './ledger.js';
export { EVENT_KINDS } from './events.js';
export { MemoryStore } from './stores/memory.js';
export { DurableObjectStore } from './stores/durable-object.js';
export {
  AmbiguousFailure,
  AnsweredError,
  AwaitingApprovalError,
  CanonicalizationError,
  ConfigurationError,
  ConflictError,
  ContentionError,
  CoreTrapError,
  DefiniteFailure,
  DeniedError,
  EncodingError,
  EscalatedError,
  IdentityError,
  OncelyError,
  InDoubtError,
  InProgressError,
  KeyDerivationError,
  LedgerError,
  PolicyError,
  ResultNotRecordedError,
  StorageError,
  ToolError,
  ToolFailedError,
} from './errors.js';
