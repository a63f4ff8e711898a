// Rescue: a kept worktree's unsaved work, copied into one commit and, where asked, off the machine
// (a GitHub-hosted runner deletes the machine, kept worktree and all, a minute after the job). The copy
// never changes what happens to the worktree, and a rescue that fails is a warning, never an error.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from './git-command-manager.js'
import type { RescueTarget } from './input-helper.js'
import type { Repository } from './repository.js'
import { indexCopy, pinnedGit, type Findings } from './safety-gate.js'
import type { WorktreeRecord } from './state-helper.js'

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

export interface Snapshot {
  /** One commit that holds it all: the files as the agent left them; parents HEAD, the index, and every other unsaved commit. */
  commit: string
  /** The local ref that keeps it alive while the worktree is kept. */
  ref: string
  /** Changed files over the size limit, not in the commit. */
  leftOut: string[]
  base: string
}

export interface RescueResult {
  snapshot?: Snapshot
  /** The work left the machine (by at least one target). */
  rescued: boolean
  /** The branch pushed to the remote. */
  branch?: string
  remote?: string
  /** The workflow artifact uploaded. */
  artifact?: string
  artifactUrl?: string
  /** Why a target failed, or what was left out: each one a warning. */
  problems: string[]
  /** The commands that bring the work back into a clone. */
  restore: string[]
  /** One or two sentences for the message. */
  summary: string
}

/**
 * Builds the snapshot commit without touching the worktree: its files, index, HEAD and branch stay as
 * they are. The files go through a temporary index (tracked files as on disk, deletions, modes, links,
 * untracked files that are not ignored); the largest changed files beyond the size limit are left out.
 */
