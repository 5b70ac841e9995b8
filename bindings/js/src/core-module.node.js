// The compiled core module for Node (and any runtime with `node:fs`, e.g. Deno or Bun): read
// from the package and compiled once, synchronously, at import.
import { readFileSync } from 'node:fs';

const module = new WebAssembly.Module(readFileSync(new URL('../gen/core/oncely-core.core.wasm', import.meta.url)));

/** @returns {WebAssembly.Module} */
export default function coreModule() {
  return module;
}
