// Rescue: a kept worktree's unsaved work, copied into one commit and, where asked, off the machine
// (a GitHub-hosted runner deletes the machine, kept worktree and all, a minute after the job). The copy
// never changes what happens to the worktree, and a rescue that fails is a warning, never an error.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from './git-command-manager.js'
import type { RescueTarget } from './input-helper.js'
import type { Repository } from './repository.js'
import { shellQuote } from './processes.js'
import { clearHidingBits, type Findings } from './safety-gate.js'
import { openView, type View } from './sealed-git.js'
import type { Evidence } from './evidence.js'
import type { PushTarget, WorktreeRecord } from './state-helper.js'
import { copyRegular, isSpecial, kindOf, linesOf, reachedWithoutLinks } from './untrusted-files.js'
import { unlinkReflogLinks } from './worktree-refs.js'

/** What a rescue may take, all targets together: the runner gives a cancelled job's posts little time. */
export const RESCUE_TIME_LIMIT_MS = 60_000
/** A push or a transfer that says nothing for this long has stalled. */
export const STALL_MS = 30_000

const IDENTITY = {
  GIT_AUTHOR_NAME: 'agent-worktree',
  GIT_AUTHOR_EMAIL: 'agent-worktree@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'agent-worktree',
  GIT_COMMITTER_EMAIL: 'agent-worktree@users.noreply.github.com'
}

export interface LeftOut {
  file: string
  why: string
}

export interface Snapshot {
  /** One commit that holds it all: the files as the agent left them; parents HEAD, the index, and every other unsaved commit. */
  commit: string
  /** The local ref that keeps it alive while the worktree is kept. */
  ref: string
  /** Changed files not in the commit, and why (over the size limit, a named pipe, ...). */
  leftOut: LeftOut[]
  base: string
}

export interface RescueResult {
  targets: RescueTarget[]
  snapshot?: Snapshot
  /** Why no snapshot could be made: then nothing was rescued. */
  unmade?: string
  /** The branch pushed to the remote. */
  branch?: { remote: string; name: string }
  /** The workflow artifact uploaded. */
  artifact?: { name: string; url?: string }
  /** Each target that failed, with what git or the service said. */
  failures: RescueFailure[]
}

export interface RescueFailure {
  target: RescueTarget
  said: string
  /** What the failure points to: the job's permissions, no remote, no artifact service, GHES, or nothing known. */
  cause: 'refused' | 'no-remote' | 'unsealed' | 'no-service' | 'ghes' | 'other'
}

/** The work left the machine, by at least one target. */
export function rescued(result: RescueResult | undefined): boolean {
  return !!result?.branch || !!result?.artifact
}

/**
 * Builds the snapshot commit without touching the worktree: its files, index, HEAD and branch stay as
 * they are. The files go through a temporary index (tracked files as on disk, deletions, modes, links,
 * untracked files that are not ignored); the largest changed files beyond the size limit are left out.
 */
