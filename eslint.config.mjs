// Lint: typescript-eslint's recommended rules over the TypeScript and the portal's browser code,
// plus the few rules the code already follows by convention (its eslint-disable comments name
// them). `npm run lint`; CI runs it before the tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', 'reports/', 'coverage/', '.signet/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always'],
      // The scheme's validators look for control characters on purpose.
      'no-control-regex': 'off',
      // `let x = default; try { x = parse() } catch {}` and wiping a secret in `finally` are deliberate.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Tests and benchmarks read untyped JSON (API Gateway events, reports) and load handlers after
    // setting their environment.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.cjs', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['portal/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly', document: 'readonly', crypto: 'readonly', fetch: 'readonly', console: 'readonly',
        localStorage: 'readonly', indexedDB: 'readonly', navigator: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', atob: 'readonly', btoa: 'readonly', setTimeout: 'readonly',
        clearTimeout: 'readonly', URL: 'readonly', Headers: 'readonly', Response: 'readonly',
        FileReader: 'readonly', HTMLElement: 'readonly', CryptoKey: 'readonly', Event: 'readonly',
        CustomEvent: 'readonly', location: 'readonly',
      },
    },
  },
  {
    files: ['examples/**/*.mjs', 'bin/**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', fetch: 'readonly', URL: 'readonly' } },
  },
);
