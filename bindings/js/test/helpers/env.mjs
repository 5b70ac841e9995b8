// Where the tests find what they check against: the repository (golden vectors, the Rust CLI and
// the Rust test worker, the examples, the RFC 8785 reference data). Tests run from bindings/js, or from a clean
// directory where the packed tarball was installed (then ONCELY_REPO points at the repository).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const REPO = process.env.ONCELY_REPO ? resolve(process.env.ONCELY_REPO) : resolve(here, '../../../..');

/** The Rust CLI built by `cargo build --release -p oncely-cli`. */
export const ONCELY_CLI = process.env.ONCELY_CLI ?? join(REPO, 'target/release/oncely');

/**
 * The Rust host's test worker (tests/support/src/bin/oncely-test-worker.rs), a test-only binary
 * built by `cargo build --release -p oncely-test-support --bin oncely-test-worker`; never shipped.
 */
export const ONCELY_TEST_WORKER = process.env.ONCELY_TEST_WORKER ?? join(REPO, 'target/release/oncely-test-worker');

/** A golden vector file of tests/vectors/. */
export function vectors(name) {
  return JSON.parse(readFileSync(join(REPO, 'tests/vectors', name), 'utf8'));
}

/** The RFC 8785 reference data, kept in the repository: tests/vectors/jcs. Missing is a failure. */
export function jcsVectors() {
  const dir = join(REPO, 'tests/vectors/jcs');
  if (!existsSync(join(dir, 'input'))) throw new Error(`${dir} is missing: the RFC 8785 reference data is part of the repository`);
  return dir;
}

export function requireCli() {
  if (!existsSync(ONCELY_CLI)) throw new Error(`${ONCELY_CLI} is missing: run \`cargo build --release -p oncely-cli\` at the repository root`);
  return ONCELY_CLI;
}

export function requireTestWorker() {
  if (!existsSync(ONCELY_TEST_WORKER)) {
    throw new Error(`${ONCELY_TEST_WORKER} is missing: run \`cargo build --release -p oncely-test-support --bin oncely-test-worker\` at the repository root`);
  }
  return ONCELY_TEST_WORKER;
}

/** The directory of the package under test (bindings/js, or the installed tarball). */
export const PACKAGE_DIR = process.env.ONCELY_JS_PACKAGE ?? resolve(here, '../..');
