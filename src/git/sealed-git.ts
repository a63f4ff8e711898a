// A sealed view: git over a repository's objects (and a worktree's files), through a git dir of our own made
// for the purpose, so that git reads none of the repository's own configuration, attributes or exclude files,
// hooks or refs. What the agent planted there (filters, diff drivers, transports, helpers, fsmonitor) cannot
// run in our steps. Files in the worktree (.gitattributes, .gitignore) are still read: they name no program.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Git, type GitResult } from './git-command-manager.js'
import { copyRegular, readSmall } from '../os/untrusted-files.js'
import type { FilterDriver } from '../record/state-helper.js'
import { quoted } from '../os/quote.js'

export interface ViewSettings {
  /** The object directory: <common dir>/objects. */
  objects: string
  /** The view's HEAD, a commit id; none for a repository without a commit yet. */
  head?: string
  /** A commit id of the repository, when the view opens before its HEAD is known: its length tells the object format. */
  commit?: string
  /** An index to read: copied into the view, which writes only its copy. */
  index?: string
  /** The files to look at. */
  workTree?: string
  /** Settings that decide what counts as a change (core.fileMode, core.autocrlf, ...), as key=value. */
  settings?: string[]
  /** Filter drivers as they were at enter, by name. */
  filters?: Record<string, FilterDriver>
  /** The repository's exclude rules (info/exclude) as they were at enter. */
  excludes?: string
  /** Commits the repository has (its HEAD, remote-tracking branches): what a fetch from the view says it has. */
  haves?: string[]
  /** A partial clone's promisor remote of enter: a fetch from the view asks it as the clone would. */
  promisor?: Promisor
}

/** The transports a call to a remote (a rescue's push, a fetch, an ls-remote) may take: never one that runs a command (ext::, fd::, a remote helper). */
export const REMOTE_PROTOCOLS = 'https:http:ssh:git:file'

/** A partial clone's promisor remote, as the repository had it at enter. */
export interface Promisor {
  remote: string
  url: string
  filter?: string
}

export interface View {
  git: Git
  /** The view's own git dir, removed by dispose(). */
  dir: string
  /** Where the view keeps its index copy, when it has one. */
  index?: string
  /** Points the view's HEAD at a commit (none: unborn), for a view opened before its HEAD was known. */
  setHead(head: string | undefined): void
  dispose(): void
}

/** A folder of this step's own: under RUNNER_TEMP, which the agent's sandbox cannot write, when there is one. */
export function privateTemp(prefix: string): string {
  return fs.mkdtempSync(path.join(process.env.RUNNER_TEMP || os.tmpdir(), prefix))
}

/** An index of a million files is some 100 MB: one far larger is not an index, and is not copied. */
const MAX_INDEX_BYTES = 2 * 1024 ** 3

