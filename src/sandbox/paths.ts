// What a confined agent must be able to write to do its git work in a worktree (edit, add, commit, branch,
// stash, rebase), and what inside that must stay read-only: whatever git or this action obeys or runs in a
// later step, another job or the repository's own checkout. Anything not listed stays out of the agent's
// reach by the sandbox's own default.
//
// Measured with both sandboxes users run (Codex's and Claude Code's sandbox-runtime, bubblewrap on Linux):
// a commit writes <git dir>/index.lock and objects; branch and stash write refs and logs of the common dir;
// deleting a ref takes <common dir>/packed-refs.lock, so the common dir itself must be writable. Two rules
// of theirs shape the lists:
// - sandbox-runtime lets denyWrite win over allowWrite, so no read-only entry may hold a writable one: the
//   other worktrees' git dirs are listed one by one, not <common dir>/worktrees.
// - Both keep an absent read-only path absent by putting an empty file or folder in its place while they
//   run (on the host, where other jobs of a shared clone see it), and a sandbox that protects only what exists
//   (plain bubblewrap, Landlock) not at all: so every entry exists when the lists are handed out, made where
//   absent in a form that changes nothing, or else left out of the lists (stand-ins.ts); the main checkout's
//   index is not even named where there is none. Not listed at all: this action's repository lock, which a
//   stand-in would hold for every other job while the agent runs.
// The worktree's own modules/ (its submodules' git dirs) stays writable: the agent can plant a repository
// in its files just as well, and later steps must treat both alike.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { CLONES_DIR, OBJECTS_LIST_FILE, RECORD_FILE } from '../record/state-helper.js'
import { PARKED_FILES } from '../git/parked-files.js'

export interface SandboxFacts {
  /** The worktree's top level. */
  worktree: string
  /** Its own git dir: <common dir>/worktrees/<id>. */
  gitDir: string
  /** The repository's common git dir. */
  commonDir: string
  /** The git dirs of the repository's other worktrees, as they are now. */
  otherGitDirs: readonly string[]
  /** Whether the repository's own checkout has an index (a bare repository has none). */
  mainIndex: boolean
  /** isolation: clone: `worktree` is a repository of the agent's own (its git dir inside), borrowing the common dir's objects. */
  clone?: boolean
}

export interface SandboxPaths {
  /** Folders the agent writes: the worktree, its git dir, the common dir. */
  write: string[]
  /** Files and folders inside those that stay read-only. None of them holds a `write` entry. */
  readOnly: string[]
}

/**
 * In the common dir: what git obeys (configuration, hooks, attributes, grafts, alternates, remotes), and its
 * own commondir, which would send every later git of the main checkout to a git dir of the agent's making
 * (made as ".", where it is absent: a sandbox's empty stand-in would break that git).
 */
const COMMON_OBEYED = ['config', 'config.worktree', 'hooks', 'info', 'shallow', 'objects/info', 'remotes', 'branches', 'rr-cache', 'modules', 'commondir']

/**
 * In the worktree's git dir: what ties it to its worktree and repository, and what this action keeps there (its
 * record; what a park proved of its files, which the next take believes).
 */
const OWN_OBEYED = ['gitdir', 'commondir', 'locked', 'config.worktree', 'info', RECORD_FILE, PARKED_FILES]

export function sandboxPaths(facts: SandboxFacts): SandboxPaths {
  const { worktree, gitDir, commonDir } = facts
  if (facts.clone) return clonePaths(worktree, path.join(commonDir, 'objects'))
  const readOnly = [
    // The pointer to the git dir: rewritten, it would hand every later git call a git dir of the agent's.
    path.join(worktree, '.git'),
    ...COMMON_OBEYED.map(name => path.join(commonDir, ...name.split('/'))),
    // The repository's own checkout: its HEAD, index and reflog.
    path.join(commonDir, 'HEAD'),
    ...(facts.mainIndex ? [path.join(commonDir, 'index')] : []),
    path.join(commonDir, 'logs', 'HEAD'),
    ...OWN_OBEYED.map(name => path.join(gitDir, name)),
    ...[...facts.otherGitDirs].sort(),
    // What this action keeps for the clones of other jobs (isolation: clone), whole: none of it is the agent's.
    path.join(commonDir, CLONES_DIR),
    // The list of the shared object store's files this action verified: an entry of the agent's would be believed.
    path.join(commonDir, OBJECTS_LIST_FILE)
  ]
  return { write: [worktree, gitDir, commonDir], readOnly }
}

/** The facts as the disk has them now: the other worktrees are those registered in the common dir. */
export function sandboxFacts(worktree: string, gitDir: string, commonDir: string): SandboxFacts {
  const root = path.join(commonDir, 'worktrees')
  let names: string[] = []
  try {
    names = fs.readdirSync(root)
  } catch {
    // No worktrees folder: no other worktree.
  }
  const otherGitDirs = names.map(name => path.join(root, name)).filter(dir => dir !== gitDir)
  return { worktree, gitDir, commonDir, otherGitDirs, mainIndex: fs.existsSync(path.join(commonDir, 'index')) }
}

/**
 * In a clone's own .git (isolation: clone): what git obeys, the alternates through which every later git call reads
 * objects, and its commondir, which would send every later git call to a common dir of the agent's making (its
 * config, hooks, objects): made as ".", where it is absent.
 */
const CLONE_OBEYED = ['config', 'hooks', 'info', 'shallow', 'objects/info', 'commondir']

/**
 * A clone of the agent's own (isolation: clone) is the agent's whole: its folder with its .git, but what git obeys
 * there. The original's object store, which the clone borrows, is read, never written (nothing else of the
 * original is in reach at all).
 */
export function clonePaths(clone: string, originalObjects: string): SandboxPaths {
  // .git named too: Codex keeps a working tree's .git read-only unless told otherwise.
  return { write: [clone, path.join(clone, '.git')], readOnly: [...CLONE_OBEYED.map(name => path.join(clone, '.git', ...name.split('/'))), originalObjects] }
}
