// Entering: plan the worktree, save the plan, then create it (or take one from the pool, or restore a rescue into it) or enter an existing one.
import * as core from '@actions/core'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, GitError, STALL_MS, throwIfCancelled } from '../git/git-command-manager.js'
import { fetchThroughView, REMOTE_PROTOCOLS, type Promisor } from '../git/sealed-git.js'
import { InputError } from '../record/settings.js'
import type { EnterSettings } from '../runner/inputs.js'
import { snapshotCheckout, writeSnapshotFile } from '../shared/original-checkout.js'
import { currentOwner, describeOwner, jobOver, lockReason, parseLock, sameJob } from '../record/ownership.js'
import { isInside, makeFolders, realPath, samePath } from '../os/paths.js'
import { entryOf, gitDirOf, makeClone } from '../exit/clones.js'
import { checkWorktreesFolder, exitPlan, planCreate, pushPlan, type Plan } from './plan.js'
import { copyIncludedFiles, createLinks } from './prepare-worktree.js'
import { diskError, diskFull, withRepositoryLock } from '../git/repository-lock.js'
import { adminDirOf, findWorktree, listWorktrees, lockOf, openRepository, readConfigAtEnter, type ConfigAtEnter, type Repository } from '../git/repository.js'
import { readRecordFile, STATE_COMMON_DIR, writeRecordFile, writeSetupFile, writeStepFile, type StepFile, type WorktreeRecord } from '../record/state-helper.js'
import { saveRecordState } from '../runner/step-state.js'
import { heldBackWhy, reportHeldBack, reportNothingToRestore, reportPrepared, reportSharedUnread, reportTakeover, reportTaken } from '../runner/report/enter.js'
import type { Found, Lookup } from '../rescue/find-rescue.js'
import type { Restored } from '../rescue/restore.js'
import { readSharedState, type Known } from '../shared/shared-state.js'
import { pinAtEnter, setupFromConfig } from '../git/git-setup.js'
import { submoduleUrls } from '../git/submodules.js'
import { sweep } from './sweep.js'
import { prepareSandbox, type PreparedSandbox } from '../sandbox/configs.js'
import { nameItself, sandboxFacts } from '../sandbox/paths.js'
import { checkOutTaken, takeParked, takeParkedClone, type Taken } from '../exit/worktree-pool.js'
import { remoteTips, type OnRemote } from '../remote/tips.js'
import { once } from '../os/once.js'
import { openRegular, readSmall, writeReplacing } from '../os/untrusted-files.js'
import { fetchRef } from '../record/refs.js'
import { unlinkReflogLinks, writeRef } from '../git/worktree-refs.js'
import { quoted } from '../os/quote.js'

/** What the main step entered, for its outputs. */
export interface EnteredWorktree {
  record: WorktreeRecord
  gitDir: string
  commonDir: string
  restored?: Restored
  /** What a confined agent may write there, and the sandbox configurations made from it. */
  sandbox: PreparedSandbox
}

