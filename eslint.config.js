// ESLint: the recommended rules of ESLint and typescript-eslint, type-aware for the sources.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// The layers of src/, top first: a folder imports only the folders below it (and itself), so that the
// stages stay thin, decisions sit above the git they use, and nothing low reaches back up.
const LAYERS = ['stages', 'enter', 'runner', 'exit', 'rescue', 'shared', 'sandbox', 'gate', 'remote', 'git', 'record', 'os']

const layerRules = LAYERS.map((layer, i) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['../index.js', ...LAYERS.slice(0, i).map(above => `../${above}/*`)],
            message: `src/${layer}/ may import only the layers below it: ${LAYERS.slice(i + 1).join(', ')}.`
          }
        ]
      }
    ]
  }
}))

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
  },
  ...layerRules,
  {
    files: ['src/**/*.ts'],
    ignores: ['src/git/worktree-refs.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Literal[value='update-ref']",
          message: 'Write refs with writeRef or deleteRef (src/git/worktree-refs.ts): they remove links on the way to a reflog first.'
        }
      ]
    }
  }
)
