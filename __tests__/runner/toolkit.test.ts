// Covers: src/runner/toolkit.ts.
// What the stages write for the runner (log lines, annotations, outputs, state, exported variables, the job summary)
// is byte for byte what @actions/core writes for the same calls, but for the random delimiter of each file command.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeEach, expect, it, vi } from 'vitest'
import { runnerProtocol, type Toolkit } from '../../src/runner/toolkit.js'

const FILES = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY']
const SUMMARY = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'toolkit-summary-')), 'summary')
let dir: string
const saved = { ...process.env }
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolkit-'))
})
afterAll(() => fs.rmSync(path.dirname(SUMMARY), { recursive: true, force: true }))
afterEach(() => {
  process.env = { ...saved }
  process.exitCode = undefined
  fs.rmSync(dir, { recursive: true, force: true })
})

// @actions/core is what local-action's entries hand the stages (src/local-action/): it must be a Toolkit.
const actionsCore: Toolkit = core

const ODD = 'a%b\r\nc:d,e::f "g" <h> ``'

/** Every call the stages make, with the odd values a name can bring; the summary last, written. */
async function calls(kit: Toolkit): Promise<void> {
  kit.info(`line ${ODD}`)
  kit.debug(ODD)
  kit.warning(ODD, { title: `agent-worktree ${ODD}` })
  kit.warning(new Error(ODD))
  kit.warning('no title', {})
  kit.error(ODD)
  kit.setSecret(ODD)
  kit.setOutput('worktree-path', ODD)
  kit.setOutput('json', { a: [1, ODD] } as unknown as string)
  kit.setOutput('empty', '')
  kit.exportVariable('AGENT_WORKTREE_PATH', ODD)
  kit.saveState('worktree', `{"x":"${ODD}"}`)
  kit.setFailed(ODD)
  await kit.summary
    .addHeading(ODD, 3)
    .addHeading('level', 9)
    .addTable([[{ data: 'name', header: true }, { data: 'x', colspan: '2' }, 'plain', ''], []])
    .addRaw('<p>raw</p>')
    .addRaw('eol', true)
    .write()
}

/** What one kit wrote: stdout, each file with its delimiters named by order, the exit code and the exported variable. */
async function run(kit: Toolkit, with_: 'files' | 'stdout'): Promise<string[]> {
  const here = fs.mkdtempSync(path.join(dir, 'run-'))
  for (const name of FILES) {
    delete process.env[name]
    // @actions/core keeps the summary's path once it has one: one file for every run.
    if (name === 'GITHUB_STEP_SUMMARY') process.env[name] = SUMMARY
    else if (with_ === 'files') process.env[name] = path.join(here, name)
    if (process.env[name]) fs.writeFileSync(process.env[name], '')
  }
  const out: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    out.push(String(chunk))
    return true
  })
  try {
    await calls(kit)
  } finally {
    spy.mockRestore()
  }
  const delimiters: string[] = []
  const named = (text: string): string =>
    text.replace(/ghadelimiter_[0-9a-f-]{36}/g, d => `D${delimiters.includes(d) ? delimiters.indexOf(d) : delimiters.push(d) - 1}`)
  return [
    out.join(''),
    ...FILES.map(name => (process.env[name] ? named(fs.readFileSync(process.env[name], 'utf8')) : '-')),
    String(process.exitCode),
    process.env.AGENT_WORKTREE_PATH ?? '-'
  ]
}

for (const with_ of ['files', 'stdout'] as const) {
  it(`writes what @actions/core writes, with the file commands ${with_ === 'files' ? 'as files' : 'on stdout (no GITHUB_* file)'}`, async () => {
    const ours = await run(runnerProtocol, with_)
    process.exitCode = undefined
    const theirs = await run(actionsCore, with_)
    expect(ours).toEqual(theirs)
    expect(ours[0]).toContain('::warning title=agent-worktree a%25b%0D%0Ac%3Ad%2Ce%3A%3Af "g" <h> ``::a%25b')
  })
}

it('refuses as @actions/core does where a file command has no file', () => {
  process.env.GITHUB_OUTPUT = path.join(dir, 'missing')
  expect(() => runnerProtocol.setOutput('x', 'y')).toThrow(`Missing file at path: ${process.env.GITHUB_OUTPUT}`)
  expect(() => core.setOutput('x', 'y')).toThrow(`Missing file at path: ${process.env.GITHUB_OUTPUT}`)
})
