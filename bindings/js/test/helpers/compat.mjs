// What the adapter tests found, for the README's compatibility table (scripts/compat). A story
// test calls record() with what the provider paid; when ONCELY_COMPAT_DIR is set (scripts/test
// sets it), the count is merged into that folder's record of the framework, with the version of
// its package installed here. scripts/compat writes the table from these records.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const STORIES = ['re-ask', 'kill-resume'];

const require = createRequire(import.meta.url);

/** `v` with its objects' members in sorted order (as the Python side writes them). */
function sorted(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
}

/** The installed version of `pkg` (its package.json, found from its entry point). */
function versionOf(pkg) {
  let dir = path.dirname(require.resolve(pkg));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      if (doc.name === pkg) return doc.version;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`compat: no package.json of ${pkg}`);
    dir = up;
  }
}

/**
 * Record that in `story` the provider paid `paid` time(s), bare (the framework's own tool) or
 * through oncely. `run`: what the adapter takes as the run; `how`: how the story resumed;
 * `engine`: a durable engine's step, which no model asks for (the re-ask story does not apply).
 * @param {{framework: string, package: string, run: string, story: string, paid: number, bare: boolean, how?: string, engine?: boolean}} r
 */
export function record({ framework, package: pkg, run, story, paid, bare, how, engine = false }) {
  if (!STORIES.includes(story)) throw new Error(`compat: unknown story ${story}`);
  const folder = process.env.ONCELY_COMPAT_DIR;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `js-${pkg.replace(/[@/]/g, (c) => (c === '@' ? '' : '-'))}.json`);
  const doc = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  Object.assign(doc, { framework, language: 'JavaScript', package: pkg, version: versionOf(pkg), run });
  if (engine) doc.engine = true;
  doc.stories ??= {};
  const entry = (doc.stories[story] ??= {});
  entry[bare ? 'bare' : 'oncely'] = paid;
  if (how !== undefined) entry.how = how;
  writeFileSync(file, `${JSON.stringify(sorted(doc), null, 1)}\n`);
}