export function openView(settings: ViewSettings): View {
  const dir = privateTemp('agent-worktree-view-')
  // What the view writes, removed one call each (a walk of the folder costs more, in every stage): folders last.
  const made: string[] = []
  const write = (file: string, content: string | Buffer): void => {
    fs.writeFileSync(path.join(dir, file), content)
    made.push(file)
  }
  // refs/ makes the folder a git dir; info/ holds the exclude rules, when there are any.
  const folders = settings.excludes ? ['refs', 'info'] : ['refs']
  try {
    for (const folder of folders) fs.mkdirSync(path.join(dir, folder))
    const headText = (head: string | undefined): string => (head ? `${head}\n` : 'ref: refs/heads/unborn\n')
    write('HEAD', headText(settings.head))
    write('config', configText(settings))
    if (settings.excludes) write(path.join('info', 'exclude'), settings.excludes)
    if (settings.haves?.length) {
      fs.mkdirSync(path.join(dir, 'refs', 'haves'))
      folders.unshift(path.join('refs', 'haves'))
      settings.haves.forEach((id, i) => write(path.join('refs', 'haves', String(i)), `${id}\n`))
    }
    // A shallow clone's boundary: without it, git would look for parents it never had.
    const shallow = readSmall(path.join(path.dirname(settings.objects), 'shallow'), 64 * 1024 * 1024)
    if (shallow) write('shallow', shallow)
    let index: string | undefined
    if (settings.index) {
      index = path.join(dir, 'index')
      made.push('index')
      if (!copyRegular(settings.index, index, MAX_INDEX_BYTES)) throw new Error(`${quoted(settings.index)} is not a regular file of an index's size`)
      // The copy keeps the index's time: git compares it with the files' times to spot edits made in the
      // second the index was written.
      const { atime, mtime } = fs.lstatSync(settings.index)
      fs.utimesSync(index, atime, mtime)
    }
    const args = [`--git-dir=${dir}`, ...(settings.workTree ? [`--work-tree=${settings.workTree}`] : [])]
    // git-lfs as a smudge filter would download: a view never talks to a remote, so it writes the pointers.
    const git = new Git(settings.workTree ?? dir, args, { GIT_OBJECT_DIRECTORY: settings.objects, GIT_LFS_SKIP_SMUDGE: '1' })
    return {
      git,
      dir,
      index,
      setHead: head => fs.writeFileSync(path.join(dir, 'HEAD'), headText(head)),
      dispose: () => removeView(dir, made, folders)
    }
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** A view's folder gone: what it made, then, where git wrote more (a fetch's refs), the folder walked. */
function removeView(dir: string, made: string[], folders: string[]): void {
  try {
    for (const file of made) fs.unlinkSync(path.join(dir, file))
    for (const folder of folders) fs.rmdirSync(path.join(dir, folder))
    fs.rmdirSync(dir)
  } catch {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A fetch from a remote of enter through a view: no setting of the repository (an upload-pack, ssh command,
 * proxy, insteadOf or helper someone wrote into a shared clone's config) takes part, only the job's transport
 * set-up of enter (the call is a remote one). The objects go into the repository's; what the fetch wrote to the
 * view's refs is returned by name, and new shallow boundaries (a fetch with --depth) are added to the repository's.
 */
export async function fetchThroughView(
  commonDir: string,
  view: Pick<ViewSettings, 'haves' | 'promisor'>,
  args: string[],
  options: { stallMs: number; input?: string; env?: Record<string, string>; config?: [string, string][] }
): Promise<{ result: GitResult; refs: Map<string, string> }> {
  const opened = openView({ objects: path.join(commonDir, 'objects'), ...view })
  try {
    const result = await opened.git.run(['fetch', '--quiet', '--progress', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', ...args], {
      ...options,
      interruptible: true,
      remote: true
    })
    const listed = result.exitCode === 0 ? await opened.git.exec(['for-each-ref', '--format=%(refname) %(objectname)']) : ''
    const refs = new Map(
      listed
        .split('\n')
        .filter(line => line && !line.startsWith('refs/haves/'))
        .map(line => line.split(' ') as [string, string])
    )
    if (result.exitCode === 0) addShallow(commonDir, path.join(opened.dir, 'shallow'))
    return { result, refs }
  } finally {
    opened.dispose()
  }
}

/** Adds the shallow boundaries a view's fetch learnt to the repository's, under git's own lock file. */
function addShallow(commonDir: string, viewShallow: string): void {
  const learnt = readSmall(viewShallow, 64 * 1024 * 1024)
  if (!learnt) return
  const file = path.join(commonDir, 'shallow')
  const known = readSmall(file, 64 * 1024 * 1024) ?? ''
  const added = learnt.split('\n').filter(line => line && !known.split('\n').includes(line))
  if (!added.length) return
  const lock = `${file}.lock`
  fs.writeFileSync(lock, `${known}${known && !known.endsWith('\n') ? '\n' : ''}${added.join('\n')}\n`, { flag: 'wx' })
  fs.renameSync(lock, file)
}

function configText(settings: ViewSettings): string {
  const sha256 = (settings.head ?? settings.commit)?.length === 64
  const lines = [
    '[core]',
    `\trepositoryformatversion = ${sha256 || settings.promisor ? 1 : 0}`,
    `\tbare = ${settings.workTree ? 'false' : 'true'}`,
    ...pinnedSettings(settings.settings ?? []).map(([key, value]) => `\t${key} = ${value}`)
  ]
  if (sha256 || settings.promisor) lines.push('[extensions]')
  if (sha256) lines.push('\tobjectFormat = sha256')
  const promisor = settings.promisor
  if (promisor) {
    lines.push(
      `\tpartialClone = ${quote(promisor.remote)}`,
      `[remote "${promisor.remote.replace(/["\\]/g, '\\$&')}"]`,
      `\turl = ${quote(promisor.url)}`,
      '\tpromisor = true'
    )
    if (promisor.filter) lines.push(`\tpartialCloneFilter = ${quote(promisor.filter)}`)
  }
  for (const [name, driver] of Object.entries(settings.filters ?? {})) {
    lines.push(`[filter "${name.replace(/["\\]/g, '\\$&')}"]`)
    for (const key of ['clean', 'smudge', 'process'] as const) if (driver[key]) lines.push(`\t${key} = ${quote(driver[key])}`)
    if (driver.required) lines.push('\trequired = true')
  }
  return `${lines.join('\n')}\n`
}

/**
 * The settings a view takes, by name and value: only these, with values git knows (a record from the git dir
 * could name anything else, such as core.fsmonitor).
 */
const PINNABLE: Record<string, RegExp> = {
  filemode: /^(true|false)$/,
  ignorecase: /^(true|false)$/,
  symlinks: /^(true|false)$/,
  precomposeunicode: /^(true|false)$/,
  autocrlf: /^(true|false|input)$/,
  eol: /^(lf|crlf|native)$/
}

function pinnedSettings(settings: string[]): [string, string][] {
  return settings
    .map(setting => [
      setting
        .slice(0, setting.indexOf('='))
        .replace(/^core\./i, '')
        .toLowerCase(),
      setting.slice(setting.indexOf('=') + 1).toLowerCase()
    ])
    .filter((pair): pair is [string, string] => Object.hasOwn(PINNABLE, pair[0]) && PINNABLE[pair[0]].test(pair[1]))
}

/** A config value, quoted so that nothing in it ends the line or starts a comment. */
export function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`
}
