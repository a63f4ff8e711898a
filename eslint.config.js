// ESLint: the recommended rules of ESLint and typescript-eslint, type-aware for the sources.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    files: ['src/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    // At most 25 branch points (if, ?:, &&, ||, ??, case, catch, loops) in a function: a decision that needs
    // more is several decisions, each of which deserves a name.
    rules: { complexity: ['error', 26] }
  }
)
