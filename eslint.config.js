// ESLint: the recommended rules of ESLint and typescript-eslint, type-aware for the sources.
import js from '@eslint/js'
import * as path from 'node:path'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// The layers of src/, top first: a folder imports only the folders below it (and itself), so that the
// stages stay thin, decisions sit above the git they use, and nothing low reaches back up.
const LAYERS = ['stages', 'enter', 'runner', 'exit', 'rescue', 'shared', 'sandbox', 'gate', 'remote', 'git', 'record', 'os']

const SRC = path.join(import.meta.dirname, 'src')

/** The layer a file of src/ is in (its first folder), or undefined for a file at src/'s top (an entry). */
function layerOf(file) {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep)
  return rest.length && LAYERS.includes(first) ? first : undefined
}

// Each import is resolved to the file it names, whatever its spelling (`./../`, a subfolder, a dynamic import()),
// and refused when that file lies in a layer above, or outside the layers (an entry such as src/index.ts).
const layers = {
  rules: {
    'only-below': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const from = layerOf(context.filename)
        if (!from) return {}
        const check = (node, source) => {
          if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return
          const target = path.resolve(path.dirname(context.filename), source.value)
          if (!target.startsWith(SRC + path.sep)) return
          const to = layerOf(target)
          if (to && LAYERS.indexOf(to) >= LAYERS.indexOf(from)) return
          const below = LAYERS.slice(LAYERS.indexOf(from) + 1).join(', ')
          context.report({ node, message: `src/${from}/ may import only itself and the layers below it (${below}): not ${source.value}.` })
        }
        return {
          ImportDeclaration: node => check(node, node.source),
          ExportNamedDeclaration: node => check(node, node.source),
          ExportAllDeclaration: node => check(node, node.source),
          ImportExpression: node => check(node, node.source)
        }
      }
    }
  }
}

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
    // At most 20 branch points (if, ?:, &&, ||, ??, case, catch, loops) in a function: a decision that needs
    // more is several decisions, each of which deserves a name.
    rules: { complexity: ['error', 21] }
  },
  { files: ['src/**/*.ts'], plugins: { layers }, rules: { 'layers/only-below': 'error' } },
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
