// Lint rules for the whole repository. The ones that matter most are type-aware: a promise
// that is neither awaited nor handled is how an acknowledged event gets lost, so they need
// the TypeScript type checker (typescript-eslint's project service), not syntax alone.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import importX from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.data/**', '**/.turbo/**', '**/coverage/**', '**/.build-*/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program for the whole repository (the root tsconfig.json, which `npm run typecheck`
      // checks too): a project service opens one per package's tsconfig.json, each with the
      // packages it imports, and together they outgrow the default heap.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Durability rests on every await: no promise may float, and none may be passed where a
      // callback's result is ignored (an event handler, a forEach).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      // An async function without an await is how a method of a promise interface keeps a throw
      // a rejection; that is wanted here, not a mistake.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Every package imports only what its own package.json declares (the workspace's packages
      // included, type-only imports too): hoisting in node_modules would otherwise hide it.
      'import-x/no-extraneous-dependencies': ['error', { includeTypes: true, devDependencies: false }],
      // Configuration is parsed once, with every problem listed, by packages/config.
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through @burrow/config (loadConfig), the only reader of process.env.',
        },
      ],
    },
  },
  {
    // The one reader of the environment; tests and benchmarks read their own knobs and pass
    // the environment on to the processes they start.
    files: [
      'packages/config/**',
      'packages/testing/**',
      'scripts/**',
      '**/*.test.ts',
      '**/*.test.tsx',
      '**/test/**',
      'vitest.config.ts',
      'apps/web/vite.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Tests and benchmarks read JSON answers, which are untyped by nature; what they assert is
    // checked by the assertion, not by the types. The promise rules still apply to them.
    files: ['**/*.test.ts', '**/*.test.tsx', '**/test/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // What runs only in development: tests, benchmarks, tool configuration, the build.
    files: [
      '**/*.test.ts',
      '**/*.test.tsx',
      '**/test/**',
      'scripts/**',
      'apps/server/scripts/**',
      'apps/web/scripts/**',
      'apps/web/vite.config.ts',
      '*.config.{js,ts}',
      'apps/server/src/captureThreads/bootstrap.mjs',
      'packages/query/src/hogql/parserBootstrap.mjs',
    ],
    rules: { 'import-x/no-extraneous-dependencies': ['error', { includeTypes: true, devDependencies: true }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  prettier,
)
