// The cases of tests/vectors/adapters.json (wit/agent.wit), replayed through the package's
// `identify`, `answer` and `intentKey`, as tests/vectors/README.md says: the call context built
// from `call` (`meta` as its JSON text), the identity compared field by field, the key of the
// identified intent derived with the spec the core returns where there are `args`, the reply
// compared as a whole. No Node API: the workerd test runs the same code inside workerd.
import { answer, identify, intentKey } from 'oncely';

/** The call context of a case's `call`: `key` is the policy's key spec (`{}`: the default). */
export function callContext(call) {
  if (call.meta !== undefined && call.metaJson !== undefined) throw new Error('meta or metaJson');
  return {
    tool: call.tool,
    keyIdentity: call.key?.identity ?? 'step',
    effectClass: call.class,
    scope: call.scope,
    run: call.run,
    step: call.step,
    conversation: call.conversation,
    metaJson: call.meta !== undefined ? JSON.stringify(call.meta) : (call.metaJson ?? ''),
    paramsKey: call.paramsKey,
    session: call.session,
    defaultScope: call.defaultScope,
    defaultRun: call.defaultRun,
  };
}

/**
 * A policy document with the case's class (none: a keyed one) and key spec, its identity replaced
 * by `identity` when given.
 */
export function policyOf(key, identity, cls) {
  return { class: cls ?? 'irreversible-external', key: { ...(key ?? {}), ...(identity === undefined ? {} : { identity }) } };
}

/** What `identify` gives for a case, in the shape of its `expect`. */
export function identifyCase(c) {
  let i;
  try {
    i = identify(callContext(c.call));
  } catch (e) {
    if (e?.name !== 'IdentityError') throw e;
    return { error: { kind: e.kind, at: e.at, message: e.message } };
  }
  const got = {
    scope: i.scope,
    run: i.run,
    step: i.step,
    keyIdentity: i.keyIdentity,
    from: { scope: i.scopeFrom, run: i.runFrom, step: i.stepFrom },
  };
  if (c.args !== undefined) {
    const intent = { scope: i.scope, run: i.run ?? '', step: i.step ?? '', tool: c.call.tool, args: c.args };
    got.derived = intentKey({ ...intent, policy: policyOf(c.call.key, i.keyIdentity, c.call.class) });
  }
  return got;
}

/** A case's `failure` (`{effect: {NAME: …}}`, `{key: …}` or `{canon: …}`) as `answer` takes it. */
export function failureOf(f) {
  const [[tag, body]] = Object.entries(f);
  if (tag === 'effect') {
    const [[name, val]] = Object.entries(body);
    return { tag, val: { tag: name, val } };
  }
  if (tag === 'key') return { tag, val: { ...body, canon: null } };
  return { tag, val: { ...body, line: 1, column: body.offset + 1 } };
}

/** What `answer` gives for a case: the reply, or null. */
export function answerCase(c) {
  return answer(failureOf(c.failure));
}

/** Every case of the document: `{identify: [got…], answer: [got…]}`, in order. */
export function replayAgentVectors(doc) {
  const run = (f) => (c) => {
    try {
      return f(c);
    } catch (e) {
      return { thrown: `${e?.name}: ${e?.message}` };
    }
  };
  return { identify: doc.identify.map(run(identifyCase)), answer: doc.answer.map(run(answerCase)) };
}

/** The failures of `sameKeyAs` / `otherKeyThan` (indexes of identify cases) over the results. */
export function keyRelations(doc, got) {
  const failures = [];
  doc.identify.forEach((c, n) => {
    const mine = got[n]?.derived;
    if (c.sameKeyAs !== undefined && (mine === undefined || got[c.sameKeyAs]?.derived !== mine)) failures.push(`${c.name}: not the key of case ${c.sameKeyAs}`);
    if (c.otherKeyThan !== undefined && (mine === undefined || got[c.otherKeyThan]?.derived === mine)) failures.push(`${c.name}: the key of case ${c.otherKeyThan}`);
  });
  return failures;
}