export async function keepSnapshot(input: {
  repo: Repository
  evidence: Evidence
  gitDir: string
  folder?: string
  findings: Findings
}): Promise<Snapshot | string> {
  const { repo, evidence: record, gitDir, folder, findings } = input
  const head = findings.head!
  const index = path.join(gitDir, 'index')
  const hasIndex = folder !== undefined && fs.existsSync(index)
  let view: View | undefined
  try {
    view = openView({
      objects: path.join(repo.commonDir, 'objects'),
      head,
      index: hasIndex ? index : undefined,
      workTree: folder,
      settings: [`core.fileMode=${record.fileMode}`, ...(record.pinned ?? [])],
      filters: record.believed.filters
    })
    const git = view.git
    const headTree = (await git.exec(['rev-parse', `${head}^{tree}`])).trim()
    let tree = headTree
    let indexTree: string | undefined
    const leftOut: LeftOut[] = []
    if (folder) {
      if (hasIndex) {
        await clearHidingBits(git, folder, fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout')))
        indexTree = (await git.run(['write-tree'])).stdout.trim() || undefined
      } else await git.exec(['read-tree', head])
      // Listed here, not taken from the findings: with no index they list nothing, and a folder behind a
      // .gitignore that hides itself shows there only as that .gitignore.
      const list = async (args: string[]): Promise<string[]> => (await git.exec(args)).split('\0').filter(Boolean)
      const hiding = findings.uncommitted
        .filter(entry => entry === '?? .gitignore' || (entry.startsWith('?? ') && entry.endsWith('/.gitignore')))
        .map(entry => `:(literal)${path.posix.dirname(entry.slice(3))}`)
      const changed = new Set([
        // Submodules as the index records them: git would otherwise run in each, with its configuration.
        ...(await list(['diff-files', '-z', '--name-only', '--ignore-submodules=dirty'])),
        ...(await list(['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore'])),
        ...(hiding.length ? await list(['ls-files', '-z', '--others', '--', ...hiding]) : [])
      ])
      // The links symlink-dirs made are the job's, not the agent's work.
      for (const link of record.links ?? []) if (kindOf(path.join(folder, link)) === 'link') changed.delete(link)
      leftOut.push(...overLimit(folder, [...changed], record.rescueMaxBytes))
      const left = new Set(leftOut.map(l => l.file))
      leftOut.push(
        ...(await stageAsOnDisk(
          git,
          view.dir,
          folder,
          [...changed].filter(file => !left.has(file)),
          record.fileMode,
          head.length
        ))
      )
      tree = (await git.exec(['write-tree'])).trim()
    }
    const parents = [head]
    const notes = [`Parent 1: HEAD (${head.slice(0, 12)}), where the agent was.`]
    if (indexTree && indexTree !== headTree && indexTree !== tree) {
      parents.push((await git.exec(['commit-tree', indexTree, '-p', head, '-m', 'agent-worktree: the index (staged changes)'], { env: IDENTITY })).trim())
      notes.push(`Parent ${parents.length}: the index, with the staged changes.`)
    }
    const others = findings.tips.filter(tip => tip !== head)
    if (others.length) {
      const independent = (await repo.git.exec(['merge-base', '--independent', head, ...others])).split('\n').filter(tip => tip && tip !== head)
      for (const tip of independent) {
        parents.push(tip)
        notes.push(`Parent ${parents.length}: ${tip.slice(0, 12)}, commits HEAD does not reach.`)
      }
    }
    const message = [
      `agent-worktree: rescue of ${record.name}`,
      '',
      `The files of ${record.path} as they were left: tracked files as on disk, and untracked files that git does not ignore.`,
      ...notes,
      ...(leftOut.length ? [`Left out: ${leftOut.map(l => `${l.file} (${l.why})`).join(', ')}`] : []),
      `Job: run ${record.owner.run || '-'}, job ${record.owner.job || '-'}, runner ${record.owner.runner || '-'}.`
    ].join('\n')
    const commit = (await git.exec(['commit-tree', tree, ...parents.flatMap(p => ['-p', p]), '-F', '-'], { env: IDENTITY, input: message })).trim()
    const ref = keptRef(gitDir, record.token)
    unlinkReflogLinks(repo.commonDir, ref)
    await repo.git.exec(['update-ref', '-m', 'agent-worktree: kept', ref, commit])
    return { commit, ref, leftOut, base: record.believed.base ?? head }
  } catch (error) {
    return (error as Error).message
  } finally {
    view?.dispose()
  }
}

/**
 * The ref that marks a worktree kept and keeps its snapshot alive: refs/agent-worktree/kept/<id>/<token>.
 * One per job that kept it: a later worktree of the same git dir id (or one that took it over) removes
 * only its own, and the sweep leaves alone every worktree whose id has one.
 */
export function keptRef(gitDir: string, token: string): string {
  return `${KEPT_REFS}${path.basename(gitDir)}/${token}`
}

export const KEPT_REFS = 'refs/agent-worktree/kept/'

/** Deletes a kept ref, when there is one (a loose file, or a line of packed-refs): no git call otherwise. */
export async function dropKeptRef(git: Git, commonDir: string, ref: string): Promise<void> {
  const packed = fs.existsSync(path.join(commonDir, 'packed-refs')) && [...linesOf(path.join(commonDir, 'packed-refs'))].some(line => line.endsWith(` ${ref}`))
  if (packed || fs.existsSync(path.join(commonDir, ...ref.split('/')))) {
    unlinkReflogLinks(commonDir, ref)
    await git.run(['update-ref', '-d', ref])
  }
}

/**
 * Puts the files into the view's index exactly as they are on disk: no clean filter (LFS, line endings)
 * changes a byte, so a restore gets back what the agent left. Links are stored as links, a missing file as
 * a deletion. Each regular file is copied aside first, opened without following a link and without waiting
 * on a pipe, so that git reads only our copy; a named pipe, socket or device, or a path reached through a
 * link, is left out and named.
 */
async function stageAsOnDisk(git: Git, temp: string, folder: string, files: string[], fileMode: boolean, idLength: number): Promise<LeftOut[]> {
  const entries: string[] = []
  const leftOut: LeftOut[] = []
  const copies: { file: string; mode: string; copy: string }[] = []
  const copiesDir = path.join(temp, 'copies')
  fs.mkdirSync(copiesDir)
  for (const file of files) {
    const full = path.join(folder, file)
    if (!reachedWithoutLinks(folder, file)) {
      leftOut.push({ file, why: 'reached through a symbolic link' })
      continue
    }
    const kind = kindOf(full)
    if (kind === 'link') {
      const id = (await git.exec(['hash-object', '-w', '--stdin'], { input: fs.readlinkSync(full) })).trim()
      entries.push(`120000 ${id}\t${file}`)
    } else if (kind === 'file') {
      const copy = path.join(copiesDir, String(copies.length))
      const mode = fileMode && fs.lstatSync(full).mode & 0o111 ? '100755' : '100644'
      if (copyRegular(full, copy)) copies.push({ file, mode, copy })
      else leftOut.push({ file, why: 'it could not be read' })
    } else if (kind === 'directory') {
      // A submodule or a nested repository: its entry stays as the index has it (work inside is counted, not rescued).
    } else if (isSpecial(kind)) {
      leftOut.push({ file, why: kind === 'fifo' ? 'a named pipe' : kind === 'socket' ? 'a socket' : 'a device' })
    } else {
      entries.push(`0 ${'0'.repeat(idLength)}\t${file}`)
    }
  }
  // The copies have names of our own: one git reads them all, a line each.
  const ids = copies.length
    ? (await git.exec(['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: `${copies.map(c => c.copy).join('\n')}\n` })).split('\n')
    : []
  copies.forEach((c, i) => entries.push(`${c.mode} ${ids[i]}\t${c.file}`))
  if (entries.length) await git.exec(['update-index', '-z', '--index-info'], { input: entries.map(e => `${e}\0`).join('') })
  return leftOut
}

const OVER_LIMIT = 'over the size limit'

/** The largest changed files, until the rest fit in `limit` bytes. */
function overLimit(folder: string, files: string[], limit: number): LeftOut[] {
  const sizes = files.map(file => ({ file, size: fs.lstatSync(path.join(folder, file), { throwIfNoEntry: false })?.size ?? 0 })).sort((a, b) => b.size - a.size)
  let total = sizes.reduce((sum, s) => sum + s.size, 0)
  const out: LeftOut[] = []
  for (const { file, size } of sizes) {
    if (total <= limit) break
    out.push({ file, why: OVER_LIMIT })
    total -= size
  }
  return out
}

/** Copies the snapshot off the machine, to each target, within the time limit. */
export async function rescue(
  snapshot: Snapshot | string,
  evidence: Evidence,
  targets: RescueTarget[],
  repo: Repository,
  env: NodeJS.ProcessEnv = process.env
): Promise<RescueResult> {
  if (typeof snapshot === 'string') return { targets, unmade: snapshot, failures: [] }
  const result: RescueResult = { targets, snapshot, failures: [] }
  const deadline = Date.now() + RESCUE_TIME_LIMIT_MS
  if (targets.includes('branch')) {
    const pushed = await pushBranch(repo, snapshot, evidence, deadline)
    if ('cause' in pushed) result.failures.push({ target: 'branch', ...pushed })
    else result.branch = pushed
  }
  if (targets.includes('artifact')) {
    const uploaded = await uploadArtifact(repo.git, repo.commonDir, snapshot, evidence, deadline, env)
    if ('cause' in uploaded) result.failures.push({ target: 'artifact', ...uploaded })
    else result.artifact = uploaded
  }
  return result
}

/**
 * Pushes the snapshot, and nothing else, to the URL the remote had at enter: from a sealed view, so that no
 * setting of the repository (a receive-pack or ssh command, a push URL, insteadOf, push options, follow-tags,
 * a proxy) takes part, with only the credentials the repository had for it at enter. The branch must not
 * exist yet: a ref that is not ours is never overwritten.
 */
async function pushBranch(
  repo: Repository,
  snapshot: Snapshot,
  evidence: Evidence,
  deadline: number
): Promise<{ remote: string; name: string } | Omit<RescueFailure, 'target'>> {
  const target = evidence.believed.push
  if (!target) return { cause: evidence.source === 'hint' ? 'unsealed' : 'no-remote', said: '' }
  const branch = rescueName(evidence, '/')
  const headers = await credentialHeaders(repo.git, target)
  const view = openView({ objects: path.join(repo.commonDir, 'objects'), head: snapshot.commit })
  try {
    const settings = [
      'push.pushOption=',
      'push.followTags=false',
      'push.negotiate=false',
      'push.recurseSubmodules=no',
      // The ssh command of enter (or plain ssh): one a config file names now (a global one the job's environment
      // points at) takes no part.
      `core.sshCommand=${target.sshCommand ?? 'ssh'}`
    ].flatMap(setting => ['-c', setting])
    const pushed = await view.git.run(
      [
        ...settings,
        'push',
        '--no-verify',
        '--no-follow-tags',
        '--no-signed',
        '--recurse-submodules=no',
        '--progress',
        `--force-with-lease=refs/heads/${branch}:`,
        '--end-of-options',
        target.url,
        `${snapshot.commit}:refs/heads/${branch}`
      ],
      // The transports a push to the remote of enter may take: never one that runs a command (ext::, fd::,
      // a remote helper), whatever a global config says.
      { env: { ...configEnvironment(headers), GIT_ALLOW_PROTOCOL: 'https:http:ssh:git:file' }, stallMs: STALL_MS, deadline, interruptible: true, remote: true }
    )
    if (pushed.exitCode !== 0) {
      const said = pushed.stderr.split(/[\r\n]+/).filter(line => /^(remote:|error:|fatal:| ! |To |git stopped)/.test(line.trim()))
      return { cause: 'refused', said: `git push ${target.remote} ${branch} failed: ${said.join(' ').trim() || `exit code ${pushed.exitCode}`}` }
    }
    return { remote: target.remote, name: branch }
  } finally {
    view.dispose()
  }
}

/**
 * The http.<url>.extraheader settings the repository had at enter, read now: from its own config (the keys
 * recorded at enter) and from the credentials files it included. Only extraheader keys are taken from those
 * files: nothing else in them is read as configuration.
 */
async function credentialHeaders(git: Git, target: PushTarget): Promise<[string, string][]> {
  const headers: [string, string][] = []
  const read = async (args: string[]): Promise<void> => {
    const listed = await git.run(['config', '-z', ...args])
    if (listed.exitCode !== 0) return
    for (const entry of listed.stdout.split('\0').filter(Boolean)) {
      const newline = entry.indexOf('\n')
      if (newline > 0 && /^http\..+\.extraheader$/i.test(entry.slice(0, newline))) headers.push([entry.slice(0, newline), entry.slice(newline + 1)])
    }
  }
  for (const key of target.headerKeys) await read(['--local', '--get-regexp', `^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`])
  for (const file of target.credentialFiles) await read(['--file', file, '--get-regexp', '^http\\..+\\.extraheader$'])
  return headers
}

/** Settings handed to one git call through its environment (git 2.31): not on its command line, which any process can read. */
function configEnvironment(settings: [string, string][]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) }
  settings.forEach(([key, value], i) => Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: key, [`GIT_CONFIG_VALUE_${i}`]: value }))
  return env
}

