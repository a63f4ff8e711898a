// The checkout steps of enter: the base fetched, the files a partial clone lacks fetched first, the checkout's
// LFS state, the new worktree's sparse shape, and what a refused `git worktree add` and a failed checkout say.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, GitError, STALL_MS, throwIfCancelled } from '../git/git-command-manager.js'
import { fetchThroughView, REMOTE_PROTOCOLS, type Promisor } from '../git/sealed-git.js'
import { InputError } from '../record/settings.js'
import type { EnterSettings } from '../runner/inputs.js'
import { diskError, diskFull } from '../git/repository-lock.js'
import type { Repository } from '../git/repository.js'
import type { FilterDriver, WorktreeRecord } from '../record/state-helper.js'
import { openRegular } from '../os/untrusted-files.js'
import { fetchRef } from '../record/refs.js'
import { writeRef } from '../git/worktree-refs.js'
import { checkOutTaken } from '../exit/worktree-pool.js'
import type { Kind } from '../exit/kinds/kind.js'
import { quoted } from '../os/quote.js'

/**
 * The checkout as actions/checkout left it: with LFS pointer files (its default, lfs: false) the new
 * worktree gets pointers too, and no LFS download starts; with LFS objects, objects. `filters`: the drivers of the
 * config of enter; without one named lfs git runs no LFS program, and there is nothing to ask.
 */
export async function lfsEnvironment(repo: Repository, filters: Record<string, FilterDriver> = {}): Promise<Record<string, string> | undefined> {
  if (!Object.hasOwn(filters, 'lfs')) return undefined
  const listed = await repo.git.run(['ls-files', '-z', '--', ':(attr:filter=lfs)'])
  for (const file of listed.stdout.split('\0').filter(Boolean).slice(0, 20)) {
    const fd = openRegular(path.join(repo.toplevel, file))
    // not in this checkout (sparse): try the next
    if (fd === undefined) continue
    try {
      const head = Buffer.alloc(64)
      const read = fs.readSync(fd, head, 0, 64, 0)
      return head.subarray(0, read).toString('utf8').startsWith('version https://git-lfs.github.com/spec/v1') ? { GIT_LFS_SKIP_SMUDGE: '1' } : undefined
    } finally {
      fs.closeSync(fd)
    }
  }
  return undefined
}

/** What the checkout of enter goes by. */
export interface Checkout {
  /** The environment of the checkout's LFS state (pointers: no download). */
  lfs?: Record<string, string>
  /** A partial clone's promisor remote: where the files it lacks are fetched from first. */
  promisor?: Promisor
  sparsePaths: string[]
}

/**
 * The checkout, outside the lock: of every file for a new worktree (what `git worktree add` does; by read-tree, as
 * reset would write the branch again, and the time of its folder, which the record of what is shared keeps), of the
 * files that differ for one taken from the pool. `meanwhile` runs while git checks the files out. A cancel stops it:
 * the post then removes it.
 */
export async function checkOutFiles(kind: Kind, repo: Repository, record: WorktreeRecord, taken: boolean, how: Checkout, meanwhile: () => void): Promise<void> {
  try {
    await prefetchBlobs(repo, [record.baseSha], how.sparsePaths, how.promisor)
    const checkout = taken
      ? checkOutTaken(kind, record, how.lfs)
      : new Git(record.path).exec(['read-tree', '--reset', '-u', 'HEAD'], { env: how.lfs, interruptible: true, remote: true })
    meanwhile()
    await checkout
  } catch (error) {
    throw checkoutError(error as Error, record)
  }
}

/**
 * In a partial clone, the checkout would fetch every missing file from the remote, with no time limit: a
 * remote that stalls would hold the step for ever. The missing files of the base are fetched first, as
 * git's own lazy fetch does, but watched: a transfer that says nothing for a while is stopped.
 */
export async function prefetchBlobs(repo: Repository, tips: string[], sparsePaths: string[], promisor: Promisor | undefined): Promise<void> {
  if (!promisor) return
  // A sparse worktree needs its folders and the files at the top.
  const top = sparsePaths.length
    ? [...new Set((await Promise.all(tips.map(tip => repo.git.exec(['ls-tree', '-z', '--name-only', tip])))).join('\0').split('\0'))].filter(Boolean)
    : []
  const scope = sparsePaths.length ? ['--', ...sparsePaths.map(p => `:(literal)${p}`), ...top.map(p => `:(literal)${p}`)] : []
  const listed = await repo.git.exec(['rev-list', '--objects', '--missing=print', '--no-walk', ...tips, ...scope], { interruptible: true })
  const missing = listed.split('\n').filter(line => line.startsWith('?'))
  if (!missing.length) return
  // Through a view with the promisor remote of enter: no upload-pack or helper of the repository's config takes part.
  const { result: fetched } = await fetchThroughView(repo.commonDir, { promisor }, ['--filter=blob:none', '--stdin', promisor.remote], {
    input: missing.map(line => line.slice(1)).join('\n') + '\n',
    stallMs: STALL_MS,
    env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS },
    config: [['fetch.negotiationAlgorithm', 'noop']]
  })
  if (fetched.exitCode !== 0) {
    throwIfCancelled()
    throw new Error(
      `This is a partial clone, and the files of ${tips[0].slice(0, 12)} could not be fetched from ${quoted(promisor.remote)}: ${fetched.stderr.trim().split('\n').slice(-2).join(' ')}. Check that the remote answers, or check out without a filter.`
    )
  }
}

