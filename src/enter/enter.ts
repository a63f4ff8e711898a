// Entering: plan the worktree, save the plan, then create it (or take one from the pool, or restore a rescue into it) or enter an existing one.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwIfCancelled } from '../git/git-command-manager.js'
import { InputError } from '../record/settings.js'
import { defaultWorktreesDir } from '../record/names.js'
import type { EnterSettings } from '../runner/inputs.js'
import { snapshotCheckout, writeSnapshotFile } from '../shared/original-checkout.js'
import { currentOwner, describeOwner, jobOver, lockReason, parseLock, recordMatchesLock, sameJob } from '../record/ownership.js'
import { isInside, makeFolders, realPath, samePath } from '../os/paths.js'
import { kindFor, type Kind } from '../exit/kinds/kind.js'
import { checkWorktreesFolder, exitPlan, planCreate, pushPlan, type Plan } from './plan.js'
import { copyIncludedFiles, createLinks } from './prepare-worktree.js'
import { addRefused, checkOutFiles, checkoutError, fetchBase, lfsEnvironment, moveFetched, prefetchBlobs, shapeCheckout, type Checkout } from './checkout.js'
import { withRepositoryLock } from '../git/repository-lock.js'
import { adminDirOf, findWorktree, listWorktrees, lockOf, openRepository, readConfigAtEnter, type ConfigAtEnter, type Repository } from '../git/repository.js'
import { readRecordFile, writeRecordFile, writeSetupFile, writeStepFile, type StepFile, type WorktreeRecord } from '../record/state-helper.js'
import { saveCommonDirState, saveRecordState, saveRestoreRefState } from '../runner/step-state.js'
import { heldBackWhy, reportHeldBack, reportNothingToRestore, reportPrepared, reportSharedUnread, reportTakeover, reportTaken } from '../runner/report/enter.js'
import type { Found, Lookup } from '../rescue/find-rescue.js'
import type { Restored } from '../rescue/restore.js'
import { readSharedState, type Known } from '../shared/shared-state.js'
import { pinAtEnter, setupFromConfig } from '../git/git-setup.js'
import { submoduleUrls } from '../git/submodules.js'
import { sweep } from './sweep.js'
import { shallowIdentity } from '../git/shallow-file.js'
import { listStore } from '../git/object-store.js'
import { verifySharedStore } from '../git/shared-store.js'
import { prepareSandbox, type PreparedSandbox } from '../sandbox/configs.js'
import { sandboxFacts, sandboxPaths } from '../sandbox/paths.js'
import { handOut, rerereEnabled } from '../sandbox/stand-ins.js'
import { takeParked } from '../exit/worktree-pool.js'
import { remoteTips } from '../remote/tips.js'
import { type OnRemote } from '../remote/tips.js'
import { once } from '../os/once.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'
import { restoreRef } from '../record/refs.js'
import { madeByThisJob } from '../record/entered.js'
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
    // Entered by path: a worktree (inputs.ts allows no clone there).
    const kind = kindFor(settings)
    const folder = settings.path ? undefined : checkWorktreesFolder(settings.worktreesDir, repo.toplevel)
    saveCommonDirState(repo.commonDir)
    const config = readConfigAtEnter(repo)
    // The remote of enter, asked only where the pool or the sweep meets a commit nothing here saves.
    const onRemote = once(async () => remoteTips(repo, (await config).push))
    const [snapshot, { excludesFile, configFile, entries, remotes, remoteNames, promisor, ...settingsAtEnter }, lfs] = await Promise.all([
      snapshotCheckout(repo.toplevel, repo.gitDir),
      config,
      config.then(({ filters }) => lfsEnvironment(repo, filters)),
      sweep(repo, onRemote, folder ?? defaultWorktreesDir(repo.toplevel))
    ])
    settingsAtEnter.git = setupFromConfig(setup, entries)
    writeSetupFile(settingsAtEnter.git)
    lookup = settings.restore ? await lookUp(repo, settings, settingsAtEnter) : undefined
    const known: Known = { configFile }
    const { record, included, restored, shared } = settings.path
      ? await enterByPath(kind, repo, settings, settingsAtEnter, known)
      : await create(
          kind,
          repo,
          settings,
          folder!,
          { pinned: settingsAtEnter, lfs, excludesFile, known, onRemote, remotes, remoteNames, promisor },
          lookup?.found
        )
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
    const gitDir = kind.gitDir(kind.entry(repo.commonDir, record.id!), record.path)
    const commonDir = kind.own(repo, gitDir).commonDir
    record.shallow = shallowIdentity(commonDir)
    // Last, once every object of ours is in: what the agent writes after this is verified before an exit believes it.
    record.objects = writeStepFile(listStore(path.join(commonDir, 'objects')), record.token, 'objects')
    persist(kind, repo.commonDir, record)
    // After the record file, so that the lists see it.
    const facts = { ...sandboxFacts(realPath(record.path), realPath(gitDir), realPath(repo.commonDir)), clone: kind.ownRepository }
    const paths = await handOut(sandboxPaths(facts), () => Promise.resolve(rerereEnabled(entries)))
    const sandbox = prepareSandbox(facts, record.token, process.env, paths)
    return { record, gitDir, commonDir, restored, sandbox }
  } finally {
    await lookup?.dispose()
  }
}

/**
 * The record as it stands, where the next step finds it: in the record file beside the lock (sealed), and in the
 * step's state, which the post reads.
 */
function persist(kind: Kind, commonDir: string, record: WorktreeRecord): void {
  writeRecordFile(kind.entry(commonDir, record.id!), record)
  saveRecordState(record)
}

