// What the stages say to the runner: log lines, annotations, outputs, state, exported variables and the job
// summary, written exactly as @actions/core 3 writes them (workflow commands on stdout, file commands appended to the
// GITHUB_* files). @actions/core itself loads its OIDC client, and with it an HTTP client, whenever it is imported:
// most of a stage's start-up, for a token no stage asks for. __tests__/runner/toolkit.test.ts holds the two side by side.
// @github/local-action stands in for @actions/core and keeps the state between main and post itself: its entries
// (src/local-action/) hand the stages @actions/core through speakThrough().
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'

/** An annotation's properties: the stages give a title, never a file or a line. */
export interface AnnotationProperties {
  title?: string
}

function commandValue(input: unknown): string {
  if (input === null || input === undefined) return ''
  if (typeof input === 'string' || input instanceof String) return input as string
  return JSON.stringify(input)
}

const escapeData = (s: unknown): string => commandValue(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
const escapeProperty = (s: unknown): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')

/** `::command key=value,...::message`, a property without a value left out. */
function issueCommand(command: string, properties: Record<string, unknown>, message: unknown): void {
  const listed = Object.entries(properties)
    .filter(([, value]) => value)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
  const head = Object.keys(properties).length ? ` ${listed.join(',')}` : ''
  process.stdout.write(`::${command}${head}::${escapeData(message)}${os.EOL}`)
}

/** Appends NAME<<DELIMITER, the value, DELIMITER to the file GITHUB_<command> names; the delimiter is new each time. */
function issueFileCommand(command: string, name: string, value: unknown): void {
  const delimiter = `ghadelimiter_${randomUUID()}`
  const converted = commandValue(value)
  if (name.includes(delimiter)) throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`)
  if (converted.includes(delimiter)) throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`)
  const file = process.env[`GITHUB_${command}`]
  if (!file) throw new Error(`Unable to find environment variable for file command ${command}`)
  if (!fs.existsSync(file)) throw new Error(`Missing file at path: ${file}`)
  fs.appendFileSync(file, `${name}<<${delimiter}${os.EOL}${converted}${os.EOL}${delimiter}${os.EOL}`, { encoding: 'utf8' })
}

function info(message: string): void {
  process.stdout.write(message + os.EOL)
}

function debug(message: string): void {
  issueCommand('debug', {}, message)
}

function warning(message: string | Error, properties: AnnotationProperties = {}): void {
  issueCommand('warning', { ...properties }, message instanceof Error ? message.toString() : message)
}

function error(message: string | Error, properties: AnnotationProperties = {}): void {
  issueCommand('error', { ...properties }, message instanceof Error ? message.toString() : message)
}

function setFailed(message: string | Error): void {
  process.exitCode = 1
  error(message)
}

function setSecret(secret: string): void {
  issueCommand('add-mask', {}, secret)
}

function setOutput(name: string, value: unknown): void {
  if (process.env.GITHUB_OUTPUT) return issueFileCommand('OUTPUT', name, value)
  process.stdout.write(os.EOL)
  issueCommand('set-output', { name }, commandValue(value))
}

function exportVariable(name: string, value: unknown): void {
  const converted = commandValue(value)
  process.env[name] = converted
  if (process.env.GITHUB_ENV) return issueFileCommand('ENV', name, value)
  issueCommand('set-env', { name }, converted)
}

function saveState(name: string, value: unknown): void {
  if (process.env.GITHUB_STATE) return issueFileCommand('STATE', name, value)
  issueCommand('save-state', { name }, commandValue(value))
}

function getState(name: string): string {
  return process.env[`STATE_${name}`] || ''
}

export interface SummaryTableCell {
  data: string
  header?: boolean
  colspan?: string
  rowspan?: string
}

/** The job summary: HTML built up, then appended to the file GITHUB_STEP_SUMMARY names. */
class Summary {
  #buffer = ''

  #wrap(tag: string, content: string, attrs: Record<string, string> = {}): string {
    const html = Object.entries(attrs)
      .map(([key, value]) => ` ${key}="${value}"`)
      .join('')
    return content ? `<${tag}${html}>${content}</${tag}>` : `<${tag}${html}>`
  }

  addRaw(text: string, addEOL = false): this {
    this.#buffer += text
    return addEOL ? this.addRaw(os.EOL) : this
  }

  addHeading(text: string, level: number | string = 1): this {
    const tag = `h${level}`
    return this.addRaw(this.#wrap(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].includes(tag) ? tag : 'h1', text), true)
  }

  addTable(rows: (SummaryTableCell | string)[][]): this {
    const body = rows
      .map(row =>
        this.#wrap(
          'tr',
          row
            .map(cell => {
              if (typeof cell === 'string') return this.#wrap('td', cell)
              const attrs = { ...(cell.colspan && { colspan: cell.colspan }), ...(cell.rowspan && { rowspan: cell.rowspan }) }
              return this.#wrap(cell.header ? 'th' : 'td', cell.data, attrs)
            })
            .join('')
        )
      )
      .join('')
    return this.addRaw(this.#wrap('table', body), true)
  }

  emptyBuffer(): this {
    this.#buffer = ''
    return this
  }

  async write(): Promise<this> {
    const file = process.env.GITHUB_STEP_SUMMARY
    if (!file) throw new Error('Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.')
    try {
      await fs.promises.access(file, fs.constants.R_OK | fs.constants.W_OK)
    } catch {
      throw new Error(`Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`)
    }
    await fs.promises.appendFile(file, this.#buffer, { encoding: 'utf8' })
    return this.emptyBuffer()
  }
}

/** What the stages call: the runner's protocol as @actions/core speaks it. */
export interface Toolkit {
  info(message: string): void
  debug(message: string): void
  warning(message: string | Error, properties?: AnnotationProperties): void
  error(message: string | Error, properties?: AnnotationProperties): void
  setFailed(message: string | Error): void
  setSecret(secret: string): void
  setOutput(name: string, value: unknown): void
  exportVariable(name: string, value: unknown): void
  saveState(name: string, value: unknown): void
  getState(name: string): string
  summary: SummaryWriter
}

/** The job summary's calls the stages make. */
export interface SummaryWriter {
  addRaw(text: string, addEOL?: boolean): SummaryWriter
  addHeading(text: string, level?: number | string): SummaryWriter
  addTable(rows: (SummaryTableCell | string)[][]): SummaryWriter
  emptyBuffer(): SummaryWriter
  write(): Promise<SummaryWriter>
}

/** The runner's protocol, written here. */
export const runnerProtocol: Toolkit = {
  info,
  debug,
  warning,
  error,
  setFailed,
  setSecret,
  setOutput,
  exportVariable,
  saveState,
  getState,
  summary: new Summary()
}

/** What every stage speaks through. */
export let core: Toolkit = runnerProtocol

/** Speak through another toolkit from now on: @actions/core, where local-action stands in for it. */
export function speakThrough(toolkit: Toolkit): void {
  core = toolkit
}
