// isolation: clone. The agent gets a repository of its own at the worktree's place, which borrows the
// original's objects (git's alternates, as `git clone --shared` sets them up), so that its branches, tags,
// stash, config, hooks and index are its own. The original keeps two things per clone: a folder of ours
// beside its worktrees' git dirs, holding what a worktree's git dir holds for this action (the folder's
// path, the lock, the record), and a ref to a commit whose parents are every commit the clone borrowed when
// it was made, so that no gc or prune of the original drops what the clone stands on. What a kept clone made
// comes back into the original by a fetch from a view of the clone's objects, which reads none of its files
// but objects.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { STALL_MS, type Git } from '../git/git-command-manager.js'
import { samePath } from '../os/paths.js'
import { borrowedRef } from '../record/refs.js'
import { deleteRef, unlinkRefLinks, writeRef } from '../git/worktree-refs.js'
import { listConfig, type ConfigEntry, type Repository } from '../git/repository.js'
import { privateTemp, quote } from '../git/sealed-git.js'
import { CLONES_DIR, readRecordFile, type WorktreeRecord } from '../record/state-helper.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

/** Every clone folder of ours in the repository (<common dir>/agent-worktree-clones/*). */
export function cloneEntries(commonDir: string): string[] {
  const root = path.join(commonDir, CLONES_DIR)
  try {
    return fs.readdirSync(root).map(id => path.join(root, id))
  } catch {
    return []
  }
}

/**
 * The clone folder of ours in the original for the clone at `p`, found from the original's side: by the record
 * in it, which the caller proves before it believes, never by its gitdir, which no step reads again.
 */
export function cloneEntryOf(commonDir: string, p: string): string | undefined {
  return cloneEntries(commonDir).find(entry => {
    const folder = readRecordFile(entry)?.path
    return typeof folder === 'string' && samePath(folder, p)
  })
}

/**
 * Settings of the original's own config that stay with the original: its layout and format, its worktrees
 * and sparse settings, its hooks folder, branches (the clone has none of them), and includes (the credentials
 * actions/checkout included are named again, for the clone).
 */
const NOT_COPIED =
  /^(core\.(repositoryformatversion|bare|worktree|sparsecheckout|sparsecheckoutcone|hookspath|fsmonitor|alternaterefscommand|alternaterefsprefixes)|extensions\..*|include\..*|includeif\..*|branch\..*|worktree\..*|remote\..*\.(promisor|partialclonefilter))$/i

export interface Made {
  /** The clone's folder of ours in the original. */
  entry: string
  /** The commit that keeps what it borrows (its parents). */
  borrowed: string
}

/**
 * Makes the clone at record.path, on a new branch at the base, without checking out its files: its folder of
 * ours first (locked: a step cut short from here on is found), then the ref that keeps what it borrows, then
 * the clone. It holds the original's remote-tracking branches and tags as they are now, and the original's
 * own settings but those of NOT_COPIED; `also`: commits it needs besides (a restored rescue). `reuse`: the folder
 * of ours of a clone taken from the pool, already moved to record.path: its .git starts again as a new clone's,
 * but for its objects and its index, from which the checkout moves its files to the base. The caller holds the
 * repository lock.
 */