export async function keepSnapshot(input: {
  repo: Repository
  record: WorktreeRecord
  gitDir: string
  folder?: string
  findings: Findings
}): Promise<Snapshot | string> {
  const { repo, record, gitDir, folder, findings } = input
  const git = pinnedGit(gitDir, folder, record.fileMode, record.pinned)
  const head = findings.head!
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-snapshot-'))
  try {
    const headTree = (await git.exec(['rev-parse', `${head}^{tree}`])).trim()
    let tree = headTree
    let indexTree: string | undefined
    const leftOut: string[] = []
    if (folder) {
      const hasIndex = fs.existsSync(path.join(gitDir, 'index'))
      const sparse = fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout'))
      const env = hasIndex ? await indexCopy(git, gitDir, folder, sparse, temp) : { GIT_INDEX_FILE: path.join(temp, 'index') }
      if (hasIndex) indexTree = (await git.run(['write-tree'], { env })).stdout.trim() || undefined
      else await git.exec(['read-tree', head], { env })
      // Listed here, not taken from the findings: with no index they list nothing, and a folder behind a
      // .gitignore that hides itself shows there only as that .gitignore.
      const list = async (args: string[]): Promise<string[]> => (await git.exec(args, { env })).split('\0').filter(Boolean)
      const hiding = findings.uncommitted
        .filter(entry => entry === '?? .gitignore' || (entry.startsWith('?? ') && entry.endsWith('/.gitignore')))
        .map(entry => `:(literal)${path.posix.dirname(entry.slice(3))}`)
      const changed = new Set([
        ...(await list(['diff-files', '-z', '--name-only'])),
        ...(await list(['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore'])),
        ...(hiding.length ? await list(['ls-files', '-z', '--others', '--', ...hiding]) : [])
      ])
      // The links symlink-dirs made are the job's, not the agent's work.
      for (const link of record.links ?? []) if (fs.lstatSync(path.join(folder, link), { throwIfNoEntry: false })?.isSymbolicLink()) changed.delete(link)
      leftOut.push(...overLimit(folder, [...changed], record.rescueMaxBytes))
      await stageAsOnDisk(
        git,
        env,
        folder,
        [...changed].filter(file => !leftOut.includes(file)),
        record.fileMode,
        head.length
      )
      tree = (await git.exec(['write-tree'], { env })).trim()
    }
    const parents = [head]
    const notes = [`Parent 1: HEAD (${head.slice(0, 12)}), where the agent was.`]
    if (indexTree && indexTree !== headTree && indexTree !== tree) {
      parents.push((await git.exec(['commit-tree', indexTree, '-p', head, '-m', 'agent-worktree: the index (staged changes)'], { env: IDENTITY })).trim())
      notes.push(`Parent ${parents.length}: the index, with the staged changes.`)
    }
    const others = findings.tips.filter(tip => tip !== head)
    if (others.length) {
      const independent = (await git.exec(['merge-base', '--independent', head, ...others])).split('\n').filter(tip => tip && tip !== head)
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
      ...(leftOut.length ? [`Left out (over the size limit of ${record.rescueMaxBytes} bytes): ${leftOut.join(', ')}`] : []),
      `Job: run ${record.owner.run || '-'}, job ${record.owner.job || '-'}, runner ${record.owner.runner || '-'}.`
    ].join('\n')
    const commit = (await git.exec(['commit-tree', tree, ...parents.flatMap(p => ['-p', p]), '-F', '-'], { env: IDENTITY, input: message })).trim()
    const ref = keptRef(gitDir, record.token)
    await repo.git.exec(['update-ref', '-m', 'agent-worktree: kept', ref, commit])
    return { commit, ref, leftOut, base: record.baseSha || head }
  } catch (error) {
    return (error as Error).message
  } finally {
    fs.rmSync(temp, { recursive: true, force: true })
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
  const packed = (() => {
    try {
      return fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8').includes(` ${ref}\n`)
    } catch {
      return false
    }
  })()
  if (packed || fs.existsSync(path.join(commonDir, ...ref.split('/')))) await git.run(['update-ref', '-d', ref])
}

/**
 * Puts the files into the temporary index exactly as they are on disk: no clean filter (LFS, line
 * endings) changes a byte, so a restore gets back what the agent left. Links are stored as links, a
 * missing file as a deletion.
 */
async function stageAsOnDisk(git: Git, env: Record<string, string>, folder: string, files: string[], fileMode: boolean, idLength: number): Promise<void> {
  const entries: string[] = []
  const regular: { file: string; mode: string }[] = []
  for (const file of files) {
    const full = path.join(folder, file)
    const stat = fs.lstatSync(full, { throwIfNoEntry: false })
    if (stat?.isSymbolicLink()) {
      const id = (await git.exec(['hash-object', '-w', '--stdin'], { env, input: fs.readlinkSync(full) })).trim()
      entries.push(`120000 ${id}\t${file}`)
    } else if (stat?.isFile()) {
      regular.push({ file, mode: fileMode && stat.mode & 0o111 ? '100755' : '100644' })
    } else if (stat?.isDirectory()) {
      // A submodule or a nested repository: its entry stays as the index has it (work inside is counted, not rescued).
    } else {
      entries.push(`0 ${'0'.repeat(idLength)}\t${file}`)
    }
  }
  // One git for every name it reads a line at a time as it is; one each for the others (a newline, a
  // carriage return, which it strips, or a leading quote, which it takes for C quoting).
  const oneAtATime = (file: string): boolean => /[\n\r]|^"/.test(file)
  const plain = regular.filter(r => !oneAtATime(r.file))
  const ids = plain.length
    ? (await git.exec(['hash-object', '-w', '--no-filters', '--stdin-paths'], { env, input: `${plain.map(r => r.file).join('\n')}\n` })).split('\n')
    : []
  plain.forEach((r, i) => entries.push(`${r.mode} ${ids[i]}\t${r.file}`))
  for (const r of regular.filter(r => oneAtATime(r.file))) {
    const id = (await git.exec(['hash-object', '-w', '--no-filters', '--stdin'], { env, input: fs.readFileSync(path.join(folder, r.file)) })).trim()
    entries.push(`${r.mode} ${id}\t${r.file}`)
  }
  if (entries.length) await git.exec(['update-index', '-z', '--index-info'], { env, input: entries.map(e => `${e}\0`).join('') })
}

/** The largest changed files, until the rest fit in `limit` bytes. */
function overLimit(folder: string, files: string[], limit: number): string[] {
  const sizes = files.map(file => ({ file, size: fs.lstatSync(path.join(folder, file), { throwIfNoEntry: false })?.size ?? 0 })).sort((a, b) => b.size - a.size)
  let total = sizes.reduce((sum, s) => sum + s.size, 0)
  const out: string[] = []
  for (const { file, size } of sizes) {
    if (total <= limit) break
    out.push(file)
    total -= size
  }
  return out
}

/** Copies the snapshot off the machine, to each target, within the time limit. */
export async function rescue(
  snapshot: Snapshot | string,
  record: WorktreeRecord,
  targets: RescueTarget[],
  git: Git,
  env: NodeJS.ProcessEnv = process.env
): Promise<RescueResult> {
  if (typeof snapshot === 'string') {
    return { rescued: false, problems: [`No rescue: the snapshot of the work could not be made (${snapshot}).`], restore: [], summary: '' }
  }
  const result: RescueResult = { snapshot, rescued: false, problems: [], restore: [], summary: '' }
  if (snapshot.leftOut.length)
    result.problems.push(`Rescue: left out ${snapshot.leftOut.length} file(s) over the size limit: ${snapshot.leftOut.slice(0, 10).join(', ')}.`)
  const deadline = Date.now() + RESCUE_TIME_LIMIT_MS
  const where: string[] = []
  if (targets.includes('branch')) {
    const pushed = await pushBranch(git, snapshot, record, deadline)
    if (typeof pushed === 'string') result.problems.push(`Rescue to a branch failed: ${pushed}`)
    else {
      Object.assign(result, pushed, { rescued: true })
      where.push(`pushed to the branch ${pushed.branch} of ${pushed.remote}`)
      result.restore.push(`git fetch ${pushed.remote} ${pushed.branch} && git switch -c ${record.name.replaceAll('/', '+')}-rescued FETCH_HEAD`)
    }
  }
  if (targets.includes('artifact')) {
    const uploaded = await uploadArtifact(git, snapshot, record, deadline, env)
    if (typeof uploaded === 'string') result.problems.push(`Rescue to an artifact failed: ${uploaded}`)
    else {
      Object.assign(result, uploaded, { rescued: true })
      where.push(`uploaded as the artifact ${uploaded.artifact}`)
      const repoFlag = env.GITHUB_REPOSITORY ? ` --repo ${env.GITHUB_REPOSITORY}` : ''
      result.restore.push(
        `gh run download ${env.GITHUB_RUN_ID ?? '<run id>'}${repoFlag} --name ${uploaded.artifact} --dir rescue && git fetch rescue/rescue.bundle ${snapshot.ref} && git switch -c ${record.name.replaceAll('/', '+')}-rescued FETCH_HEAD`
      )
    }
  }
  const local = `Its unsaved work is in commit ${snapshot.commit.slice(0, 12)} (${snapshot.ref})`
  result.summary = where.length
    ? `${local}, ${where.join(' and ')}. To bring it back into a clone: ${result.restore.join('; or ')}. The commit's files are the worktree as left; git reset --soft HEAD^ turns them back into uncommitted changes.`
    : `${local}.${targets.length ? '' : ' Nothing was copied off this machine (rescue: none).'}`
  return result
}

async function pushBranch(git: Git, snapshot: Snapshot, record: WorktreeRecord, deadline: number): Promise<{ branch: string; remote: string } | string> {
  const remotes = (await git.exec(['remote'])).split('\n').filter(Boolean)
  const remote = remotes.includes('origin') ? 'origin' : remotes[0]
  if (!remote) return 'the repository has no remote to push to.'
  const branch = rescueName(record, '/')
  const pushed = await git.run(['push', '--no-verify', '--progress', remote, `${snapshot.commit}:refs/heads/${branch}`], {
    stallMs: STALL_MS,
    deadline,
    interruptible: true
  })
  if (pushed.exitCode !== 0) {
    const said = pushed.stderr.split(/[\r\n]+/).filter(line => /^(remote:|error:|fatal:| ! |To |git stopped)/.test(line.trim()))
    return `git push ${remote} ${branch} failed: ${said.join(' ').trim() || `exit code ${pushed.exitCode}`}. Give the job contents: write permission and actions/checkout's persisted credentials, or use rescue: artifact.`
  }
  return { branch, remote }
}

/** agent-worktree-rescue/<name>/<run>-<attempt>, or with `-` for an artifact name, which may not hold `/`. */
export function rescueName(record: WorktreeRecord, separator: '/' | '-'): string {
  const run = record.owner.run || `local-${Date.parse(record.owner.since) || Date.now()}`
  return ['agent-worktree-rescue', record.name.replaceAll('/', '+'), record.owner.job ? `${record.owner.job}-${run}` : run].join(separator)
}

async function uploadArtifact(
  git: Git,
  snapshot: Snapshot,
  record: WorktreeRecord,
  deadline: number,
  env: NodeJS.ProcessEnv
): Promise<{ artifact: string; artifactUrl?: string } | string> {
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
    if (made.exitCode !== 0) return `git bundle failed: ${made.stderr.trim()}`
    const diff = await git.run(['diff', '--no-ext-diff', '--no-textconv', '--binary', snapshot.base, snapshot.commit], { deadline, interruptible: true })
    fs.writeFileSync(patch, diff.exitCode === 0 ? diff.stdout : '')
    fs.writeFileSync(
      path.join(dir, 'README.txt'),
      [
        `Unsaved work of the worktree ${record.name} (${record.path}), kept by agent-worktree.`,
        '',
        `rescue.bundle holds ${snapshot.ref}, commit ${snapshot.commit}: its files are the worktree as it was left;`,
        'its first parent is where HEAD was; further parents hold the index and commits HEAD did not reach.',
        'In a clone of the repository:',
        `  git fetch rescue.bundle ${snapshot.ref} && git switch -c rescued FETCH_HEAD`,
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
      return { artifact: name, artifactUrl: url }
    } finally {
      clearTimeout(timer)
    }
  } catch (error) {
    const text = (error as Error).message
    const hint = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(text)
      ? ' There is no artifact service here (not on a GitHub runner); use rescue: branch, or none.'
      : /GHES|not currently supported/.test(text)
        ? ' GitHub Enterprise Server has no artifact service for this client; use rescue: branch.'
        : ''
    return `${text}.${hint}`
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
