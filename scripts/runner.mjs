// Runs the committed bundles as the GitHub Actions runner runs a node action: one node process per
// step, inputs as INPUT_* from action.yml defaults and `with:`, file commands for outputs, state, env
// and summary, state handed to the post as STATE_*, exported env carried to later steps, and posts
// run last-in first-out after all main steps, whether the main step failed or not.
// Used by the end-to-end tests and by the demo.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * @typedef {{ level: 'error' | 'warning' | 'notice', message: string }} Annotation
 * @typedef {{
 *   exitCode: number | null, signal: string | null, stdout: string, stderr: string,
 *   outputs: Record<string, string>, state: Record<string, string>, env: Record<string, string>,
 *   summary: string, annotations: Annotation[]
 * }} StepResult
 * @typedef {{ killAfterMs: number, signal: NodeJS.Signals }} Kill
 */

/**
 * Parses a file command file: NAME=VALUE lines and NAME<<DELIMITER heredocs.
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function parseFileCommands(text) {
  /** @type {Record<string, string>} */
  const result = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line === '') continue
    const heredoc = line.indexOf('<<')
    const equals = line.indexOf('=')
    if (heredoc > 0 && (equals === -1 || heredoc < equals)) {
      const name = line.slice(0, heredoc)
      const delimiter = line.slice(heredoc + 2)
      const value = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i])
      if (i >= lines.length) throw new Error(`file command ${name}: delimiter ${delimiter} never closed`)
      result[name] = value.join('\n')
    } else if (equals > 0) {
      result[line.slice(0, equals)] = line.slice(equals + 1)
    } else {
      throw new Error(`malformed file command line: ${line}`)
    }
  }
  return result
}

/** @param {string} s */
function unescapeData(s) {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
}

/**
 * The workflow commands `::error::`, `::warning::` and `::notice::` a step printed.
 * @param {string} stdout
 * @returns {Annotation[]}
 */
export function parseAnnotations(stdout) {
  /** @type {Annotation[]} */
  const annotations = []
  for (const line of stdout.split('\n')) {
    const match = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/.exec(line)
    if (match) annotations.push({ level: /** @type {Annotation['level']} */ (match[1]), message: unescapeData(match[2]) })
  }
  return annotations
}

/**
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
function killGroup(pid, signal) {
  try {
    if (pid) process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

export class Job {
  /** @type {Record<string, string>} */
  exported = {}
  /** @type {{ script: string, inputs: Record<string, string>, state: Record<string, string> }[]} */
  #posts = []
  #steps = 0
  #options

  /** @param {{ workspace: string, temp: string, env?: Record<string, string> }} options */
  constructor(options) {
    this.#options = options
    fs.mkdirSync(options.temp, { recursive: true })
  }

  /**
   * A `uses:` step: runs the action's main and registers its post.
   * @param {string} actionDir relative to the repository root, as in `uses: ./exit`
   * @param {Record<string, string>} [withInputs]
   * @param {Kill} [kill] kill the step this long after it starts
   * @returns {Promise<StepResult>}
   */
  async uses(actionDir, withInputs = {}, kill) {
    const dir = path.resolve(ROOT, actionDir)
    const action = parse(fs.readFileSync(path.join(dir, 'action.yml'), 'utf8'))
    if (action.runs.using !== 'node24') throw new Error(`unexpected runs.using ${action.runs.using}`)
    const declared = action.inputs ?? {}
    /** @type {Record<string, string>} */
    const inputs = {}
    for (const [name, spec] of Object.entries(declared)) {
      const value = withInputs[name] ?? /** @type {{ default?: string }} */ (spec)?.default
      if (value !== undefined) inputs[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = String(value)
    }
    for (const name of Object.keys(withInputs)) {
      if (!(name in declared)) throw new Error(`unexpected input ${name} for ${actionDir}`)
    }
    const result = await this.#runNode(path.join(dir, action.runs.main), inputs, {}, kill)
    if (action.runs.post) this.#posts.push({ script: path.join(dir, action.runs.post), inputs, state: result.state })
    return result
  }

  /** A `run:` step's view of the environment: the job's env plus everything exported so far. */
  get env() {
    return { ...this.#options.env, ...this.exported }
  }

  /**
   * Runs the registered posts, last registered first, as the runner does at the end of the job;
   * again when called again.
   * @param {Kill} [kill] kill each post this long after it starts
   * @returns {Promise<StepResult[]>}
   */
  async runPosts(kill) {
    const results = []
    for (const post of [...this.#posts].reverse()) {
      const state = Object.fromEntries(Object.entries(post.state).map(([k, v]) => [`STATE_${k}`, v]))
      results.push(await this.#runNode(post.script, post.inputs, state, kill))
    }
    return results
  }

  /**
   * @param {string} script
   * @param {Record<string, string>} inputs
   * @param {Record<string, string>} state
   * @param {Kill} [kill]
   * @returns {Promise<StepResult>}
   */
  async #runNode(script, inputs, state, kill) {
    const step = ++this.#steps
    /** @type {Record<string, string>} */
    const files = {}
    for (const name of ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY']) {
      files[name] = path.join(this.#options.temp, `${step}-${name.toLowerCase()}`)
      fs.writeFileSync(files[name], '')
    }
    // The runner passes its own environment, the job's env, exported variables, inputs and state.
    /** @type {Record<string, string>} */
    const env = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(INPUT|STATE)_|^GITHUB_|^RUNNER_/.test(k)) env[k] = v
    Object.assign(env, {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: this.#options.workspace,
      RUNNER_TEMP: this.#options.temp,
      ...this.#options.env,
      ...this.exported,
      ...inputs,
      ...state,
      ...files
    })
    // Its own process group, so that a kill reaches git's children too, as the runner's cancel does.
    const child = spawn(process.execPath, [script], { cwd: this.#options.workspace, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => (stdout += d))
    child.stderr.on('data', d => (stderr += d))
    const timer = kill ? setTimeout(() => killGroup(child.pid, kill.signal), kill.killAfterMs) : undefined
    /** @type {[number | null, string | null]} */
    const [exitCode, signal] = await new Promise(resolve => child.on('close', (code, sig) => resolve([code, sig])))
    if (timer) clearTimeout(timer)
    /** @param {string} name */
    const read = name => fs.readFileSync(files[name], 'utf8')
    const exportedNow = parseFileCommands(read('GITHUB_ENV'))
    Object.assign(this.exported, exportedNow)
    return {
      exitCode,
      signal,
      stdout,
      stderr,
      outputs: parseFileCommands(read('GITHUB_OUTPUT')),
      state: parseFileCommands(read('GITHUB_STATE')),
      env: exportedNow,
      summary: read('GITHUB_STEP_SUMMARY'),
      annotations: parseAnnotations(stdout)
    }
  }
}
