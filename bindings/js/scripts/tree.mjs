// The file comparison behind `--check` in scripts/build.mjs and scripts/bundle.mjs: a generated
// tree must be byte for byte what its sources give.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The files under `dir`, as paths relative to it, sorted; none when `dir` does not exist. */
export function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => relative(dir, f))
    .sort();
}

/** The files that differ between the trees `want` and `have`: missing, extra or changed. */
export function staleFiles(want, have) {
  const w = listFiles(want);
  const h = listFiles(have);
  return [...new Set([...w, ...h])]
    .filter((f) => !w.includes(f) || !h.includes(f) || !readFileSync(join(want, f)).equals(readFileSync(join(have, f))))
    .sort();
}