/** The rescue to restore, fetched and checked before anything is created; its module is loaded only for a restore. */
async function lookUp(repo: Repository, settings: EnterSettings, pinned: ConfigAtEnter): Promise<Lookup> {
  const { findRescue } = await import(/* webpackChunkName: "restore" */ '../rescue/find-rescue.js')
  const ref = restoreRef(randomBytes(6).toString('hex'))
  // Saved before the fetch: the post deletes what a main step cut short left.
  saveRestoreRefState(ref)
  const lookup = await findRescue(repo, settings.restore!, {
    ref,
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
 * Checks and creation run under the repository lock, so that two legs asking for one name cannot both
 * pass the checks; the fetch and the checkout, the slow parts, run outside it.
 */
async function create(kind: Kind, repo: Repository, settings: EnterSettings, folder: string, atEnter: AtEnter, found: Found | undefined): Promise<Entered> {
  const { pinned, lfs, excludesFile, known, onRemote, remotes, remoteNames, promisor } = atEnter
  const fetched = settings.fetch ? await fetchBase(repo, settings.baseRef, remotes, promisor) : undefined
  const plan = await withRepositoryLock(repo.commonDir, async () => {
    // Before anything is made: what an agent of an earlier job wrote into the shared store is not what this
    // job's worktree (new, or taken from the pool) starts from.
    await verifySharedStore(repo.commonDir)
    if (fetched) await moveFetched(repo, fetched)
    const planned = await planCreate(repo, settings, pinned, folder, remoteNames)
    const { record } = planned
    // Saved before anything is created, so that a post after a crash or a cancel finds it.
    saveRecordState(record)
    throwIfCancelled()
    // Made now, or by an earlier main step of the job: it goes with the last worktree in it.
    const [madeNow] = makeFolders(path.dirname(record.path))
    const madeFolder = madeNow ?? madeByThisJob(path.dirname(record.path))
    if (madeFolder) record.madeFolder = madeFolder
    const making = {
      lockReason: lockReason(record.token, record.owner),
      // A clone needs the rescue's commit besides: it has only what it borrowed when it was made.
      also: found ? [found.snapshot.commit] : [],
      refused: (said: string) => addRefused(said, settings, record)
    }
    const taken = record.recycle ? await takeParked(kind, repo, record, { ...making, describe: heldBackWhy, push: pinned.push, onRemote }) : undefined
    reportHeldBack(taken?.heldBack ?? [])
    if (taken?.made) record.taken = new Date().toISOString()
    const made = taken?.made ?? (await kind.make(repo, record, making))
    record.id = path.basename(made.entry)
    if (made.borrowed) record.borrowed = made.borrowed
    if (!taken?.made) await shapeCheckout(record, kind.gitDir(made.entry, record.path), settings)
    persist(kind, repo.commonDir, record)
    return { ...planned, taken: Boolean(taken?.made) }
  })
  const { record } = plan
  const checkout: Checkout = { lfs, promisor, sparsePaths: settings.sparsePaths }
  let shared: Promise<StepFile | undefined> | undefined
  // What is shared is read while git checks the files out, once this step's own changes to it are made (the
  // branch, a fetched base, sparse settings), and never after anything of the agent's ran.
  await checkOutFiles(kind, repo, record, plan.taken, checkout, () => {
    shared = sharedAtEnter(repo, record, known)
  })
  record.checkedOut = true
  persist(kind, repo.commonDir, record)
  if (plan.taken) reportTaken(record.path)
  // Before the job's own files (links, include-file copies) go in: those go only where the rescue left room.
  const restored = found ? await restore(kind, repo, record, found, checkout) : undefined
  return { record, restored, included: await prepare(repo, plan, excludesFile), shared: await shared }
}

/** What the main step read before anything was made. */
interface AtEnter {
  pinned: ConfigAtEnter
  lfs: Checkout['lfs']
  excludesFile: string
  known: Known
  onRemote: () => Promise<OnRemote>
  /** The remotes' fetch URLs of enter, and a partial clone's promisor remote: where a fetch through a view asks. */
  remotes: Record<string, string>
  /** Every remote of the config of enter, with a URL or not. */
  remoteNames: string[]
  promisor: Checkout['promisor']
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
async function restore(kind: Kind, repo: Repository, record: WorktreeRecord, found: Found, checkout: Checkout): Promise<Restored> {
  const { restoreInto } = await import('../rescue/restore.js')
  const gitDir = kind.gitDir(kind.entry(repo.commonDir, record.id!), record.path)
  try {
    await prefetchBlobs(repo, [found.snapshot.index, found.snapshot.tree], checkout.sparsePaths, checkout.promisor)
    return await restoreInto(found, record, gitDir, kind.own(repo, gitDir).commonDir, checkout.lfs)
  } catch (error) {
    throw checkoutError(error as Error, record)
  }
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
 * Enters an existing worktree. One that a live job holds is refused; one a job that has ended kept is
 * taken over (lock and record); an unlocked one is locked for the job, and gets its state back when kept.
 */
async function enterByPath(kind: Kind, repo: Repository, settings: EnterSettings, pinned: ConfigAtEnter, known: Known): Promise<Entered> {
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
  await withRepositoryLock(repo.commonDir, async () => {
    await verifySharedStore(repo.commonDir)
    const lock = lockOf(gitDir)
    const held = parseLock(lock)
    if (held.kind === 'parked') {
      throw new InputError('path', given, 'it is parked in the pool of worktrees', 'Enter a new worktree with recycle: true to take one from the pool.')
    }
    if (held.kind === 'job') {
      const holder = readRecordFile(gitDir)
      const over = recordMatchesLock(lock, holder) && (sameJob(holder.owner, me) || jobOver(holder.owner, me))
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
    persist(kind, repo.commonDir, record)
  })
  return { record, included: {}, shared: await sharedAtEnter(repo, record, known) }
}
