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
  it.each(['action.yml', 'exit/action.yml', 'run/action.yml'])('accepts %s', file => {
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

  it('runs CI on Linux, Windows and macOS; the tests and the sandboxes on both Ubuntu images users run, 26.04 (ubuntu-latest) and 24.04', () => {
    const ci = parse(read('.github/workflows/ci.yml')) as { jobs: Record<string, { strategy?: { matrix?: { os?: string[] } } }> }
    for (const job of ['dogfood', 'dogfood-exit']) expect(ci.jobs[job].strategy?.matrix?.os).toEqual(['ubuntu-latest', 'windows-latest', 'macos-latest'])
    expect(ci.jobs.test.strategy?.matrix?.os).toEqual(['ubuntu-26.04', 'ubuntu-24.04', 'windows-latest', 'macos-latest'])
    expect(ci.jobs.sandboxes.strategy?.matrix?.os).toEqual(['ubuntu-26.04', 'ubuntu-24.04'])
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
      const action = parse(read(file)) as { inputs: Record<string, { default?: string }>; outputs?: Record<string, unknown> }
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
      for (const output of Object.keys(action.outputs ?? {})) expect(rows.has(output), `output ${output} of ${file}`).toBe(true)
    }
  )
})

/**
 * The interface of each action the examples use that is not this one, as its source declares it, recorded
 * here (the tests have no network): actions/checkout v7 (action.yml) and openai/codex-action v1 (action.yml,
 * and src/runCodexExec.ts, whose determinePermissionSelection and validateProtectedExtraArgs refuse codex-args
 * under the default safety-strategy drop-sudo and with a permission-profile).
 */
const THIRD_PARTY: Record<string, string[]> = {
  'actions/checkout@v7': [
    ...['repository', 'ref', 'token', 'ssh-key', 'ssh-known-hosts', 'ssh-strict', 'ssh-user', 'persist-credentials', 'path', 'clean', 'filter'],
    ...['sparse-checkout', 'sparse-checkout-cone-mode', 'fetch-depth', 'fetch-tags', 'show-progress', 'lfs', 'submodules', 'set-safe-directory'],
    ...['github-server-url', 'allow-unsafe-pr-checkout']
  ],
  'openai/codex-action@v1': [
    ...['prompt', 'prompt-file', 'output-file', 'openai-api-key', 'responses-api-endpoint', 'working-directory', 'sandbox', 'permission-profile'],
    ...['codex-version', 'codex-args', 'output-schema', 'output-schema-file', 'model', 'effort', 'codex-home', 'safety-strategy', 'codex-user'],
    ...['allow-users', 'allow-bots', 'allow-bot-users']
  ]
}

/** codex-action's refusals of codex-args (a protected safety strategy or a permission profile). */
const CODEX_REFUSED_FLAGS = [
  ...['--dangerously-bypass-approvals-and-sandbox', '--yolo', '--full-auto', '--dangerously-bypass-hook-trust', '--approve-for-me', '--not-so-yolo'],
  ...['--add-dir', '--oss', '--local-provider', '--ignore-user-config', '--ignore-rules', '--profile', '--disable', '--sandbox', '--image']
]
const CODEX_REFUSED_SHORT = ['-p', '-s', '-i']
const CODEX_REFUSED_CONFIG = [
  ...['agents', 'approval_policy', 'approvals_reviewer', 'apps_mcp_product_sku', 'auto_review', 'chatgpt_base_url', 'debug', 'default_permissions'],
  ...['experimental_realtime_webrtc_call_base_url', 'experimental_realtime_ws_base_url', 'hooks', 'marketplaces', 'mcp_servers', 'model_provider'],
  ...['model_providers', 'notify', 'openai_base_url', 'oss_provider', 'otel', 'permissions', 'plugins', 'profile', 'profiles', 'projects'],
  ...['sandbox_mode', 'sandbox_workspace_write', 'shell_environment_policy', 'use_legacy_landlock'],
  // With a custom permission profile (a name not starting with ':').
  ...['experimental_compact_prompt_file', 'model_catalog_json', 'model_instructions_file']
]

/** What codex-action refuses in these codex-args, one reason each (codex-args: a JSON array, or words). */
function codexArgsRefused(codexArgs: string): string[] {
  const args = codexArgs.trim().startsWith('[') ? (JSON.parse(codexArgs) as string[]) : codexArgs.split(/\s+/).filter(Boolean)
  const refused: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const flag = arg.split('=')[0]
    if (CODEX_REFUSED_FLAGS.includes(flag) || CODEX_REFUSED_SHORT.some(s => arg.startsWith(s) && !arg.startsWith('--'))) refused.push(arg)
    if (flag === '--enable' && (arg.includes('=') ? arg.slice('--enable='.length) : args[++i]) !== 'use_legacy_landlock') refused.push(arg)
    const override = flag === '--config' || arg === '-c' ? (arg.includes('=') && flag === '--config' ? arg.slice('--config='.length) : args[++i]) : undefined
    const key = override?.slice(0, override.indexOf('=')).trim()
    const root = key?.split('.')[0]
    if (root && (CODEX_REFUSED_CONFIG.includes(root) || (root === 'features' && key !== 'features.use_legacy_landlock'))) refused.push(`${arg} ${override}`)
  }
  return refused
}

