// oncely/restate: an effect inside Restate's `ctx.run` (@restatedev/restate-sdk 1.x) keyed by the
// invocation's identity. Typed structurally: it needs no Restate types.

/** What the action gets: the run (the invocation id) and the step (`<name>#<n>`). */
export interface RestateIdentity {
  /** The invocation id (`ctx.request().id`): the same for every retry of the invocation. */
  run: string;
  /** `<name>#<n>`: the n-th run of that name in the invocation; absent with `byStep: false`. */
  step?: string;
}

/** What `run` reads of Restate's handler context (a Service's, a Virtual Object's or a Workflow's). */
export interface RestateRunContext<P> {
  request(): { readonly id: string };
  run(name: string, action: () => any, options?: any): P;
}

/**
 * `ctx.run(name, () => action(identity), options)`: the action gets the run (the invocation id) and
 * the step (`<name>#<n>`, counted when `run` is called) to key its oncely effect by. `byStep:
 * false`: the run only. The other options are ctx.run's own. Returns what `ctx.run` returns (a
 * RestatePromise). Throws a TypeError outside a handler (no `ctx.request().id`) or without a name.
 */
export function run<P>(
  ctx: RestateRunContext<P>,
  name: string,
  action: (identity: RestateIdentity) => unknown,
  options?: { byStep?: boolean } & Record<string, unknown>,
): P;