export async function makeClone(repo: Repository, record: WorktreeRecord, lockReason: string, also: string[], reuse?: string): Promise<Made> {
  const entry = reuse ?? freeEntry(repo.commonDir, path.basename(record.path))
  fs.mkdirSync(entry, { recursive: true })
  writeReplacing(path.join(entry, 'locked'), lockReason)
  writeReplacing(path.join(entry, 'gitdir'), `${path.join(record.path, '.git')}\n`)
  if (reuse) {
    const dir = path.join(record.path, '.git')
    for (const name of fs.readdirSync(dir)) if (!['objects', 'index'].includes(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true })
  }
  // Few calls, most side by side: a clone costs what a worktree does.
  const [listed, tree, config, entries] = await Promise.all([
    repo.git.exec(['for-each-ref', '--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype) %(refname) %(symref)', 'refs/remotes', 'refs/tags']),
    repo.git.exec(['rev-parse', '--verify', `${record.baseSha}^{tree}`]),
    repo.git.run(['config', '--local', '-z', '--list']),
    listConfig(repo.git)
  ])
  const refs = listed.split('\n').filter(Boolean)
  const commits = new Set([record.baseSha, ...also])
  for (const line of refs) {
    const [id, type, peeled, peeledType] = line.split(' ')
    if (type === 'commit') commits.add(id)
    else if (peeledType === 'commit') commits.add(peeled)
  }
  const format = record.baseSha.length === 64 ? 'sha256' : 'sha1'
  const [borrowed] = await Promise.all([
    keepCommits(repo.git, tree.trim(), [...commits]),
    repo.git.exec(['init', '--quiet', '--template=', `--object-format=${format}`, '--', record.path])
  ])
  await writeRef(repo.git, borrowedRef(entry), borrowed, { log: repo.commonDir, message: 'agent-worktree: borrowed by a clone', required: true })
  const gitDir = path.join(record.path, '.git')
  fs.writeFileSync(path.join(gitDir, 'objects', 'info', 'alternates'), `${path.join(repo.commonDir, 'objects')}\n`)
  // A shallow original (a checkout of depth 1): the clone stops where its history does.
  const shallow = readSmall(path.join(repo.commonDir, 'shallow'), 64 * 1024 * 1024)
  if (shallow) fs.writeFileSync(path.join(gitDir, 'shallow'), shallow)
  // The original's refs and the new branch in one file, as git packs them; a symbolic ref (refs/remotes/origin/HEAD)
  // as its own file. No folder git does not need: the clone takes no more room than a worktree.
  for (const empty of [
    ['objects', 'pack'],
    ['refs', 'tags'],
    ['refs', 'heads']
  ])
    if (!fs.readdirSync(path.join(gitDir, ...empty)).length) fs.rmdirSync(path.join(gitDir, ...empty))
  const packed: string[] = [`${record.baseSha} refs/heads/${record.branch}`]
  for (const line of refs) {
    const [id, , , , name, symref] = line.split(' ')
    if (symref) writeLoose(gitDir, name, `ref: ${symref}`)
    else packed.push(`${id} ${name}`)
  }
  fs.writeFileSync(path.join(gitDir, 'packed-refs'), `${packed.sort(byRef).join('\n')}\n`)
  fs.writeFileSync(path.join(gitDir, 'HEAD'), `ref: refs/heads/${record.branch}\n`)
  fs.appendFileSync(path.join(gitDir, 'config'), copiedConfig(config.exitCode === 0 ? config.stdout : '', credentialFiles(repo, entries)))
  return { entry, borrowed }
}

/** The id of a new clone: its folder's name, with a number added when that is taken, as git names worktree git dirs. */
function freeEntry(commonDir: string, name: string): string {
  const root = path.join(commonDir, CLONES_DIR)
  for (let n = 0; ; n++) {
    const entry = path.join(root, n ? `${name}${n}` : name)
    if (!fs.existsSync(entry)) return entry
  }
}

function byRef(a: string, b: string): number {
  const [x, y] = [a.slice(a.indexOf(' ') + 1), b.slice(b.indexOf(' ') + 1)]
  return x < y ? -1 : x > y ? 1 : 0
}

function writeLoose(gitDir: string, ref: string, content: string): void {
  const file = path.join(gitDir, ...ref.split('/'))
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `${content}\n`)
}

/** One commit, on no branch, whose parents are `commits` (its tree, one they have): a ref to it keeps them all from a gc. */
async function keepCommits(git: Git, tree: string, commits: string[]): Promise<string> {
  const stamp = `agent-worktree <agent-worktree@users.noreply.github.com> ${Math.floor(Date.now() / 1000)} +0000`
  const text = [
    `tree ${tree}`,
    ...commits.map(c => `parent ${c}`),
    `author ${stamp}`,
    `committer ${stamp}`,
    '',
    'agent-worktree: what a clone borrows',
    ''
  ].join('\n')
  return (await git.exec(['hash-object', '-t', 'commit', '-w', '--stdin'], { input: text })).trim()
}

/**
 * The original's own settings for the clone's config, as `git config --list -z` gave them: remotes (so that
 * `git push origin HEAD` goes where it goes from a worktree), identity, LFS, credentials (the files
 * actions/checkout included for the original's git dir and its worktrees are included here).
 */