/** Opens the repository, plans, saves the plan, then creates the worktree or enters it by path. */
export async function enterWorktree(settings: EnterSettings): Promise<EnteredWorktree> {
  let lookup: Lookup | undefined
  try {
    // Before the first git call: git is what PATH names now, with the workflow's variables.
    const setup = pinAtEnter()
    const repo = await openRepository(settings.repositoryPath, 'repository-path')
    const folder = settings.path ? undefined : checkWorktreesFolder(settings.worktreesDir, repo.toplevel)
    core.saveState(STATE_COMMON_DIR, repo.commonDir)
    const config = readConfigAtEnter(repo)
    // The remote of enter, asked only where the pool or the sweep meets a commit nothing here saves.
    const onRemote = once(async () => remoteTips(repo, (await config).push))
    const [snapshot, { excludesFile, configFile, entries, remotes, promisor, ...settingsAtEnter }, lfs] = await Promise.all([
      snapshotCheckout(repo.toplevel, repo.gitDir),
      config,
      lfsEnvironment(repo),
      sweep(repo, onRemote)
    ])
    settingsAtEnter.git = setupFromConfig(setup, entries)
    writeSetupFile(settingsAtEnter.git)
    lookup = settings.restore ? await lookUp(repo, settings, settingsAtEnter) : undefined
    const known: Known = { configFile }
    const { record, included, restored, shared } = settings.path
      ? await enterByPath(repo, settings, settingsAtEnter, known)
      : await create(repo, settings, folder!, { pinned: settingsAtEnter, lfs, excludesFile, known, onRemote, remotes, promisor }, lookup?.found)
    const entry = entryOf(repo.commonDir, record)
    // Without a .gitmodules checked out, the base has no submodule to ask about: no git call.
    if (fs.existsSync(path.join(record.path, '.gitmodules'))) {
      const submodules = await submoduleUrls(repo.git, record.baseSha, entries, settingsAtEnter.push && remotes[settingsAtEnter.push.remote])
      if (Object.keys(submodules).length) record.submodules = writeStepFile(submodules, record.token, 'submodules')
    }
    record.original = writeSnapshotFile(snapshot, record.token)
    // What the job brought in (the ignore rules of enter, the files include-file copied) is never the agent's
    // work and never leaves the machine.
    const excludes = [readSmall(path.join(repo.commonDir, 'info', 'exclude')), readSmall(excludesFile)].filter(Boolean).join('\n')
    record.brought = writeStepFile({ excludes, included, restored: restored?.untracked }, record.token, 'brought')
    record.shared = shared
    writeRecordFile(entry, record)
    saveRecordState(record)
    // After the record file, so that the lists see it.
    const gitDir = gitDirOf(repo.commonDir, record)
    const clone = record.isolation === 'clone'
    nameItself(clone ? gitDir : repo.commonDir)
    const facts = sandboxFacts(realPath(record.path), realPath(gitDir), realPath(repo.commonDir))
    const sandbox = prepareSandbox({ ...facts, clone }, record.token)
    return { record, gitDir, commonDir: clone ? gitDir : repo.commonDir, restored, sandbox }
  } finally {
    await lookup?.dispose()
  }
}

/** The rescue to restore, fetched and checked before anything is created; its module is loaded only for a restore. */
async function lookUp(repo: Repository, settings: EnterSettings, pinned: ConfigAtEnter): Promise<Lookup> {
  const { findRescue } = await import(/* webpackChunkName: "restore" */ '../rescue/find-rescue.js')
  const lookup = await findRescue(repo, settings.restore!, {
    push: pinned.push,
    rescue: settings.rescue,
    name: settings.name,
    leg: settings.leg,
    maxBytes: settings.rescueMaxBytes
  })
  if (lookup.nothing) reportNothingToRestore(lookup.nothing)
  return lookup
}

/**
 * The checkout as actions/checkout left it: with LFS pointer files (its default, lfs: false) the new
 * worktree gets pointers too, and no LFS download starts; with LFS objects, objects.
 */
