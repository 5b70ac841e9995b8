// For the type check of src/ only (tsconfig.json): src/core-module.workerd.js imports the core
// module as `.wasm`, which wrangler and the bundled example turn into a compiled module.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