function copiedConfig(listed: string, credentials: string[]): string {
  const lines: string[] = []
  let section = ''
  for (const entry of listed.split('\0').filter(Boolean)) {
    const newline = entry.indexOf('\n')
    const key = newline === -1 ? entry : entry.slice(0, newline)
    if (NOT_COPIED.test(key) || /[\r\n]/.test(key)) continue
    const first = key.indexOf('.')
    const last = key.lastIndexOf('.')
    if (first === -1) continue
    const name = key.slice(last + 1)
    const header = first === last ? `[${key.slice(0, first)}]` : `[${key.slice(0, first)} ${quote(key.slice(first + 1, last))}]`
    if (header !== section) lines.push((section = header))
    lines.push(newline === -1 ? `\t${name}` : `\t${name} = ${quote(entry.slice(newline + 1))}`)
  }
  for (const file of credentials) lines.push('[include]', `\tpath = ${quote(file)}`)
  return lines.length ? `${lines.join('\n')}\n` : ''
}

/**
 * The files of credentials the repository's config includes (actions/checkout v6 and later: an includeIf of
 * its git dir names git-credentials-<uuid>.config): the clone includes them for itself.
 */
function credentialFiles(repo: Repository, entries: ConfigEntry[]): string[] {
  const files = new Set<string>()
  for (const { scope, origin, key } of entries) {
    if (!/^http\..+\.extraheader$/i.test(key) || (scope !== 'local' && scope !== 'worktree')) continue
    const file = path.resolve(repo.toplevel, origin.replace(/^file:/, ''))
    if (!samePath(file, path.join(repo.commonDir, 'config'))) files.add(file)
  }
  return [...files]
}

/**
 * Brings `commit` and all it reaches from the clone into the original, under `ref`: a fetch from a git dir of
 * this step's own whose only objects are the clone's (by alternates), so that no config, hook or ref of the
 * clone takes part; git checks every object it receives, and that the commit is whole.
 */
export async function bringIn(repo: Repository, cloneGitDir: string, commit: string, ref: string): Promise<void> {
  const view = privateTemp('agent-worktree-clone-')
  try {
    fs.mkdirSync(path.join(view, 'objects', 'info'), { recursive: true })
    fs.mkdirSync(path.join(view, 'refs', 'heads'), { recursive: true })
    fs.writeFileSync(path.join(view, 'HEAD'), 'ref: refs/heads/kept\n')
    const format = /^[0-9a-f]{64}$/.test(commit) ? '\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n' : '\trepositoryformatversion = 0\n'
    fs.writeFileSync(path.join(view, 'config'), `[core]\n${format}\tbare = true\n`)
    fs.writeFileSync(path.join(view, 'objects', 'info', 'alternates'), `${path.join(cloneGitDir, 'objects')}\n`)
    fs.writeFileSync(path.join(view, 'refs', 'heads', 'kept'), `${commit}\n`)
    unlinkRefLinks(repo.commonDir, ref)
    // A shallow original: its boundary, so that nobody looks for parents it never had.
    const shallow = readSmall(path.join(repo.commonDir, 'shallow'), 64 * 1024 * 1024)
    if (shallow) fs.writeFileSync(path.join(view, 'shallow'), shallow)
    const fetched = await repo.git.run(
      ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--end-of-options', view, `+refs/heads/kept:${ref}`],
      { env: { GIT_ALLOW_PROTOCOL: 'file' }, stallMs: STALL_MS, interruptible: true, remote: true }
    )
    if (fetched.exitCode !== 0)
      throw new Error(`the clone's commit ${commit.slice(0, 12)} could not be brought into ${quoted(repo.commonDir)}: ${fetched.stderr.trim()}`)
  } finally {
    fs.rmSync(view, { recursive: true, force: true })
  }
}

/**
 * Drops what the original keeps for a clone that is gone: the ref of what it borrowed, and its folder of ours. The
 * folder of all clones stays, even empty: a sandbox handed out meanwhile keeps it read-only where it is.
 */
export async function dropClone(repo: Pick<Repository, 'git' | 'commonDir'>, entry: string): Promise<void> {
  await deleteRef(repo.git, borrowedRef(entry), { log: repo.commonDir })
  fs.rmSync(entry, { recursive: true, force: true })
}