async function lfsEnvironment(repo: Repository): Promise<Record<string, string> | undefined> {
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

/**
 * Checks and creation run under the repository lock, so that two legs asking for one name cannot both
 * pass the checks; the fetch and the checkout, the slow parts, run outside it.
 */
async function create(repo: Repository, settings: EnterSettings, folder: string, atEnter: AtEnter, found: Found | undefined): Promise<Entered> {
  const { pinned, lfs, excludesFile, known, onRemote, remotes, promisor } = atEnter
  const fetched = settings.fetch ? await fetchBase(repo, settings.baseRef, remotes, promisor) : undefined
  const plan = await withRepositoryLock(repo.commonDir, async () => {
    if (fetched) {
      await writeRef(repo.git, fetched.ref, fetched.sha, { log: repo.commonDir, message: 'agent-worktree: fetch', required: true })
    }
    const planned = await planCreate(repo, settings, pinned, folder)
    const { record } = planned
    // Saved before anything is created, so that a post after a crash or a cancel finds it.
    saveRecordState(record)
    throwIfCancelled()
    makeFolders(path.dirname(record.path))
    const reason = lockReason(record.token, record.owner)
    let taken = record.recycle && record.isolation !== 'clone' ? await takeParked(repo, record, reason, heldBackWhy, onRemote) : undefined
    reportHeldBack(taken?.heldBack ?? [])
    if (record.isolation === 'clone') {
      taken = await createClone(repo, record, reason, pinned, found)
    } else {
      if (!taken?.gitDir) await addWorktree(repo, settings, record, reason)
      if (taken?.gitDir) record.taken = new Date().toISOString()
      record.id = path.basename(taken?.gitDir || adminDirOf(repo.commonDir, record.path) || '')
      if (!record.id) throw new Error(`git created ${quoted(record.path)} but did not register it`)
    }
    if (!taken?.gitDir) await shapeCheckout(record, gitDirOf(repo.commonDir, record), settings)
    writeRecordFile(entryOf(repo.commonDir, record), record)
    saveRecordState(record)
    return { ...planned, taken: Boolean(taken?.gitDir) }
  })
  const { record } = plan
  // The checkout, outside the lock: of every file for a new worktree (what `git worktree add` does; by
  // read-tree, as reset would write the branch again, and the time of its folder, which the record of what is
  // shared keeps), of the files that differ for one taken from the pool. A cancel stops it: the post then removes it.
  let shared: Promise<StepFile | undefined> | undefined
  try {
    await prefetchBlobs(repo, [record.baseSha], settings.sparsePaths, promisor)
    const checkout = plan.taken
      ? checkOutTaken(record, lfs)
      : new Git(record.path).exec(['read-tree', '--reset', '-u', 'HEAD'], { env: lfs, interruptible: true, remote: true })
    // Read while git checks the files out, once this step's own changes to it are made (the branch, a fetched
    // base, sparse settings), and never after anything of the agent's ran.
    shared = sharedAtEnter(repo, record, known)
    await checkout
  } catch (error) {
    throw checkoutError(error as Error, record)
  }
  record.checkedOut = true
  const gitDir = gitDirOf(repo.commonDir, record)
  writeRecordFile(entryOf(repo.commonDir, record), record)
  saveRecordState(record)
  if (plan.taken) reportTaken(record.path)
  // Before the job's own files (links, include-file copies) go in: those go only where the rescue left room.
  const restored = found ? await restore(repo, record, gitDir, found, { lfs, sparsePaths: settings.sparsePaths, promisor: promisor }) : undefined
  return { record, restored, included: await prepare(repo, plan, excludesFile), shared: await shared }
}

/** What the main step read before anything was made. */
interface AtEnter {
  pinned: ConfigAtEnter
  /** The environment of the checkout's LFS state (pointers: no download). */
  lfs: Record<string, string> | undefined
  excludesFile: string
  known: Known
  onRemote: () => Promise<OnRemote>
  /** The remotes' fetch URLs of enter, and a partial clone's promisor remote: where a fetch through a view asks. */
  remotes: Record<string, string>
  promisor?: Promisor
}

interface Entered {
  record: WorktreeRecord
  /** What include-file copied in, by content. */
  included: Record<string, string>
  /** What a restore put back. */
  restored?: Restored
  /** The file that holds what every worktree of the repository shared at enter; none when it could not be read. */
  shared?: StepFile
}

/** Read and written aside; no report of it at exit is all that is lost when it cannot be: the main step goes on. */
function sharedAtEnter(repo: Repository, record: WorktreeRecord, known: Known): Promise<StepFile | undefined> {
  return readSharedState(repo.git, repo.commonDir, record, known).then(
    shared => writeStepFile(shared, record.token, 'shared'),
    (error: Error) => {
      reportSharedUnread(error.message)
      return undefined
    }
  )
}

/** Puts the rescue back into the new worktree, checked out at its base: the files it needs first, watched, from a partial clone's remote. */
async function restore(
  repo: Repository,
  record: WorktreeRecord,
  gitDir: string,
  found: Found,
  checkout: { lfs?: Record<string, string>; sparsePaths: string[]; promisor?: Promisor }
): Promise<Restored> {
  const { restoreInto } = await import(/* webpackChunkName: "restore" */ '../rescue/restore.js')
  try {
    await prefetchBlobs(repo, [found.snapshot.index, found.snapshot.tree], checkout.sparsePaths, checkout.promisor)
    return await restoreInto(found, record, gitDir, record.isolation === 'clone' ? gitDir : repo.commonDir, checkout.lfs)
  } catch (error) {
    throw checkoutError(error as Error, record)
  }
}

/**
 * In a partial clone, the checkout would fetch every missing file from the remote, with no time limit: a
 * remote that stalls would hold the step for ever. The missing files of the base are fetched first, as
 * git's own lazy fetch does, but watched: a transfer that says nothing for a while is stopped.
 */
async function prefetchBlobs(repo: Repository, tips: string[], sparsePaths: string[], promisor: Promisor | undefined): Promise<void> {
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

/** A clone for the record, from the pool when recycle asks and one is proven untouched, else a new one; what was taken. */
async function createClone(
  repo: Repository,
  record: WorktreeRecord,
  reason: string,
  pinned: ConfigAtEnter,
  found: Found | undefined
): Promise<Taken | undefined> {
  const also = found ? [found.snapshot.commit] : []
  const pooled = record.recycle ? await takeParkedClone(repo, record, reason, pinned.push, also, heldBackWhy) : undefined
  reportHeldBack(pooled?.heldBack ?? [])
  if (pooled?.made) record.taken = new Date().toISOString()
  const made = pooled?.made ?? (await makeClone(repo, record, reason, also))
  Object.assign(record, { id: path.basename(made.entry), borrowed: made.borrowed })
  return pooled?.made ? pooled : undefined
}

async function addWorktree(repo: Repository, settings: EnterSettings, record: WorktreeRecord, reason: string): Promise<void> {
  unlinkReflogLinks(repo.commonDir, `refs/heads/${record.branch}`)
  // The base is a commit id, so git writes no upstream configuration for the branch.
  const added = await repo.git.run([
    'worktree',
    'add',
    '--quiet',
    '--no-checkout',
    '--lock',
    '--reason',
    reason,
    '-b',
    record.branch,
    record.path,
    record.baseSha
  ])
  if (added.exitCode === 0) return
  const text = added.stderr.trim()
  if (/No space left/i.test(text) || diskFull(path.dirname(record.path)))
    throw diskError(Object.assign(new Error(text), { code: 'ENOSPC' }), path.dirname(record.path))
  const inputs = [
    settings.name !== undefined && `name: ${quoted(settings.name)}`,
    settings.branch !== undefined && `branch: ${quoted(settings.branch)}`,
    settings.worktreesDir !== undefined && `worktrees-dir: ${quoted(settings.worktreesDir)}`
  ]
  throw new Error(
    `git could not create the worktree ${quoted(record.path)} on branch ${quoted(record.branch)}: ${text}. Check the inputs that shape it (${inputs.filter(Boolean).join(', ') || 'name, branch, worktrees-dir'}), or the folder ${quoted(path.dirname(record.path))}.`
  )
}

/**
 * `git worktree add` copies the checkout's sparse patterns into the new worktree: the default is the whole
 * tree, so they go, unless sparse-paths asked for a cone of its own.
 */
async function shapeCheckout(record: WorktreeRecord, gitDir: string, settings: EnterSettings): Promise<void> {
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

function checkoutError(error: Error, record: WorktreeRecord): Error {
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

/** Links the folders planned and copies included files, and says what was not. Returns what each copy is. */
async function prepare(repo: Repository, plan: Plan, excludesFile: string): Promise<Record<string, string>> {
  const { record, missingLinks, includeFile } = plan
  const unlinked = createLinks(repo.toplevel, record.path, record.links ?? []).map(n => `${quoted(n.file)} (${n.why})`)
  const { copied, skipped, identities } = includeFile
    ? await copyIncludedFiles(repo.toplevel, record.path, includeFile, excludesFile)
    : { copied: [], skipped: [], identities: {} }
  reportPrepared({ toplevel: repo.toplevel, missingLinks, unlinked, includeFile, copied, notCopied: skipped })
  return identities
}

/**
 * Fetches a remote-tracking base from its remote of enter, outside the repository lock and with a time limit (a
 * remote that accepts and never answers would hold every job), through a view: no upload-pack, ssh command or
 * helper written into the repository's config (by another job's agent, in a shared clone) takes part. The
 * remote-tracking branch is then moved under the lock.
 */
async function fetchBase(
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

/**
 * Enters an existing worktree. One that a live job holds is refused; one a job that has ended kept is
 * taken over (lock and record); an unlocked one is locked for the job, and gets its state back when kept.
 */
async function enterByPath(repo: Repository, settings: EnterSettings, pinned: ConfigAtEnter, known: Known): Promise<Entered> {
  const given = settings.path!
  const found = findWorktree(await listWorktrees(repo), given)
  if (!found || found.entry.bare) {
    throw new InputError(
      'path',
      given,
      `it is not a worktree of ${quoted(repo.toplevel)}`,
      'Give a path that git worktree list shows, or omit path to create a new worktree.'
    )
  }
  const workspace = process.env.GITHUB_WORKSPACE
  if (found.isMain || samePath(found.entry.path, repo.toplevel) || (workspace && isInside(workspace, found.entry.path))) {
    throw new InputError(
      'path',
      given,
      'it is the checkout the job came from, which is not isolated from the rest of the job',
      'Omit path to create a new worktree.'
    )
  }
  const gitDir = adminDirOf(repo.commonDir, found.entry.path)
  if (found.entry.prunable !== undefined || !fs.existsSync(found.entry.path) || !gitDir) {
    throw new InputError('path', given, 'its folder is missing', 'Run git worktree prune, then omit path to create a new worktree.')
  }
  const me = currentOwner()
  const branch = found.entry.branch?.replace(/^refs\/heads\//, '') ?? ''
  const record: WorktreeRecord = {
    token: randomBytes(8).toString('hex'),
    repository: repo.toplevel,
    commonDir: repo.commonDir,
    id: path.basename(gitDir),
    path: found.entry.path,
    name: path.basename(found.entry.path),
    branch,
    baseSha: found.entry.head ?? '',
    created: false,
    checkedOut: true,
    ...exitPlan(settings, 'keep', repo.commonDir),
    ...(await pushPlan(repo, settings, branch, pinned.push)),
    ...pinned,
    owner: me
  }
  await withRepositoryLock(repo.commonDir, () => {
    const lock = lockOf(gitDir)
    const held = parseLock(lock)
    if (held.kind === 'parked') {
      throw new InputError('path', given, 'it is parked in the pool of worktrees', 'Enter a new worktree with recycle: true to take one from the pool.')
    }
    if (held.kind === 'job') {
      const holder = readRecordFile(gitDir)
      const over = holder && held.token === holder.token && (sameJob(holder.owner, me) || jobOver(holder.owner, me))
      if (!over) {
        const who = holder ? describeOwner(holder.owner) : 'a job whose record cannot be read'
        throw new InputError('path', given, `another job holds it (${who}), and it may still be running`, 'Wait for that job to end, or create a new worktree.')
      }
      reportTakeover(found.entry.path, over === true ? 'this job' : over)
    }
    // Unlocked: locked for the job, and unlocked again when kept. Taken over: it stays the job's. Locked by
    // hand by someone: their lock stays, and the worktree is never removed.
    record.priorLock = lock === undefined ? '' : undefined
    saveRecordState(record)
    if (held.kind === 'unlocked' || held.kind === 'job') writeReplacing(path.join(gitDir, 'locked'), lockReason(record.token, me))
    writeRecordFile(gitDir, record)
    return Promise.resolve()
  })
  return { record, included: {}, shared: await sharedAtEnter(repo, record, known) }
}
