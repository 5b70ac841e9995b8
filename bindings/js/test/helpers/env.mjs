// Where the tests find what they check against: the repository (golden vectors, the Rust CLI,
// the examples) and the shared RFC 8785 vectors. Tests run from bindings/js, or from a clean
// directory where the packed tarball was installed (then ONCELY_REPO points at the repository).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const REPO = process.env.ONCELY_REPO ? resolve(process.env.ONCELY_REPO) : resolve(here, '../../../..');

/** The Rust CLI built by `cargo build --release -p oncely`. */
export const ONCELY_CLI = process.env.ONCELY_CLI ?? join(REPO, 'target/release/oncely');

/** A golden vector file of tests/vectors/. */
export function vectors(name) {
  return JSON.parse(readFileSync(join(REPO, 'tests/vectors', name), 'utf8'));
}

/**
 * The shared vectors folder (holding jcs/): $ONCELY_SHARED_VECTORS, else <repo>/../shared/vectors,
 * else /work/shared/vectors. Missing is a failure, never a skip.
 */
export function sharedVectors() {
  const candidates = [process.env.ONCELY_SHARED_VECTORS, join(REPO, '../shared/vectors'), '/work/shared/vectors'].filter(Boolean);
  const found = candidates.find((p) => existsSync(join(p, 'jcs')));
  if (!found) throw new Error(`the shared RFC 8785 vectors were not found (looked in ${candidates.join(', ')}): set ONCELY_SHARED_VECTORS to the folder holding jcs/`);
  return found;
}

export function requireCli() {
  if (!existsSync(ONCELY_CLI)) throw new Error(`${ONCELY_CLI} is missing: run \`cargo build --release -p oncely\` at the repository root`);
  return ONCELY_CLI;
}

/** The directory of the package under test (bindings/js, or the installed tarball). */
export const PACKAGE_DIR = process.env.ONCELY_JS_PACKAGE ?? resolve(here, '../..');
