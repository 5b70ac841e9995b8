// ESLint (scripts/lint runs it here): the recommended rules over the package's own code, the
// sources, tests, scripts and benchmarks. gen/ and dist/ are generated code (jco's glue for the
// core component, the migrations; src/ bundled by scripts/bundle.mjs): not linted.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['gen/', 'dist/', 'node_modules/', '.tmp/'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      // Node's globals; what the workerd code uses of its own (fetch, Request, WebAssembly) is
      // among them.
      globals: globals.node,
    },
    rules: {
      // `_name` marks a binding kept for its position, or a property left out of a rest.
      'no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // test/hostile.test.mjs builds boxed primitives on purpose, and says so where it does.
      'no-new-wrappers': 'error',
    },
  },
];
