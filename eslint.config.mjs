// The project's lint rules (docs/engineering.md, "Rules"). Type-aware: every workspace's tsconfig.json is found
// by the project service, so rules that need types (floating promises) see the same program tsc does.
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import tseslint from 'typescript-eslint';

/** Modules that reach outside the process: the policy engine and contracts are pure and import none of them. */
const IO_MODULES = [
  'fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'dgram', 'dns', 'child_process', 'cluster', 'worker_threads',
  'tls', 'pg', 'nats', 'express',
].flatMap((name) => [name, `node:${name}`]);

/** No deep imports into a workspace package, and no reaching into another workspace by a relative path. */
const PACKAGE_BOUNDARY = [
  { group: ['@custos/*/*'], message: 'import a workspace package by its name only; it has one entry point' },
  { group: ['**/packages/*/src/**', '**/apps/*/src/**'], message: 'import another workspace by its package name' },
];

const restrictImports = (patterns, paths = []) => ['error', { patterns, paths }];

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.turbo/**', 'dist-packages/**', 'tests/security/corpus/**'],
  },
  js.configs.recommended,
  comments.recommended,
  {
    rules: {
      // A disabled rule says why, so the next reader can judge whether the reason still holds.
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: [] }],
      '@eslint-community/eslint-comments/no-unused-disable': 'error',
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': restrictImports(PACKAGE_BOUNDARY),
    },
  },
  {
    // The console's browser code is its own TypeScript program (DOM, JSX, bundler resolution).
    files: ['packages/console/src/web/**/*.ts', 'packages/console/src/web/**/*.tsx'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: false, project: ['packages/console/tsconfig.web.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // In tests a `!` that is wrong fails the test at that line with a TypeError, which is what a test wants;
    // in src it would hide a state the types say can happen.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Apps never import each other.
    files: ['apps/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports([
        ...PACKAGE_BOUNDARY,
        { group: ['@custos/*-service'], message: 'apps never import each other; share through a package' },
      ]),
    },
  },
  {
    // The language and the wire contract are pure: no workspace package (contracts) and no I/O.
    files: ['packages/contracts/src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports(
        [...PACKAGE_BOUNDARY, { group: ['@custos/*'], message: 'contracts imports no workspace package' }],
        IO_MODULES.map((name) => ({ name, message: 'contracts does no I/O' })),
      ),
    },
  },
  {
    files: ['packages/policy-engine/src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictImports(
        [...PACKAGE_BOUNDARY, { group: ['@custos/*'], message: 'the policy engine imports no workspace package' }],
        IO_MODULES.map((name) => ({ name, message: 'the policy engine does no I/O' })),
      ),
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly',
        require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly',
      },
    },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
