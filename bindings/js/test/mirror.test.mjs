// The JS mirrors of the core's types, against the component's own: src/gen/wit.js and
// types/wit.d.ts (written by scripts/mirrors) for every record, enum and variant, checked against
// the TypeScript jco writes for the component (names, order, optionality; the types themselves
// compared by the TypeScript compiler). Every JS mirror of the core's `entry` record must agree with the component's own type, read from
// the component binary (bindings/oncely-core.wasm, transpiled in memory by the pinned jco; its
// TypeScript for `oncely:core/ledger` is the component's WIT type info): wire.js's field table,
// types/index.d.ts's Entry (parsed with the TypeScript compiler), sql.js's column list and row
// converters, and the columns of the migrated SQLite (and PostgreSQL) tables. Names, order and
// optionality: a field added to the core and forgotten in any mirror fails here.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SqliteStore } from 'oncely/sqlite';
import { PACKAGE_DIR, REPO } from './helpers/env.mjs';
import { freshDatabase, postgresUnavailable } from './helpers/pg.mjs';
import { tempDir } from './helpers/tmp.mjs';

const internal = (path) => import(pathToFileURL(join(PACKAGE_DIR, path)).href);
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** [name, optional] of the component's `entry`, in WIT order. */
let core;
/** jco's TypeScript for the component: file name → text (`interfaces/oncely-core-ledger.d.ts`). */
let jcoTypes;

before(async () => {
  // The pinned jco is a devDependency of the checkout (the installed tarball has none).
  const jco = join(REPO, 'bindings/js/node_modules/@bytecodealliance/jco/src/api.js');
  assert.ok(existsSync(jco), `${jco} is missing: npm ci in bindings/js`);
  const { transpile } = await import(pathToFileURL(jco).href);
  const { files } = await transpile(readFileSync(join(REPO, 'bindings/oncely-core.wasm')), { name: 'mirror' });
  jcoTypes = Object.fromEntries(
    Object.entries(files).filter(([name]) => name.startsWith('interfaces/') && name.endsWith('.d.ts')).map(([name, data]) => [name, new TextDecoder().decode(data)]),
  );
  const dts = jcoTypes['interfaces/oncely-core-ledger.d.ts'];
  const body = dts.match(/interface Entry \{([^}]*)\}/)?.[1];
  assert.ok(body, 'the component exports ledger.entry');
  core = [...body.matchAll(/^\s*(\w+)(\??):/gm)].map((m) => [m[1], m[2] === '?']);
  assert.ok(core.length >= 20 && core.some(([n]) => n === 'dueAt'), `unexpected entry fields ${JSON.stringify(core)}`);
});

/** The columns an entry is stored in: snake_case, `reconcile` as kind and lookup tool. */
function columnsOf(fields) {
  return fields.flatMap(([n, opt]) => (n === 'reconcile' ? [['reconcile_kind', false], ['reconcile_tool', true]] : [[snake(n), opt]]));
}

test('wire.js: the field table is the component\'s entry', async () => {
  const { ENTRY_FIELD_NAMES, entryIn, entryOut } = await internal('src/wire.js');
  assert.deepEqual(ENTRY_FIELD_NAMES, core.map(([n]) => n));
  // Optional fields are null in JS and absent in WIT, the others always present.
  const wit = Object.fromEntries(core.map(([n, opt]) => [n, opt ? undefined : n === 'reconcile' ? { tag: 'none' } : n === 'state' ? 'done' : 1n]));
  const js = entryOut(wit);
  for (const [n, opt] of core) assert.equal(js[n] === null, opt, `${n}: null exactly when optional`);
  assert.deepEqual(Object.keys(entryIn(js)), core.map(([n]) => n));
});

const pascal = (name) => name.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());

function typescript() {
  const require = createRequire(join(PACKAGE_DIR, 'package.json'));
  try {
    return require('typescript');
  } catch {
    return createRequire(join(process.cwd(), 'package.json'))('typescript');
  }
}