/** Why `git worktree add` refused, from what it said (`said`): a full disk, or the inputs that shape the worktree. */
export function addRefused(said: string, settings: EnterSettings, record: WorktreeRecord): Error {
  if (/No space left/i.test(said) || diskFull(path.dirname(record.path)))
    return diskError(Object.assign(new Error(said), { code: 'ENOSPC' }), path.dirname(record.path))
  const inputs = [
    settings.name !== undefined && `name: ${quoted(settings.name)}`,
    settings.branch !== undefined && `branch: ${quoted(settings.branch)}`,
    settings.worktreesDir !== undefined && `worktrees-dir: ${quoted(settings.worktreesDir)}`
  ]
  return new Error(
    `git could not create the worktree ${quoted(record.path)} on branch ${quoted(record.branch)}: ${said}. Check the inputs that shape it (${inputs.filter(Boolean).join(', ') || 'name, branch, worktrees-dir'}), or the folder ${quoted(path.dirname(record.path))}.`
  )
}

/**
 * `git worktree add` copies the checkout's sparse patterns into the new worktree: the default is the whole
 * tree, so they go, unless sparse-paths asked for a cone of its own.
 */
export async function shapeCheckout(record: WorktreeRecord, gitDir: string, settings: EnterSettings): Promise<void> {
  if (settings.sparsePaths.length) {
    // Sparse checkout turns on per-worktree configuration in the shared config: a write that races.
    await new Git(record.path).exec(['sparse-checkout', 'set', '--cone', '--stdin'], { input: settings.sparsePaths.join('\n'), remote: true })
  } else if (fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout'))) {
    fs.rmSync(path.join(gitDir, 'info', 'sparse-checkout'))
    const config = path.join(gitDir, 'config.worktree')
    if (fs.existsSync(config)) {
      for (const key of ['core.sparseCheckout', 'core.sparseCheckoutCone']) await new Git(record.path).run(['config', '--file', config, '--unset', key])
    }
  }
}

export function checkoutError(error: Error, record: WorktreeRecord): Error {
  const text = error instanceof GitError ? error.result.stderr : error.message
  // git says "unable to write file" when the disk is full: the disk itself tells.
  if (/No space left/i.test(text) || diskFull(record.path)) return diskError(Object.assign(new Error(text), { code: 'ENOSPC' }), record.path)
  // git names the filter driver ("smudge filter <name> failed") or its command ("external filter '<cmd>' failed").
  const driver = /smudge filter (\S+) failed/.exec(text)?.[1]
  const command = /external filter '(.*)' failed/.exec(text)?.[1]
  const said = text.trim().split('\n').slice(-2).join(' ')
  if (driver === 'lfs' || (!driver && /git-lfs|Error downloading object/i.test(text))) {
    return new Error(
      `Git LFS could not provide the files of ${quoted(record.path)} (${said}). Check out with actions/checkout lfs: true (the objects are then copied from the checkout), or make the LFS server reachable.`
    )
  }
  if (driver || command) {
    const which = driver
      ? `the filter ${quoted(driver)} (${quoted(`filter.${driver}.smudge`)} or .process of the repository's config)`
      : `the filter program ${quoted(command ?? '')}`
    return new Error(
      `${which} failed while the files of ${quoted(record.path)} were checked out (${said}). Make the filter work on this runner (its program installed, its keys given before this step), or check out without it.`.replace(
        /^t/,
        'T'
      )
    )
  }
  return error
}

/**
 * Fetches a remote-tracking base from its remote of enter, outside the repository lock and with a time limit (a
 * remote that accepts and never answers would hold every job), through a view: no upload-pack, ssh command or
 * helper written into the repository's config (by another job's agent, in a shared clone) takes part. The
 * remote-tracking branch is then moved under the lock.
 */
export async function fetchBase(
  repo: Repository,
  baseRef: string,
  remotes: Record<string, string>,
  promisor: Promisor | undefined
): Promise<{ ref: string; sha: string }> {
  const names = Object.keys(remotes)
  const remote = names.find(r => baseRef.startsWith(`${r}/`))
  const branch = remote && baseRef.slice(remote.length + 1)
  if (!remote || !branch) {
    throw new InputError(
      'base-ref',
      baseRef,
      `fetch: true needs a remote-tracking branch as base, <remote>/<branch>, and the remotes are ${names.map(quoted).join(', ') || 'none'}`,
      'Use for example base-ref: origin/main, or fetch: false.'
    )
  }
  const ref = `refs/remotes/${remote}/${branch}`
  const haves = [await repo.git.resolveCommit(ref), await repo.git.resolveCommit('HEAD')].filter((id): id is string => !!id)
  // A ref of the view's alone, named as every fetch ref of ours is.
  const fetched = fetchRef(randomBytes(6).toString('hex'))
  // A partial clone's own remote is asked by name, with its filter; another by its URL of enter.
  const source = promisor?.remote === remote ? remote : remotes[remote]
  const { result, refs } = await fetchThroughView(repo.commonDir, { haves, promisor }, ['--end-of-options', source, `+refs/heads/${branch}:${fetched}`], {
    stallMs: STALL_MS,
    env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }
  })
  const sha = refs.get(fetched)
  if (result.exitCode === 0 && sha) return { ref, sha }
  throwIfCancelled()
  throw new InputError(
    'base-ref',
    baseRef,
    `git fetch ${quoted(remote)} ${quoted(branch)} failed: ${result.stderr.trim()}`,
    'Check that the branch exists on the remote, that the job can read it, and that the remote answers.'
  )
}

/** Moves the remote-tracking branch to what fetchBase fetched: under the repository lock. */
export async function moveFetched(repo: Repository, fetched: { ref: string; sha: string }): Promise<void> {
  await writeRef(repo.git, fetched.ref, fetched.sha, { log: repo.commonDir, message: 'agent-worktree: fetch', required: true })
}
