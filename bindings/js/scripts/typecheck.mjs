#!/usr/bin/env node
// The type check of the JS sources (scripts/lint runs it): `tsc -p tsconfig.json` (checkJs over
// src/, from their JSDoc), except that files under gen/ — generated code, jco's glue for the core
// component, which src/core.js imports — are loaded for their types but not checked. Prints the
// diagnostics as tsc does; exits 1 if there is any.
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(pkg, 'package.json'))('typescript');
const configPath = join(pkg, 'tsconfig.json');
const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => pkg,
  getNewLine: () => '\n',
};

const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    process.stderr.write(ts.formatDiagnostic(d, host));
    process.exit(2);
  },
});
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
  projectReferences: config.projectReferences,
});
const generated = (f) => relative(pkg, f.fileName).split(sep)[0] === 'gen';
const diagnostics = [
  ...config.errors,
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
];
let checked = 0;
for (const f of program.getSourceFiles()) {
  if (generated(f) || program.isSourceFileDefaultLibrary(f)) continue;
  if (program.isSourceFileFromExternalLibrary(f) || f.fileName.includes('/node_modules/')) continue;
  checked++;
  diagnostics.push(...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f));
}
if (diagnostics.length > 0) {
  const format = process.stderr.isTTY
    ? ts.formatDiagnosticsWithColorAndContext
    : ts.formatDiagnostics;
  process.stderr.write(format(diagnostics, host));
  process.stderr.write(`\ntypecheck: ${diagnostics.length} error(s) (TypeScript ${ts.version})\n`);
  process.exit(1);
}
console.log(
  `   ${checked} files, no errors (TypeScript ${ts.version}; gen/: generated, not checked)`,
);