interface Step {
  id?: string
  name?: string
  uses?: string
  with?: Record<string, string>
  run?: string
  env?: Record<string, string>
}

/** Every step of every job of an example or a README snippet. */
function stepsOf(content: string): Step[] {
  const workflow = parse(content) as { jobs?: Record<string, { steps?: Step[] }>; steps?: Step[] }
  if (workflow.jobs) return Object.values(workflow.jobs).flatMap(job => job.steps ?? [])
  return workflow.steps ?? (Array.isArray(workflow) ? (workflow as Step[]) : [])
}

const ourAction = (file: string) => parse(read(file)) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> }
const OURS: Record<string, ReturnType<typeof ourAction>> = {
  'OWNER/agent-worktree@v1': ourAction('action.yml'),
  'OWNER/agent-worktree/exit@v1': ourAction('exit/action.yml'),
  'OWNER/agent-worktree/run@v1': ourAction('run/action.yml')
}

const workflows = [...examples.map(file => [`examples/${file}`, read(`examples/${file}`)]), ...snippets.map(s => [`${s.page} snippet ${s.n}`, s.text])]

/** Every step named `name` in the examples, the README's and docs' snippets and the CI workflows, by where it is. */
function stepsNamed(name: string): [string, Step][] {
  const ci = fs.readdirSync(path.join(ROOT, '.github', 'workflows')).map(f => [`.github/workflows/${f}`, read(`.github/workflows/${f}`)])
  return [...workflows, ...ci].flatMap(([where, content]) =>
    stepsOf(content)
      .filter(s => s.name === name)
      .map(s => [where, s] as [string, Step])
  )
}

/** A step that runs an agent in a sandbox: the run sub-action, openai/codex-action, or srt. */
const confinedAgent = (s: Step): boolean => s.uses === 'OWNER/agent-worktree/run@v1' || s.uses === 'openai/codex-action@v1' || /(^|\s)srt\s/.test(s.run ?? '')

const PROBE = 'bwrap --unshare-user --unshare-net --ro-bind / / true'

