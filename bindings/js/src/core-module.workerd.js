// The compiled core module for workerd / Cloudflare Workers: code generation from bytes is not
// allowed there, so the module is imported statically (wrangler and the bundled example turn a
// `.wasm` import into a compiled WebAssembly.Module).
import module from '../gen/core/oncely-core.core.wasm';

/** @returns {WebAssembly.Module} */
export default function coreModule() {
  return module;
}
