// Finding a rescue to restore: the one named, or the one the previous attempt of this step left, fetched into a
// ref of this step's own and checked to be a snapshot commit, before anything is created. A rescue is agent-made
// data: git fetches and checks it, and every refusal is an input error that names the fix.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { STALL_MS, throwIfCancelled, type Git, type GitResult } from '../git/git-command-manager.js'
import { generatedNames } from '../record/names.js'
import { InputError, type RescueTarget, type RestoreRequest } from '../record/settings.js'
import type { Repository } from '../git/repository.js'
import { RESCUE_PREFIX, rescueLabel, rescueNames, rescueTail } from './names.js'
import { neededCommits } from './rescue.js'
import { fetchThroughView, openView, privateTemp, REMOTE_PROTOCOLS } from '../git/sealed-git.js'
import { extractEntry, zipEntries } from './artifact-zip.js'
import { parseSnapshotMessage, INDEX_SUBJECT, TRAILERS } from './snapshot-message.js'
import { dropKeptRef } from './snapshot.js'
import type { PushTarget } from '../record/state-helper.js'
import { kindOf, openRegular, plainPath, readSmall } from '../os/untrusted-files.js'
import { unlinkRefLinks, writeRef } from '../git/worktree-refs.js'
import { quoted } from '../os/quote.js'
import { storeObjects } from '../remote/lfs.js'

/** How long the artifact service may take to list and hand over a rescue. */
const RESTORE_TIME_LIMIT_MS = 5 * 60_000

/** A snapshot commit, as its parents and trailers describe it. */
export interface SnapshotCommit {
  commit: string
  /** The files as the agent left them. */
  tree: string
  /** Where HEAD was; undefined on a branch without a commit yet. */
  head?: string
  /** The branch HEAD was on (refs/heads/…); undefined when it was detached. */
  branch?: string
  /** The index, as it was staged. */
  index: string
  /** The base of the worktree it was made of. */
  base?: string
  /** Commits HEAD did not reach. */
  others: string[]
}

export interface Found {
  kind: RescueTarget
  name: string
  snapshot: SnapshotCommit
}

/** Why auto found nothing to restore: the attempt it is, and where it looked. */
export interface Nothing {
  attempt: number
  looked: RescueTarget[]
  /** Rescues of this step's name, job and leg that auto cannot prove are this step's: named, for a restore by name. */
  left: { kind: RescueTarget; name: string }[]
}

export interface Lookup {
  found?: Found
  nothing?: Nothing
  /** Deletes the ref the rescue was fetched into: once restored, the worktree's own refs hold what it needs. */
  dispose(): Promise<void>
}

export interface LookupContext {
  /** The ref of this step's own to fetch the rescue into (restoreRef), saved in the step's state before. */
  ref: string
  /** Where the remote of enter is: a branch rescue is fetched from it, and commits a bundle builds on. */
  push?: PushTarget
  /** Where this step rescues: where the same step of an earlier attempt did. */
  rescue: RescueTarget[]
  /** The name input, when given: the rescue of an earlier attempt bears it. */
  name?: string
  leg?: string
  env?: NodeJS.ProcessEnv
  /** This step's rescue-max-size: a rescue's artifact holds no more than that, its bundle and patch together. */
  maxBytes: number
}

const FIX = 'Restore a rescue that exists: the rescue-ref or rescue-artifact output of the exit that kept the work, as its message names it.'

