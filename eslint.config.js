// Lint: typescript-eslint's recommended type-aware rules over every workspace (`npm run lint`).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'proto/generated/**', 'docs/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a value left out on purpose (an omitted field, an unused handler argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // React ignores what an event handler returns: an async onClick/onSubmit is fine there (its
      // errors are handled inside). Promises passed anywhere else must still be handled.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  { files: ['web/**/*.{ts,tsx}'], plugins: { 'react-hooks': reactHooks }, rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' } },
  {
    // Tests read JSON answers (`await res.json()` is `any`) and assert on their fields: the assertion is
    // the type check there, so the no-unsafe-* family would only add casts that prove nothing.
    files: ['**/*.test.{ts,tsx}', 'tests/**/*.ts', '**/testing/**/*.ts', '**/*.testkit.ts', 'bench/**/*.ts', 'web/src/test-utils.tsx'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Test fakes implement async interfaces with async methods that have nothing to await.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