describe('the machine the examples set up', () => {
  it('installs the sandbox in one way everywhere: bubblewrap tried first, AppArmor touched only where it fails', () => {
    const installs = stepsNamed('Install the sandbox')
    expect(installs.map(([where]) => where)).toEqual(
      expect.arrayContaining(['examples/cli-agent-matrix.yml', 'examples/claude-code-matrix.yml', '.github/workflows/ci.yml'])
    )
    const [, first] = installs[0]
    for (const [where, step] of installs) expect(step.run, where).toBe(first.run)
    const lines = first.run!.split('\n').map(l => l.trim())
    expect(lines[0]).toBe('sudo apt-get update -q && sudo apt-get install -y -q bubblewrap socat ripgrep')
    expect(lines[1]).toBe(`if ! ${PROBE} 2>/dev/null; then`)
    // After the profile, bubblewrap again: where it still fails, the step fails there, saying why.
    expect(lines.slice(lines.indexOf('fi') - 1)).toEqual([PROBE, 'fi', ''])
  })

  it('loads no AppArmor profile outside that check, in any page, example or workflow: Ubuntu 26.04 would get a second one', () => {
    const files = [
      ...pages,
      ...examples.map(f => `examples/${f}`),
      ...fs.readdirSync(path.join(ROOT, '.github', 'workflows')).map(f => `.github/workflows/${f}`)
    ]
    let loads = 0
    for (const file of files) {
      let checked = false
      for (const line of read(file).split('\n')) {
        if (line.includes(`if ! ${PROBE}`)) checked = true
        if (/^\s*fi\s*$/.test(line)) checked = false
        if (/apparmor_parser|extra-profiles\/bwrap-userns-restrict/.test(line)) {
          loads++
          expect(checked, `${file}: ${line.trim()}`).toBe(true)
        }
      }
    }
    expect(loads).toBeGreaterThan(0)
  })

  it('calls Ubuntu 24.04 by its own name, never ubuntu-latest (which is 26.04 since 2026-11-19)', () => {
    const files = [
      ...pages,
      ...examples.map(f => `examples/${f}`),
      ...fs.readdirSync(path.join(ROOT, '.github', 'workflows')).map(f => `.github/workflows/${f}`)
    ]
    for (const file of files) expect(read(file), file).not.toMatch(/24\.04\W{1,3}(GitHub's )?`?ubuntu-latest|ubuntu-latest`?\W{1,3}(Ubuntu )?24\.04/)
  })

  it.each(workflows)('%s: every agent in a sandbox has a git identity given before it, which it cannot set inside', (_name, content) => {
    const steps = stepsOf(content)
    for (const [i, step] of steps.entries()) {
      if (!confinedAgent(step)) continue
      const env = step.env ?? {}
      const inEnv = ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'].every(name => env[name])
      const before = steps.slice(0, i).some(s => /git config --global user\.name /.test(s.run ?? '') && /git config --global user\.email /.test(s.run ?? ''))
      expect(inEnv || before, `${step.name ?? step.uses}`).toBe(true)
    }
  })

  it('finds the sandboxed agents of the examples', () => {
    for (const file of examples) expect(stepsOf(read(`examples/${file}`)).filter(confinedAgent), file).toHaveLength(1)
  })
})

describe('what the examples give the actions they use', () => {
  it.each(workflows)('%s: every action is one whose interface is recorded, given only inputs it declares', (_name, content) => {
    for (const step of stepsOf(content).filter(s => s.uses)) {
      const declared = THIRD_PARTY[step.uses!] ?? (OURS[step.uses!] && Object.keys(OURS[step.uses!].inputs))
      expect(declared, `${step.uses} is not recorded here`).toBeDefined()
      for (const input of Object.keys(step.with ?? {})) expect(declared, `${step.uses} has no input ${input}`).toContain(input)
    }
  })

  it.each(workflows)('%s: reads only outputs our steps declare', (_name, content) => {
    const steps = stepsOf(content)
    const used = new Map(steps.filter(s => s.id && s.uses && OURS[s.uses]).map(s => [s.id!, OURS[s.uses!]]))
    for (const [, id, output] of content.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      const action = used.get(id)
      if (action) expect(Object.keys(action.outputs), `steps.${id}.outputs.${output}`).toContain(output)
    }
  })

  it('openai/codex-action: the permission profile and Codex home of our step, the default safety strategy, no codex-args it refuses', () => {
    const codex = workflows.flatMap(([, content]) => stepsOf(content)).filter(s => s.uses === 'openai/codex-action@v1')
    expect(codex.length).toBeGreaterThan(0)
    for (const step of codex) {
      const given = step.with ?? {}
      expect(given['permission-profile']).toMatch(/^\$\{\{ steps\.[\w-]+\.outputs\.codex-permission-profile \}\}$/)
      expect(given['codex-home']).toMatch(/^\$\{\{ steps\.[\w-]+\.outputs\.codex-home \}\}$/)
      // The two exclude each other.
      expect(given.sandbox).toBeUndefined()
      expect(given['safety-strategy'] ?? 'drop-sudo').toBe('drop-sudo')
      expect(codexArgsRefused(given['codex-args'] ?? '')).toEqual([])
    }
  })

  it('finds what codex-action refuses: the recipe of writable roots that made the Codex example fail before Codex started', () => {
    const recipe = '["--config", "sandbox_workspace_write.writable_roots=[\\"/w/.git/worktrees/x\\", \\"/w/.git\\"]"]'
    expect(codexArgsRefused(recipe)).toHaveLength(1)
    expect(codexArgsRefused('--add-dir /w/.git -c model="o3" --enable=use_legacy_landlock -s danger-full-access')).toEqual(['--add-dir', '-s'])
    expect(codexArgsRefused('-c features.web_search=true --disable x')).toHaveLength(2)
    expect(codexArgsRefused('["--model", "o3", "-c", "model_reasoning_summary=\\"auto\\""]')).toEqual([])
  })

  it("Claude Code's CLI runs under its sandbox with our step's settings, started outside the worktree", () => {
    const steps = stepsOf(read('examples/claude-code-matrix.yml'))
    const claude = steps.find(s => s.run?.includes('claude -p'))!
    expect(claude.env?.SETTINGS).toMatch(/^\$\{\{ steps\.[\w-]+\.outputs\.srt-settings \}\}$/)
    expect(claude.run).toMatch(/^srt -s "\$SETTINGS" -c 'cd "\$WORKTREE" && claude -p /m)
    expect((claude as Step & { 'working-directory'?: string })['working-directory']).toBeUndefined()
  })

  it.each(examples)('examples/%s checks out with actions/checkout@v7', file => {
    expect(stepsOf(read(`examples/${file}`)).some(s => s.uses === 'actions/checkout@v7')).toBe(true)
  })
})