/** The worktree's name as it may stand in a ref and a command: a name from a record file is only a hint. */
export function rescueLabel(record: Pick<WorktreeRecord, 'name'>): string {
  return (
    record.name
      .replaceAll('/', '+')
      .replace(/[^A-Za-z0-9._+-]/g, '-')
      .replace(/\.\.+/g, '.')
      .replace(/^[.-]+/, '') || 'worktree'
  )
}

/** agent-worktree-rescue/<name>/<job>-<run>-<attempt>, or with `-` for an artifact name, which may not hold `/`. */
export function rescueName(record: Pick<WorktreeRecord, 'name' | 'owner'>, separator: '/' | '-'): string {
  const run = record.owner.run || `local-${Date.parse(record.owner.since) || Date.now()}`
  const tail = (record.owner.job ? `${record.owner.job}-${run}` : run).replace(/[^A-Za-z0-9._-]/g, '-')
  return ['agent-worktree-rescue', rescueLabel(record), tail].join(separator)
}

async function uploadArtifact(
  git: Git,
  commonDir: string,
  snapshot: Snapshot,
  record: Pick<WorktreeRecord, 'name' | 'path' | 'owner'>,
  deadline: number,
  env: NodeJS.ProcessEnv
): Promise<{ name: string; url?: string } | Omit<RescueFailure, 'target'>> {
  const dir = fs.mkdtempSync(path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-worktree-rescue-'))
  try {
    const bundle = path.join(dir, 'rescue.bundle')
    const patch = path.join(dir, 'rescue.patch')
    // Commits on the remotes' branches are left out: a clone has them. (Not those of other remote-tracking
    // refs, such as a pull request's merge commit, which a clone lacks.)
    const remotes = (await git.exec(['remote'])).split('\n').filter(Boolean)
    const made = await git.run(['bundle', 'create', '--quiet', bundle, snapshot.ref, '--not', ...remotes.map(r => `--remotes=${r}/*`)], {
      deadline,
      interruptible: true
    })
    if (made.exitCode !== 0) return { cause: 'other', said: `git bundle failed: ${made.stderr.trim()}` }
    // Through a view: the repository's diff settings (drivers, submodule logs) take no part.
    const view = openView({ objects: path.join(commonDir, 'objects'), head: snapshot.commit })
    const diff = await view.git
      .run(['diff', '--no-ext-diff', '--no-textconv', '--binary', '--ignore-submodules=all', snapshot.base, snapshot.commit], { deadline, interruptible: true })
      .finally(() => view.dispose())
    fs.writeFileSync(patch, diff.exitCode === 0 ? diff.stdout : '')
    fs.writeFileSync(
      path.join(dir, 'README.txt'),
      [
        `Unsaved work of the worktree ${record.name} (${record.path}), kept by agent-worktree.`,
        '',
        `rescue.bundle holds ${snapshot.ref}, commit ${snapshot.commit}: its files are the worktree as it was left;`,
        'its first parent is where HEAD was; further parents hold the index and commits HEAD did not reach.',
        'In a clone of the repository:',
        `  git fetch rescue.bundle ${shellQuote(snapshot.ref)} && git switch -c rescued FETCH_HEAD`,
        `rescue.patch is the same work as a patch against ${snapshot.base}: git apply --index rescue.patch`,
        ''
      ].join('\n')
    )
    const name = rescueName(record, '-')
    const upload = (async () => {
      // Loaded only when a rescue uploads: the client is most of a bundle's size.
      const { DefaultArtifactClient } = await import('@actions/artifact')
      return new DefaultArtifactClient().uploadArtifact(name, [bundle, patch, path.join(dir, 'README.txt')], dir, { compressionLevel: 0 })
    })()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not finish within ${Math.round(RESCUE_TIME_LIMIT_MS / 1000)} s`)), Math.max(0, deadline - Date.now()))
    })
    try {
      const response = await Promise.race([upload, timeout])
      const url =
        response.id && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
          ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}/artifacts/${response.id}`
          : undefined
      return { name, url }
    } finally {
      clearTimeout(timer)
    }
  } catch (error) {
    const said = (error as Error).message
    const cause = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(said) ? 'no-service' : /GHES|not currently supported/.test(said) ? 'ghes' : 'other'
    return { cause, said }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