test('src/gen/wit.js: every record, enum and variant is the component\'s (names and order, as jco declares them)', async () => {
  const { WIT } = await internal('src/gen/wit.js');
  const declared = new Set();
  for (const [file, dts] of Object.entries(jcoTypes)) {
    const iface = file.replace(/^interfaces\/oncely-core-(.*)\.d\.ts$/, '$1');
    for (const m of dts.matchAll(/^export interface (\w+) \{\n((?: {2}.*\n)*)\}/gm)) {
      const path = Object.keys(WIT).find((k) => k.startsWith(`${iface}.`) && pascal(k.slice(iface.length + 1)) === m[1]);
      if (!path) continue; // a variant case's interface (`OutcomeExecute`)
      declared.add(path);
      const fields = [...m[2].matchAll(/^ {2}'?(\w+)'?(\??):/gm)].map((f) => [f[1], f[2] === '?']);
      const wit = WIT[path];
      assert.equal(wit.kind, 'record', path);
      assert.deepEqual(wit.fields.map(([n, t]) => [n, t.startsWith('option<')]), fields, path);
    }
    for (const m of dts.matchAll(/^export type (\w+) = ((?:'[^']*'(?: \| )?)+);$/gm)) {
      const path = `${iface}.${m[1].replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase())}`;
      assert.equal(WIT[path]?.kind, 'enum', `${path} is an enum of the component`);
      declared.add(path);
      assert.deepEqual(WIT[path].cases, [...m[2].matchAll(/'([^']*)'/g)].map((c) => c[1]), path);
    }
  }
  const records = Object.keys(WIT).filter((k) => WIT[k].kind !== 'variant');
  assert.deepEqual(records.filter((k) => !declared.has(k)), [], 'every record and enum of gen/wit.js is one jco declares');
  assert.ok(records.length >= 50, `${records.length} records and enums`);
});

test('types/wit.d.ts: every record, enum and variant has jco\'s type (fields, optionality, cases, payloads)', async () => {
  const ts = typescript();
  const { WIT } = await internal('src/gen/wit.js');
  const dir = tempDir('mirror-types');
  const ifaces = [...new Set(Object.keys(WIT).map((k) => k.split('.')[0]))];
  let check = `import type * as Wit from ${JSON.stringify(join(PACKAGE_DIR, 'types/wit.js'))};\n`;
  for (const i of ifaces) check += `import type * as Jco${pascal(i)} from './interfaces/oncely-core-${i}.js';\n`;
  check += 'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\n';
  Object.keys(WIT).forEach((k, n) => {
    const [i, name] = k.split('.');
    check += `export const t${n}: Same<Wit.${pascal(i)}.${pascal(name)}, Jco${pascal(i)}.${pascal(name)}> = true; // ${k}\n`;
  });
  for (const [file, text] of Object.entries(jcoTypes)) {
    mkdirSync(join(dir, 'interfaces'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  writeFileSync(join(dir, 'check.ts'), check);
  const program = ts.createProgram([join(dir, 'check.ts')], { noEmit: true, strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: false, types: [] });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file ? d.file.text.slice(d.file.getLineStarts()[d.file.getLineAndCharacterOfPosition(d.start).line]).split('\n')[0] : '';
    return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')} :: ${line}`;
  });
  assert.deepEqual(errors, []);
});

test('types/index.d.ts: Entry is the component\'s entry (names, order, optional as | null)', async () => {
  const require = createRequire(join(PACKAGE_DIR, 'package.json'));
  let ts;
  try {
    ts = require('typescript');
  } catch {
    ts = createRequire(join(process.cwd(), 'package.json'))('typescript');
  }
  const parse = (name) => {
    const file = join(PACKAGE_DIR, 'types', name);
    return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  };
  // index.d.ts declares Entry, or names the converted shape scripts/mirrors generates
  // (`Wit.Js.Ledger.Entry`, in types/wit.d.ts): either way, the interface is checked.
  const index = parse('index.d.ts');
  let entry = index.statements.find((n) => ts.isInterfaceDeclaration(n) && n.name.text === 'Entry');
  const alias = index.statements.find((n) => ts.isTypeAliasDeclaration(n) && n.name.text === 'Entry');
  if (!entry && alias) {
    assert.equal(alias.type.getText(index), 'Wit.Js.Ledger.Entry', 'Entry names the generated shape');
    let nodes = parse('wit.d.ts').statements;
    for (const ns of ['Js', 'Ledger']) {
      const m = nodes.find((n) => ts.isModuleDeclaration(n) && n.name.text === ns);
      assert.ok(m, `types/wit.d.ts declares ${ns}`);
      nodes = m.body.statements;
    }
    entry = nodes.find((n) => ts.isInterfaceDeclaration(n) && n.name.text === 'Entry');
  }
  assert.ok(entry, 'types/index.d.ts declares Entry');
  const declared = entry.members.map((m) => {
    const nullable = ts.isUnionTypeNode(m.type) && m.type.types.some((t) => t.kind === ts.SyntaxKind.LiteralType && t.literal.kind === ts.SyntaxKind.NullKeyword);
    return [m.name.text, nullable];
  });
  assert.deepEqual(declared, core);
});

test('sql.js: the column list and the row converters carry every field', async () => {
  const { COLUMNS, entryFromRow, rowValues } = await internal('src/stores/sql.js');
  assert.deepEqual(COLUMNS, columnsOf(core).map(([c]) => c));
  // A row written from an entry reads back as that entry, field for field.
  let i = 0;
  const entry = Object.fromEntries(
    core.map(([n]) => [n, n === 'state' ? 'in-doubt' : n === 'reconcile' ? { lookup: 'find' } : /At$|Since$|Until$|Ms$|version|attempt|Attempts$/.test(n) ? ++i : `${n}-text`]),
  );
  const row = Object.fromEntries(rowValues(entry).map((v, j) => [COLUMNS[j], v]));
  assert.deepEqual(entryFromRow(row), entry);
});

test('SQLite: the migrated table has exactly the columns (and NULLs) of the entry', async () => {
  const path = join(tempDir('mirror'), 'mirror.db');
  await (await SqliteStore.open(path)).close();
  const db = new Database(path, { readonly: true });
  try {
    const cols = db.prepare('PRAGMA table_info(oncely_effects)').all().map((c) => [c.name, c.notnull === 0]);
    // The table's own column order is that of its migrations (added columns come last); every
    // statement names its columns, so only the set matters.
    // Beside the entry's columns, each row keeps its history (a JSON array each marked write appends to).
    assert.deepEqual(cols.sort(), [...columnsOf(core), ['history', true]].sort());
    // The history view over those arrays: the key, then the columns sql.js reads, in that order.
    const { HISTORY_COLUMNS } = await internal('src/stores/sql.js');
    const history = db.prepare('PRAGMA table_info(oncely_history)').all().map((c) => c.name);
    assert.deepEqual(history, ['scope', 'key', ...HISTORY_COLUMNS]);
  } finally {
    db.close();
  }
});

test('PostgreSQL: the migrated table has exactly the columns (and NULLs) of the entry', async (t) => {
  const skip = await postgresUnavailable();
  if (skip) return t.skip(skip);
  const fresh = await freshDatabase('mirror');
  try {
    await (await fresh.connect({ max: 1 })).close();
    const c = new pg.Client({ connectionString: fresh.url });
    await c.connect();
    try {
      const { rows } = await c.query(
        "SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'oncely' AND table_name = 'effects' ORDER BY ordinal_position",
      );
      assert.deepEqual(rows.map((r) => [r.column_name, r.is_nullable === 'YES']).sort(), [...columnsOf(core), ['history', true]].sort());
    } finally {
      await c.end();
    }
  } finally {
    await fresh.drop();
  }
});
