// Covers: examples/, the README, docs/, the sub-actions' READMEs, action.yml, exit/action.yml.
// Workflow authors copy examples: every example, every YAML snippet of the README, action.yml and
// exit/action.yml must pass GitHub's own parser.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parseAction } from '@actions/workflow-parser/actions/action-parser'
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/runner.mjs'

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8')

async function workflowErrors(name: string, content: string): Promise<string[]> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter())
  const errors = parsed.context.errors.getErrors().map(e => e.message)
  if (parsed.value) {
    const template = await convertWorkflowTemplate(parsed.context, parsed.value)
    errors.push(...(template.errors ?? []).map(e => e.Message))
  }
  return errors
}

/** A README snippet of steps, or of a job's keys, made into a whole workflow to parse. */
function asWorkflow(snippet: string): string {
  const lines = snippet.split('\n')
  const indent = Math.min(...lines.filter(l => l.trim()).map(l => l.length - l.trimStart().length))
  const body = lines.map(l => l.slice(indent)).join('\n')
  if (/^on:/m.test(body)) return body
  if (/^jobs:/m.test(body)) return `on: push\n${body}`
  const steps = body.startsWith('steps:') ? body : `steps:\n${body.replace(/^/gm, '  ')}`
  return `on: push\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n${steps.replace(/^/gm, '    ')}\n`
}

const examples = fs.readdirSync(path.join(ROOT, 'examples')).filter(f => f.endsWith('.yml'))
/** The sub-actions: folders of the checkout with an action.yml of their own. */
const subActions = fs.readdirSync(ROOT).filter(d => !d.startsWith('.') && d !== 'node_modules' && fs.existsSync(path.join(ROOT, d, 'action.yml')))
/** Every page a workflow author reads: the README, docs/, and each sub-action's README. */
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter(f => f.endsWith('.md'))
    .map(f => `docs/${f}`),
  ...subActions.filter(d => fs.existsSync(path.join(ROOT, d, 'README.md'))).map(d => `${d}/README.md`)
]
const snippets = pages.flatMap(page => [...read(page).matchAll(/```yaml\n([\s\S]*?)```/g)].map((m, i) => ({ page, n: i + 1, text: m[1] })))

describe("GitHub's parser", () => {
  it.each(['action.yml', 'exit/action.yml'])('accepts %s', file => {
    const parsed = parseAction({ name: file, content: read(file) }, new NoOperationTraceWriter())
    expect(parsed.context.errors.getErrors().map(e => e.message)).toEqual([])
    expect(parsed.value).toBeDefined()
  })

  it.each(examples)('accepts examples/%s', async file => {
    expect(await workflowErrors(file, read(`examples/${file}`))).toEqual([])
  })

  it.each(snippets.map(s => [s.page, s.n, s.text]))('accepts %s snippet %i', async (page, _n, snippet) => {
    expect(await workflowErrors(page as string, asWorkflow(snippet as string))).toEqual([])
  })

  it.each(fs.readdirSync(path.join(ROOT, '.github', 'workflows')))('accepts the workflow %s', async file => {
    expect(await workflowErrors(file, read(`.github/workflows/${file}`))).toEqual([])
  })

  it('runs CI on Linux, Windows and macOS', () => {
    const ci = parse(read('.github/workflows/ci.yml')) as { jobs: Record<string, { strategy?: { matrix?: { os?: string[] } } }> }
    for (const job of ['test', 'dogfood', 'dogfood-exit'])
      expect(ci.jobs[job].strategy?.matrix?.os).toEqual(['ubuntu-latest', 'windows-latest', 'macos-latest'])
  })

  it('finds the errors it is meant to find', async () => {
    expect(
      await workflowErrors('broken.yml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: x/y@v1\n        with: [1]\n')
    ).not.toEqual([])
    const action = parseAction({ name: 'action.yml', content: 'name: x\nruns:\n  using: node24\n  mian: x.js\n' }, new NoOperationTraceWriter())
    expect(action.context.errors.getErrors()).not.toEqual([])
  })
})

describe('the README, docs/ and the examples', () => {
  it('parses every YAML snippet of every page: none is dropped, whatever the line endings', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/rescue.md', 'exit/README.md']))
    for (const page of pages) {
      const fences = read(page)
        .split('\n')
        .filter(line => line.trimEnd() === '```yaml').length
      expect(
        snippets.filter(s => s.page === page),
        page
      ).toHaveLength(fences)
    }
    expect(snippets.filter(s => s.page === 'README.md').length).toBeGreaterThan(0)
  })

  it('has a README beside each sub-action', () => {
    expect(subActions).toContain('exit')
    for (const d of subActions) expect(fs.existsSync(path.join(ROOT, d, 'README.md')), d).toBe(true)
  })

  it('uses the current actions/checkout everywhere', () => {
    const files = [
      ...pages,
      ...examples.map(f => `examples/${f}`),
      ...fs.readdirSync(path.join(ROOT, '.github', 'workflows')).map(f => `.github/workflows/${f}`)
    ]
    for (const file of files) for (const [pin] of read(file).matchAll(/actions\/checkout@v\d+/g)) expect(pin, file).toBe('actions/checkout@v7')
  })

  it('shows one example inline exactly as it is, and links every other', () => {
    const readme = read('README.md')
    expect(readme).toContain(read('examples/cli-agent-matrix.yml').trim())
    for (const file of examples.filter(f => f !== 'cli-agent-matrix.yml')) expect(readme).toContain(`](examples/${file})`)
  })

  /** The rows of every table in a page whose first column is a code span: name → cells. */
  function tableRows(page: string): Map<string, string[][]> {
    const rows = new Map<string, string[][]>()
    for (const line of read(page).split('\n')) {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map(c => c.trim())
      for (const name of [...(cells[0] ?? '').matchAll(/`([a-z-]+)`/g)].map(m => m[1])) rows.set(name, [...(rows.get(name) ?? []), cells])
    }
    return rows
  }

  // Each action's own README: the root's, and one beside each sub-action's action.yml.
  it.each([['action.yml', 'README.md'], ...subActions.map(d => [`${d}/action.yml`, `${d}/README.md`])])(
    'has every input and output of %s in the tables of %s, with the same default',
    (file, page) => {
      const action = parse(read(file)) as { inputs: Record<string, { default?: string }>; outputs: Record<string, unknown> }
      const rows = tableRows(page)
      for (const [input, spec] of Object.entries(action.inputs)) {
        const found = rows.get(input)?.filter(cells => cells.length === 3)
        expect(found?.length, `input ${input} of ${file}`).toBeGreaterThan(0)
        if (spec.default !== undefined)
          expect(
            found!.some(cells => cells[1] === `\`${spec.default}\``),
            `default of ${input} in ${file}`
          ).toBe(true)
      }
      for (const output of Object.keys(action.outputs)) expect(rows.has(output), `output ${output} of ${file}`).toBe(true)
    }
  )
})
