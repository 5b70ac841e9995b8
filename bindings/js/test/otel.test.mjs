// Ledger decisions in OpenTelemetry, through the real SDK packages set up as an application does
// (global providers, an AsyncLocalStorage context manager): the package uses only the global API
// of @opentelemetry/api (an optional peer), so it sees them. Checked: the counter
// `oncely.ledger.events` (unit `{event}`, meter `oncely`) per kind, scope and tool; an event per
// decision (`oncely.<kind>`, with key and detail) on the span active in the application; a counter
// made before the application registered its meter provider counting nowhere, and the next
// decision counting in the new one; `openTelemetry: false` and an API given by hand.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EVENT_KINDS, Ledger } from 'oncely';
import { SqliteStore } from 'oncely/sqlite';
import { everyKind, SCOPE } from './helpers/events.mjs';
import { tempDir } from './helpers/tmp.mjs';

const { context, metrics, trace } = api;
const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });
const tracer = () => trace.getTracer('agent');
const stores = [];

async function openLedger(options) {
  const store = await SqliteStore.open(join(tempDir('otel'), 'ledger.db'));
  stores.push(store);
  return new Ledger(store, { owner: 'w1', ...options });
}

/** The counter's points now: `{kind, scope, tool} → value`, as one string per point. */
async function counted() {
  await reader.forceFlush();
  const last = metricExporter.getMetrics().at(-1);
  const scope = last?.scopeMetrics.find((s) => s.scope.name === 'oncely');
  if (!scope) return { descriptor: null, points: new Map() };
  assert.equal(scope.metrics.length, 1, 'one instrument');
  const [m] = scope.metrics;
  const points = new Map(m.dataPoints.map((p) => [`${p.attributes['oncely.event']} ${p.attributes['oncely.scope']} ${p.attributes['oncely.tool']}`, p.value]));
  for (const p of m.dataPoints) assert.deepEqual(Object.keys(p.attributes).sort(), ['oncely.event', 'oncely.scope', 'oncely.tool'], 'no key in the counter: its attributes stay few');
  return { descriptor: m.descriptor, points };
}

/** Run `fn` in a span of the application's; returns [what fn returned, the span as exported]. */
async function inSpan(name, fn) {
  const out = await tracer().startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
  const exported = spans.getFinishedSpans().filter((s) => s.name === name);
  assert.equal(exported.length, 1, name);
  return [out, exported[0]];
}

before(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  // The meter provider is registered by the first test, after a decision was counted without one.
});

after(async () => {
  for (const s of stores) await s.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
});

test('every kind: counted by kind, scope and tool; an event on the active span for each decision', async () => {
  const seen = [];
  const ledger = await openLedger({ onEvent: (e) => seen.push(e) });
  // Before the application registers its meter provider: counted nowhere (the API's no-op meter).
  await ledger.effect({ scope: 'early', run: 'r', step: 's', tool: 'warm-up', args: {} }, { class: 'irreversible-external' }, () => 1);
  assert.equal(seen.length, 2);
  seen.length = 0;
  assert.ok(metrics.setGlobalMeterProvider(meterProvider));

  const [want, span] = await inSpan('agent step', () => everyKind(ledger));
  assert.equal(seen.length, want.length);

  // The counter: one point per (kind, scope, tool) with the number of such decisions.
  const { descriptor, points } = await counted();
  assert.deepEqual([descriptor.name, descriptor.unit, descriptor.type], ['oncely.ledger.events', '{event}', 'COUNTER']);
  const expected = new Map();
  for (const e of want) expected.set(`${e.kind} ${e.scope} ${e.tool}`, (expected.get(`${e.kind} ${e.scope} ${e.tool}`) ?? 0) + 1);
  assert.deepEqual(points, expected);
  assert.deepEqual(new Set([...points.keys()].map((k) => k.split(' ')[0])), new Set(EVENT_KINDS), 'every kind counted');
  assert.equal(expected.get(`claimed ${SCOPE} pay`), 1);
  assert.equal(expected.get(`in-doubt ${SCOPE} refund`), 1);

  // The span: one event per decision, in order, with what the hook got; oncely makes no span of its own.
  assert.deepEqual(
    span.events.map((e) => [e.name, e.attributes]),
    seen.map((e) => [`oncely.${e.kind}`, { 'oncely.event': e.kind, 'oncely.scope': e.scope, 'oncely.key': e.key, 'oncely.tool': e.tool, 'oncely.detail': e.detail }]),
  );
  assert.deepEqual(spans.getFinishedSpans().map((s) => s.name), ['agent step']);
});

test('no active span: counted, no span made; a sampled-out span gets nothing', async () => {
  const before = (await counted()).points;
  const ledger = await openLedger();
  await ledger.effect({ scope: 'bare', run: 'r', step: 's', tool: 'pay', args: {} }, { class: 'irreversible-external' }, () => 1);
  const unsampled = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: api.TraceFlags.NONE });
  await context.with(trace.setSpan(context.active(), unsampled), () =>
    ledger.effect({ scope: 'bare', run: 'r', step: 't', tool: 'pay', args: {} }, { class: 'irreversible-external' }, () => 1),
  );
  const { points } = await counted();
  assert.equal(points.get('claimed bare pay'), 2);
  assert.equal(points.get('executed bare pay'), 2);
  assert.equal(points.size, before.size + 2);
  assert.deepEqual(spans.getFinishedSpans().map((s) => s.name), ['agent step'], 'no span of its own');
});

test('openTelemetry: false sends nothing; the API given by hand is used', async () => {
  const off = await openLedger({ openTelemetry: false });
  const [, quiet] = await inSpan('quiet step', () =>
    off.effect({ scope: 'off', run: 'r', step: 's', tool: 'pay', args: {} }, { class: 'irreversible-external' }, () => 1),
  );
  assert.deepEqual(quiet.events, []);
  assert.ok(![...(await counted()).points.keys()].some((k) => k.includes(' off ')));

  const given = await openLedger({ openTelemetry: api });
  const [, loud] = await inSpan('given step', () =>
    given.effect({ scope: 'given', run: 'r', step: 's', tool: 'pay', args: {} }, { class: 'irreversible-external' }, () => 1),
  );
  assert.deepEqual(loud.events.map((e) => e.name), ['oncely.claimed', 'oncely.executed']);
  assert.equal((await counted()).points.get('executed given pay'), 1);
});
