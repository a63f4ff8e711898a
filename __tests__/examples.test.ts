// Workflow authors copy examples: every example, every YAML snippet of the README, action.yml and
// exit/action.yml must pass GitHub's own parser.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parseAction } from '@actions/workflow-parser/actions/action-parser'
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../scripts/runner.mjs'

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
const snippets = [...read('README.md').matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => m[1])

describe("GitHub's parser", () => {
  it.each(['action.yml', 'exit/action.yml'])('accepts %s', file => {
    const parsed = parseAction({ name: file, content: read(file) }, new NoOperationTraceWriter())
    expect(parsed.context.errors.getErrors().map(e => e.message)).toEqual([])
    expect(parsed.value).toBeDefined()
  })

  it.each(examples)('accepts examples/%s', async file => {
    expect(await workflowErrors(file, read(`examples/${file}`))).toEqual([])
  })

  it.each(snippets.map((s, i) => [i + 1, s]))('accepts README snippet %i', async (_i, snippet) => {
    expect(await workflowErrors('README.md', asWorkflow(snippet as string))).toEqual([])
  })

  it('finds the errors it is meant to find', async () => {
    expect(
      await workflowErrors('broken.yml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: x/y@v1\n        with: [1]\n')
    ).not.toEqual([])
    const action = parseAction({ name: 'action.yml', content: 'name: x\nruns:\n  using: node24\n  mian: x.js\n' }, new NoOperationTraceWriter())
    expect(action.context.errors.getErrors()).not.toEqual([])
  })
})

describe('the README shows the examples as they are', () => {
  it.each(examples)('examples/%s', file => {
    expect(read('README.md')).toContain(read(`examples/${file}`).trim())
  })
})