/** Finds the rescue, fetches it into a ref of this step's own and checks it: every refusal is an input error. */
export async function findRescue(repo: Repository, request: RestoreRequest, context: LookupContext): Promise<Lookup> {
  const { ref } = context
  const dispose = (): Promise<void> => dropKeptRef(repo.git, repo.commonDir, ref)
  try {
    const chosen = request === 'auto' ? await previousRescue(repo, context) : request
    if ('attempt' in chosen) return { nothing: chosen, dispose }
    const input = request === 'auto' ? 'restore (auto)' : 'restore'
    if (chosen.kind === 'branch') await fetchBranch(repo, chosen.name, ref, context.push, input)
    else await fetchArtifact(repo, chosen.name, ref, context, input)
    const snapshot = await readSnapshot(repo.git, ref)
    if (!snapshot)
      throw new InputError(input, chosen.name, `it is not a rescue: its commit is not a snapshot agent-worktree made (no ${TRAILERS.head} trailers)`, FIX)
    return { found: { ...chosen, snapshot }, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The rescue the same step (its name, or a generated one of that attempt), leg and job left in the previous
 * attempt of this run, restored only where it is proven this step's. The proof is the artifact service: it holds
 * the artifacts of this run alone, and only a step holding the job's runtime token (never a `run:` step, never an
 * agent) uploads there. A branch anyone who may push could have made (a forged `-take9`), and two artifacts of one
 * name (a reusable workflow called twice in one job, a worktree entered again) cannot be told apart: they are named
 * and left, for a restore by name.
 */
async function previousRescue(repo: Repository, context: LookupContext): Promise<{ kind: RescueTarget; name: string } | Nothing> {
  const env = context.env ?? process.env
  const attempt = Number(env.GITHUB_RUN_ATTEMPT) || 1
  if (!env.GITHUB_RUN_ID || attempt < 2) return { attempt: 1, looked: [], left: [] }
  const previous = attempt - 1
  const label = context.name === undefined ? generatedNames(env, previous) : escapeRegExp(rescueLabel({ name: context.name }))
  const tail = escapeRegExp(rescueTail({ job: env.GITHUB_JOB ?? '', run: `${env.GITHUB_RUN_ID}-${previous}`, since: '' }, context.leg))
  const looked = (['branch', 'artifact'] as const).filter(kind => context.rescue.includes(kind))
  const named = (kind: RescueTarget, names: string[]): string[] => {
    const separator = kind === 'branch' ? '/' : '-'
    const pattern = rescueNames(separator, label, tail)
    return names.filter(name => pattern.test(name)).sort()
  }
  const artifacts = looked.includes('artifact') ? named('artifact', await artifactNames().catch(noService)) : []
  if (artifacts.length === 1) return { kind: 'artifact', name: artifacts[0] }
  const branches = looked.includes('branch') ? named('branch', await rescueBranches(repo, context.push)) : []
  const left = [...artifacts.map(name => ({ kind: 'artifact' as const, name })), ...branches.map(name => ({ kind: 'branch' as const, name }))]
  return { attempt, looked, left }
}

/** No artifact service here (act, GHES): no artifact of this run to find. Any other refusal fails the step, as it did. */
function noService(error: Error): string[] {
  if (/There is no artifact service here|has no artifact service/.test(error.message)) return []
  throw error
}

/** The rescue branches on the remote of enter, listed from a view: no setting of the repository's takes part. */
async function rescueBranches(repo: Repository, push: PushTarget | undefined): Promise<string[]> {
  if (!push) return []
  const view = openView({ objects: path.join(repo.commonDir, 'objects') })
  const listed = await view.git
    .run(['ls-remote', '--refs', '--end-of-options', push.url, `refs/heads/${RESCUE_PREFIX}/*`], {
      stallMs: STALL_MS,
      interruptible: true,
      remote: true,
      env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }
    })
    .finally(() => view.dispose())
  if (listed.exitCode !== 0) {
    throwIfCancelled()
    throw new Error(`git ls-remote ${quoted(push.remote)} failed: ${lastWords(listed.stderr)}. Check that the remote answers and that the job may read it.`)
  }
  return listed.stdout
    .split('\n')
    .map(line => line.slice(line.indexOf('\t') + 1))
    .filter(ref => ref.startsWith('refs/heads/'))
    .map(ref => ref.slice('refs/heads/'.length))
}

/** Git's last words, on one line. */
export function lastWords(stderr: string): string {
  return stderr.trim().split('\n').slice(-2).join(' ')
}

/** Fetches one branch of the remote of enter into `ref`: no tags, no submodules, watched for a stall. */
async function fetchBranch(repo: Repository, name: string, ref: string, push: PushTarget | undefined, input: string): Promise<void> {
  if (!push)
    throw new InputError(
      input,
      name,
      'the repository had no remote when the step entered, and a branch rescue is fetched from it',
      'Check out the repository with its remote, or restore an artifact.'
    )
  const valid = await repo.git.run(['check-ref-format', `refs/heads/${name}`])
  if (valid.exitCode !== 0) throw new InputError(input, name, 'git refuses it as the name of a branch', FIX)
  const fetched = await fetchFrom(repo, push, [`+refs/heads/${name}:${ref}`])
  if (fetched.exitCode === 0) return
  throwIfCancelled()
  if (/couldn't find remote ref/i.test(fetched.stderr)) throw new InputError(input, name, `${quoted(push.remote)} has no such branch`, FIX)
  throw new Error(
    `git fetch ${quoted(push.remote)} ${quoted(name)} failed: ${lastWords(fetched.stderr)}. Check that the remote answers and that the job may read it.`
  )
}

/**
 * A fetch of `what` from the remote of enter, through a view (fetchThroughView), telling it the commits this clone
 * has: no tags, no submodules, no FETCH_HEAD, watched for a stall. The refs it fetched into are set here.
 */
async function fetchFrom(repo: Repository, push: PushTarget, what: string[], options: string[] = []): Promise<GitResult> {
  const haves = (await repo.git.exec(['for-each-ref', '--format=%(objectname)', 'refs/remotes/'])).split('\n').filter(Boolean)
  const head = await repo.git.resolveCommit('HEAD')
  const { result, refs } = await fetchThroughView(
    repo.commonDir,
    { haves: head ? [head, ...haves] : haves },
    [...options, '--end-of-options', push.url, ...what],
    {
      stallMs: STALL_MS,
      env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }
    }
  )
  for (const [ref, id] of refs) await writeRef(repo.git, ref, id, { log: repo.commonDir, required: true })
  return result
}

type ArtifactClient = InstanceType<(typeof import('@actions/artifact'))['DefaultArtifactClient']>

// Loaded only when a restore reads artifacts: the client is most of a bundle's size.
async function artifactClient(): Promise<ArtifactClient> {
  const { DefaultArtifactClient } = await import('@actions/artifact')
  return new DefaultArtifactClient()
}

/** What the artifact service answers, within the time limit; its refusal as an error that says what to do. */
async function service<T>(call: (client: ArtifactClient) => Promise<T>, name: string, input: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not answer within ${RESTORE_TIME_LIMIT_MS / 1000} s`)), RESTORE_TIME_LIMIT_MS)
  })
  try {
    return await Promise.race([artifactClient().then(call), timeout])
  } catch (error) {
    const said = (error as Error).message
    if ((error as Error).name === 'ArtifactNotFoundError') throw new InputError(input, name, 'this run has no artifact of that name', FIX)
    const hint = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(said)
      ? ' There is no artifact service here (not on a GitHub runner): restore a branch.'
      : /GHES|not currently supported/.test(said)
        ? ' GitHub Enterprise Server has no artifact service for this client: restore a branch.'
        : ' An artifact of an earlier attempt may not be readable there: rescue to a branch too (rescue: artifact,branch).'
    throw new Error(`The artifact service could not hand over ${quoted(name)}: ${said.split('\n')[0]}.${hint}`, { cause: error })
  } finally {
    clearTimeout(timer)
  }
}

async function artifactNames(): Promise<string[]> {
  const { artifacts } = await service(client => client.listArtifacts({ latest: true }), 'the list of artifacts', 'restore (auto)')
  return artifacts.map(artifact => artifact.name)
}

/**
 * Downloads the artifact into a folder of this step's own, checks that it holds a bundle of one ref, fetches
 * from the remote what that bundle builds on and this clone lacks (a depth-1 checkout, a pull request's merge
 * commit), then that one ref into `ref`.
 */
async function fetchArtifact(repo: Repository, name: string, ref: string, { push, maxBytes }: LookupContext, input: string): Promise<void> {
  const dir = privateTemp('agent-worktree-restore-')
  try {
    const { artifact } = await service(client => client.getArtifact(name), name, input)
    // Told before the download: a name that is not a rescue's may be a build's gigabytes. A megabyte for the README and the zip.
    if (artifact.size > maxBytes + 1024 * 1024)
      throw new InputError(
        input,
        name,
        `its artifact is ${(artifact.size / 1024 / 1024).toFixed(1)} MB, more than a rescue within this step's rescue-max-size holds`,
        "Set rescue-max-size here as large as the rescuing step's, or restore its branch."
      )
    await unpack(await service(() => downloadZip(artifact.id, dir), name, input), dir, maxBytes, name, input)
    const bundle = path.join(dir, 'rescue.bundle')
    const header = bundleHeader(bundle)
    if (!header) throw new InputError(input, name, 'it is not a rescue: it holds no git bundle rescue.bundle', FIX)
    if (header.refs.length !== 1) throw new InputError(input, name, `it is not a rescue: its bundle holds ${header.refs.length} refs, a rescue one`, FIX)
    await fetchMissing(repo, name, push, header.prerequisites, input)
    const verified = await repo.git.run(['bundle', 'verify', '--quiet', bundle])
    if (verified.exitCode !== 0) throw new InputError(input, name, `git cannot take its bundle: ${lastWords(verified.stderr)}`, FIX)
    unlinkRefLinks(repo.commonDir, ref)
    const fetch = (): Promise<GitResult> =>
      repo.git.run(
        ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--end-of-options', bundle, `+${header.refs[0]}:${ref}`],
        {
          env: { GIT_ALLOW_PROTOCOL: 'file' },
          interruptible: true
        }
      )
    let fetched = await fetch()
    // A shallow commit in the bundle (a pull request's merge commit this clone lacks) needs the parents its README names.
    const needs = fetched.exitCode === 0 ? [] : neededCommits(readSmall(path.join(dir, 'README.txt')) ?? '')
    if (needs.length && (await fetchMissing(repo, name, push, needs, input))) fetched = await fetch()
    if (fetched.exitCode !== 0) {
      throwIfCancelled()
      throw new InputError(input, name, `git cannot take its bundle: ${lastWords(fetched.stderr)}`, FIX)
    }
    storeObjects(path.join(dir, 'lfs', 'objects'), repo.commonDir, lfsEntries(dir))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The artifact's zip as it is, in a folder of its own under `dir`: the client unpacks nothing. */
async function downloadZip(id: number, dir: string): Promise<string> {
  const folder = path.join(dir, 'zip')
  fs.mkdirSync(folder)
  await (await artifactClient()).downloadArtifact(id, { path: folder, skipDecompress: true })
  const [file] = fs.readdirSync(folder)
  if (!file) throw new Error('the service handed over nothing')
  return path.join(folder, file)
}

/**
 * Unpacks what a restore reads of a rescue's zip (its bundle and README) into `dir`, and only when what the zip
 * says it holds fits in what a rescue within this step's rescue-max-size holds (a megabyte more for the README).
 */
async function unpack(zip: string, dir: string, maxBytes: number, name: string, input: string): Promise<void> {
  const entries = zipEntries(zip)
  if (!entries) throw new InputError(input, name, 'it is not a rescue: its artifact is not a zip a rescue makes', FIX)
  const held = entries.reduce((sum, entry) => sum + entry.size, 0)
  if (held > maxBytes + 1024 * 1024)
    throw new InputError(
      input,
      name,
      `its artifact unpacks to ${(held / 1024 / 1024).toFixed(1)} MB, more than a rescue within this step's rescue-max-size holds`,
      "Set rescue-max-size here as large as the rescuing step's, or restore its branch."
    )
  for (const entry of entries.filter(e => e.name === 'rescue.bundle' || e.name === 'README.txt' || LFS_ENTRY.test(e.name))) {
    if (LFS_ENTRY.test(entry.name)) fs.mkdirSync(path.join(dir, path.dirname(entry.name)), { recursive: true })
    await extractEntry(zip, entry, path.join(dir, entry.name))
  }
  fs.rmSync(zip)
}

/** A Git LFS object in a rescue's zip: lfs/objects/xx/yy/<oid>, its folders the oid's first four digits. */
const LFS_ENTRY = /^lfs\/objects\/([0-9a-f]{2})\/([0-9a-f]{2})\/(\1\2[0-9a-f]{60})$/

/** The oids of the LFS objects unpacked into `dir`. */
export function lfsEntries(dir: string): string[] {
  const store = path.join(dir, 'lfs', 'objects')
  if (kindOf(store) !== 'directory') return []
  return fs
    .readdirSync(store, { recursive: true, encoding: 'utf8' })
    .flatMap(file => LFS_ENTRY.exec(`lfs/objects/${file.split(path.sep).join('/')}`)?.[3] ?? [])
}

/** The refs and prerequisites a git bundle names in its header; undefined when the file is not one. */
function bundleHeader(file: string): { refs: string[]; prerequisites: string[] } | undefined {
  const fd = openRegular(file)
  if (fd === undefined) return undefined
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1')
    const lines = text.slice(0, Math.max(0, text.indexOf('\n\n'))).split('\n')
    if (!/^# v[23] git bundle$/.test(lines[0])) return undefined
    const header = { refs: [] as string[], prerequisites: [] as string[] }
    for (const line of lines.slice(1).filter(l => !l.startsWith('@'))) {
      const match = /^(-?)([0-9a-f]{40}(?:[0-9a-f]{24})?)(?: (.*))?$/.exec(line)
      if (!match || (!match[1] && !/^refs\/[^\s:]+$/.test(match[3] ?? ''))) return undefined
      if (match[1]) header.prerequisites.push(match[2])
      else header.refs.push(match[3])
    }
    return header
  } finally {
    fs.closeSync(fd)
  }
}

/** Fetches from the remote of enter the commits of `ids` this clone lacks (a shallow clone at depth 1); whether it fetched any. */
async function fetchMissing(repo: Repository, name: string, push: PushTarget | undefined, ids: string[], input: string): Promise<boolean> {
  if (!ids.length) return false
  const checked = (await repo.git.exec(['cat-file', '--batch-check'], { input: `${ids.join('\n')}\n` })).split('\n')
  const missing = ids.filter((_, i) => checked[i]?.endsWith(' missing'))
  if (!missing.length) return false
  const shown = missing.map(id => id.slice(0, 12)).join(', ')
  if (!push) throw new InputError(input, name, `it builds on commits this clone lacks (${shown}), and the repository has no remote to fetch them from`, FIX)
  const shallow = fs.existsSync(path.join(repo.commonDir, 'shallow'))
  const fetched = await fetchFrom(repo, push, missing, shallow ? ['--depth=1'] : [])
  if (fetched.exitCode === 0) return true
  throwIfCancelled()
  throw new InputError(
    input,
    name,
    `it builds on commits ${quoted(push.remote)} does not have (${shown}: ${lastWords(fetched.stderr)}), so it is not a rescue of this repository`,
    FIX
  )
}

/** Every path of an index tree is one git would check out: no "..", "." or empty segment, and no .git one. */
async function plainPaths(git: Git, tree: string): Promise<boolean> {
  const listed = await git.run(['ls-tree', '-r', '-z', '--name-only', '--full-tree', tree], { encoding: 'latin1' })
  return listed.exitCode === 0 && listed.stdout.split('\0').filter(Boolean).every(plainPath)
}

/** The snapshot commit at `ref`, when it is one: a rescue's subject, its trailers, HEAD its first parent, an index tree. */
async function readSnapshot(git: Git, ref: string): Promise<SnapshotCommit | undefined> {
  const read = await git.run(['cat-file', 'commit', ref])
  const split = read.stdout.indexOf('\n\n')
  if (read.exitCode !== 0 || split < 0) return undefined
  const headers = read.stdout.slice(0, split).split('\n')
  const tree = headers.find(h => h.startsWith('tree '))?.slice(5) ?? ''
  const parents = headers.filter(h => h.startsWith('parent ')).map(h => h.slice(7))
  const trailers = parseSnapshotMessage(read.stdout.slice(split + 2))
  if (!trailers || (trailers.head !== undefined && trailers.head !== parents[0])) return undefined
  const { head, branch, index, base } = trailers
  if ((await git.run(['cat-file', '-t', index])).stdout.trim() !== 'tree' || !(await plainPaths(git, index))) return undefined
  const rest = head === undefined ? parents : parents.slice(1)
  // The index parent is made for the rescue: the index itself holds what it holds.
  const described = rest.length ? (await git.exec(['log', '--no-walk=unsorted', '--format=%H %T %s', ...rest, '--'])).split('\n') : []
  const others = rest.filter((_, i) => described[i] !== `${rest[i]} ${index} ${INDEX_SUBJECT}`)
  return {
    commit: (await git.exec(['rev-parse', '--verify', `${ref}^{commit}`])).trim(),
    tree,
    head,
    branch,
    index,
    base,
    others
  }
}
