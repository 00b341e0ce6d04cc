// ESLint with typescript-eslint: the usual correctness rules, type-aware in src/ (a floating promise or a
// misused one is a lost event in a coordinator that is all async I/O). Run `npm run lint`; `.ci/run` and
// test/e2e/project/house-rules.test.ts run it too, so a regression fails CI.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'fixtures/**', 'bench/**', 'scripts/**', 'bin/**', 'templates/**']},
  js.configs.recommended,
  // TypeScript itself reports undefined names (and knows Node's globals and types).
  {files: ['**/*.ts'], rules: {'no-undef': 'off'}},
  {files: ['**/*.mjs'], languageOptions: {globals: {process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', URL: 'readonly'}}},
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({...config, files: ['src/**/*.ts']})),
  {
    files: ['src/**/*.ts'],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', {checksVoidReturn: {arguments: false}}],
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      // Methods of this code's interfaces are functions handed around (`reattach: jobs.reattach`), none uses `this`.
      '@typescript-eslint/unbound-method': 'off',
      'no-empty': ['error', {allowEmptyCatch: true}],
      'prefer-const': ['error', {destructuring: 'all'}],
      'no-control-regex': 'off'
    }
  },
  ...tseslint.configs.recommended.map((config) => ({...config, files: ['test/**/*.ts']})),
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none'}],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Fakes of other programs' JSON (a Kubernetes API, a soak's report) are loosely typed on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', {allowEmptyCatch: true}],
      'no-control-regex': 'off'
    }
  }
)
