// Tells people and agents what an exit found and did: every sentence of the message, the log, annotations,
// the job summary and the outputs is written here, from the data the logic returns. Every name from the repository,
// the agent or a record file is shown quoted (os/quote.ts), every line goes out as one line: nothing in a name ends
// a block, forms Markdown, or starts a workflow command.
import * as core from '@actions/core'
import * as path from 'node:path'
import type { ActFate } from './act.js'
import type { ExitResult } from '../exit/exit-worktree.js'
import { shellQuote, type Resident } from '../os/processes.js'
import { escaped, oneLine, quoted } from '../os/quote.js'
import type { Outcome } from '../exit/remove-worktree.js'
import { rescueLabel } from '../rescue/names.js'
import { rescued, type RescueResult, type Withheld } from '../rescue/rescue.js'
import type { Nothing } from '../rescue/find-rescue.js'
import type { Restored } from '../rescue/restore.js'
import { OVER_LIMIT } from '../rescue/snapshot.js'
import type { Findings, Nested, NestedWork, SpecialFile, Uncommitted, UnsavedCommit } from '../gate/findings.js'
import type { BranchDeletion } from '../gate/delete-branch.js'
import { fromElsewhere, type Origin, type SharedChange } from '../shared/shared-state.js'
import type { WorktreeRecord } from '../record/state-helper.js'
import type { HeldBack } from '../exit/worktree-pool.js'

const LISTED = 10

/** The exit's message: what was found, what was done, what to do next. */
export function messageOf(result: ExitResult): string {
  const where = `${quoted(result.path)}${result.movedFrom ? ` (moved there from ${quoted(result.movedFrom)})` : ''}`
  switch (result.reason) {
    case 'gone':
      return `${goneText(result.path, result.evidence.repository)}${clearedText(result)}.`
    case 'exited':
      return `${result.detached ? 'Nothing to decide' : 'Nothing to do'}: the exit step already exited ${quoted(result.path)} (${result.exited}).${detachedText(result)}`
    default:
      if (result.outcome) return outcomeText(result.outcome, where, result)
      return result.foreign ? foreignText(where, result) : keptText(where, result)
  }
}

function goneText(worktree: string, repository: string): string {
  return `Nothing to do: ${quoted(worktree)} is no longer a worktree of ${quoted(repository)}`
}

/**
 * The exit sub-action found nothing left to exit (an earlier exit, or the agent's git worktree remove, removed
 * it): as the post says it, and the outputs of an exit that had nothing to do.
 */
export function reportGone(worktree: string, repository: string): void {
  const message = oneLine(`${goneText(worktree, repository)}: an earlier exit removed it, or git worktree remove did.`)
  core.info(message)
  const outputs: Record<string, string> = {
    action: 'keep',
    removed: 'false',
    reason: 'gone',
    'worktree-path': worktree,
    'original-path': repository,
    branch: '',
    'uncommitted-files': '0',
    'unsaved-commits': '0',
    rescued: 'false',
    'rescue-ref': '',
    'rescue-artifact': '',
    'shared-changes': '[]',
    message
  }
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
}

function clearedText({ cleared }: ExitResult): string {
  const parts = [cleared?.gitDir && `its git dir ${quoted(cleared.gitDir)}`, cleared?.folder && 'its empty folder'].filter(Boolean)
  const removed = parts.length ? `; removed ${parts.join(' and ')}, left by a step that was cut short` : ''
  const branch = cleared?.branch?.deleted
    ? `; deleted its branch ${quoted(cleared.branch.branch)}, which no worktree has checked out any more and whose commits are saved`
    : ''
  return `${removed}${branch}`
}

function foreignText(where: string, result: ExitResult): string {
  const unproven = result.foreign?.unproven
  const why = unproven
    ? 'its lock and record are gone, so it cannot be proven to be the worktree this job entered'
    : `it is locked by someone else (${result.foreign?.lock ? quoted(result.foreign.lock) : 'no reason given'})`
  const next = unproven ? 'Look at it, and remove it by hand if nothing there is needed.' : 'Unlock it with git worktree unlock if it should go.'
  return `Kept ${where}: ${why}; it has ${describeFindings(result.findings!)}.${withSpace(rescueSummary(result))} ${next}`
}

function keptText(where: string, result: ExitResult): string {
  const findings = result.findings!
  const rescue = withSpace(rescueSummary(result))
  const detached = detachedText(result)
  switch (result.verdict) {
    case 'keep-asked':
      return `Kept ${where} as on-exit: keep asked; it has ${describeFindings(findings)}${findings.error ? ` (state not fully known: ${findings.error})` : ''}.${rescue}${detached}`
    case 'keep-unknown':
      return `Kept ${where}: its state could not be determined (${findings.error}), so nothing was removed.${rescue} Look at it, and remove it by hand if nothing there is needed.${detached}`
    default:
      return `Kept ${where}: it has ${describeFindings(findings)}${unasked(findings)}.${rescue} Commit and push the work, or exit with discard-changes: true to remove it anyway.${detached}`
  }
}

/**
 * A kept worktree at the end of the job: its branch goes with the next actions/checkout, the kept ref stays; the
 * command pushes the branch from the detached HEAD (a plain `git push origin HEAD` cannot name a branch there).
 */
function detachedText(result: ExitResult): string {
  if (!result.detached) return ''
  const remote = plainRemote(result.evidence.believed.push?.remote)
  const push = `git -C ${shellQuote(result.path)} push ${remote} ${shellQuote(`HEAD:refs/heads/${result.detached}`)}`
  return ` It was detached from its branch ${quoted(result.detached)} at the same commit, as the next actions/checkout on this runner deletes every local branch; ${result.keptRef ? quoted(result.keptRef) : 'its HEAD'} keeps its commits, and ${quoted(push)} pushes them.`
}

/** A remote's name from a record file could read as an option: only a plain one is shown. */
function plainRemote(name: string | undefined): string {
  return name && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) ? name : 'origin'
}

function outcomeText(outcome: Outcome, where: string, result: ExitResult): string {
  switch (outcome.reason) {
    case 'parked':
      return `Parked ${where} in the pool for the next job and deleted its branch: nothing unsaved was found.`
    case 'busy':
      return `Kept ${where}: ${busyText(outcome)}. Stop them, then remove it with the exit sub-action or by hand.`
    case 'mounted':
      return `Kept ${where}: another file system is mounted inside it (${outcome.mounts.map(quoted).join(', ')}), and removing the folder would delete files that live there. Unmount it, then remove the worktree with the exit sub-action or by hand.`
    case 'changed':
      return `Kept ${where}: it changed while it was being removed (${outcome.findings.error ?? describeFindings(outcome.findings)}); something is still writing there. Look at it, and remove it once it is quiet.`
    case 'incomplete':
      return `Could not finish removing ${where}: ${outcome.left} in ${quoted(outcome.at)}. Its registration and branch are kept, so that the next job's sweep, or a rerun, can finish; or delete that folder by hand and run git worktree prune.`
    case 'clean': {
      const what = result.reason === 'discarded' ? `, discarding ${describeFindings(result.findings!)} as discard-changes asked` : ': nothing unsaved was found'
      return `Removed ${where}${branchText(outcome.branch, result.evidence.source !== 'hint')}${what}.`
    }
  }
}

function busyText(outcome: Extract<Outcome, { reason: 'busy' }>): string {
  if (outcome.residents) return describeResidents(outcome.residents)
  if (outcome.unmovable) return `it could not be moved aside for removal (${outcome.unmovable}); a process may hold files open in it`
  return outcome.lockTimeout ?? 'another step holds it'
}

function describeResidents(residents: Resident[]): string {
  const shown = residents.slice(0, 3).map(r => `${r.pid} (${quoted(r.command.slice(0, 80))})`)
  return `${residents.length === 1 ? 'a process still works' : `${residents.length} processes still work`} inside it: ${shown.join(', ')}${residents.length > 3 ? ', …' : ''}`
}

function branchText(branch: BranchDeletion | undefined, own: boolean): string {
  if (!branch) return ''
  if (branch.deleted) return ` and deleted its branch ${quoted(branch.branch)}`
  switch (branch.why) {
    case 'unseen':
      return `; its branch ${quoted(branch.branch)} was kept (its tip could not be read)`
    case 'checked-out':
      return `; its branch ${quoted(branch.branch)} was kept: another worktree has it checked out`
    default:
      return `; its branch ${quoted(branch.branch)} was kept: it ${own ? 'moved after the check' : 'could not be deleted'} (${branch.detail ?? branch.why})`
  }
}

function withSpace(text: string): string {
  return text ? ` ${text}` : ''
}

/** Where the rescued work is, and the commands that bring it back into a clone. */
export function rescueSummary(result: ExitResult, env: NodeJS.ProcessEnv = process.env): string {
  const rescue = result.rescue
  if (!rescue?.snapshot) return ''
  const kept = `Its unsaved work is in commit ${rescue.snapshot.commit.slice(0, 12)} (${quoted(rescue.snapshot.ref)})`
  const where = [
    rescue.branch && `pushed to the branch ${quoted(rescue.branch.name)} of ${quoted(rescue.branch.remote)}`,
    rescue.artifact && `uploaded as the artifact ${quoted(rescue.artifact.name)}`
  ].filter(Boolean)
  if (!where.length) return `${kept}.${rescue.targets.length ? '' : ' Nothing was copied off this machine (rescue: none).'}`
  // Quoted: a command at the end of a sentence would take its full stop along when copied.
  const commands = restoreCommands(result, env).map(quoted).join(', or ')
  const back = rescue.snapshot.head
    ? "The commit's files are the worktree as left; git reset --soft HEAD^ turns them back into uncommitted changes."
    : "The commit's files are the worktree as left; HEAD had no commit then, so the commit has no parent for it."
  return `${kept}, ${where.join(' and ')}. To bring it back into a clone, run ${commands}. ${back}`
}

/** The commands a person pastes: every name in them comes from the step's own state or is quoted for the shell. */
export function restoreCommands(result: ExitResult, env: NodeJS.ProcessEnv = process.env): string[] {
  const rescue = result.rescue
  if (!rescue?.snapshot) return []
  const local = shellQuote(`${rescueLabel(result.evidence)}-rescued`)
  const commands: string[] = []
  if (rescue.branch) {
    const remote = plainRemote(rescue.branch.remote)
    commands.push(`git fetch ${remote} ${shellQuote(rescue.branch.name)} && git switch -c ${local} FETCH_HEAD`)
  }
  if (rescue.artifact) {
    const repo = env.GITHUB_REPOSITORY ? ` --repo ${shellQuote(env.GITHUB_REPOSITORY)}` : ''
    // Downloaded outside the clone (inside, git add -A would take the bundle along); for a pull request's
    // merge commit, the commits it was made of come from the remote first.
    const needs = rescue.artifact.needs.length ? ` && git fetch origin ${rescue.artifact.needs.join(' ')}` : ''
    // Its Git LFS objects into the clone's LFS store before the switch, which then smudges them.
    const lfs = rescue.artifact.lfs
      ? ` && mkdir -p "$(git rev-parse --git-common-dir)/lfs" && cp -R "$d/lfs/objects" "$(git rev-parse --git-common-dir)/lfs/"`
      : ''
    commands.push(
      `d=$(mktemp -d) && gh run download ${shellQuote(env.GITHUB_RUN_ID ?? '<run id>')}${repo} --name ${shellQuote(rescue.artifact.name)} --dir "$d"${needs}${lfs} && git fetch "$d/rescue.bundle" ${shellQuote(rescue.snapshot.ref)} && git switch -c ${local} FETCH_HEAD && rm -rf "$d"`
    )
  }
  return commands
}

/** What went wrong with a rescue, or what it left out: each one a warning. */
export function rescueProblems(rescue: RescueResult | undefined): string[] {
  if (!rescue) return []
  if (rescue.unmade !== undefined) return [`No rescue: the snapshot of the work could not be made (${rescue.unmade}).`]
  const problems: string[] = []
  const leftOut = rescue.snapshot?.leftOut ?? []
  const [tooBig, unheld] = [leftOut.filter(l => l.why === OVER_LIMIT), leftOut.filter(l => l.why !== OVER_LIMIT)]
  if (tooBig.length) problems.push(`Rescue: left out ${tooBig.length} file(s) over the size limit: ${listed(tooBig.map(l => quoted(l.file)))}.`)
  if (unheld.length) problems.push(`Rescue: left out ${unheld.length} file(s) it cannot hold: ${listed(unheld.map(l => `${quoted(l.file)} (${l.why})`))}.`)
  if (rescue.withheld)
    return [
      ...problems,
      `Rescue: nothing was sent: ${withheldWhy(rescue.withheld)}. The work is in ${quoted(rescue.snapshot?.ref ?? '')} on this machine only.`
    ]
  if (rescue.lfsUnread?.length)
    problems.push(
      `Rescue: ${plural(rescue.lfsUnread.length, 'Git LFS object')} the commits point to (${listed(rescue.lfsUnread.map(oid => oid.slice(0, 12)))}) are not in this repository's LFS store as their names say: sent nowhere.`
    )
  for (const failure of rescue.failures) {
    if (failure.target === 'branch') {
      problems.push(
        failure.cause === 'lfs'
          ? `Rescue to a branch failed: ${failure.said}. The branch was not pushed (its commits without their Git LFS objects are not the work); use rescue: artifact, which carries them.`
          : failure.cause === 'no-remote'
            ? 'Rescue to a branch failed: the repository had no remote when the job entered.'
            : failure.cause === 'unsealed'
              ? "Rescue to a branch failed: the record in the worktree's git dir is not this job's sealed record, so the remote of enter is unknown, and nothing is pushed elsewhere. Use rescue: artifact."
              : failure.cause === 'unreachable'
                ? `Rescue to a branch failed: ${failure.said}. The remote the repository had when the job entered is gone or does not answer; use rescue: artifact.`
                : `Rescue to a branch failed: ${failure.said}. Give the job contents: write permission and actions/checkout's persisted credentials, or use rescue: artifact.`
      )
    } else {
      const hint =
        failure.cause === 'no-service'
          ? ' There is no artifact service here (not on a GitHub runner); use rescue: branch, or none.'
          : failure.cause === 'ghes'
            ? ' GitHub Enterprise Server has no artifact service for this client; use rescue: branch.'
            : ''
      problems.push(`Rescue to an artifact failed: ${failure.said}.${hint}`)
    }
  }
  return problems
}

function withheldWhy(withheld: Withheld): string {
  if (withheld.why === 'oversize') return `it would send ${megabytes(withheld.bytes)} (commits and staged files included), more than rescue-max-size`
  if (withheld.why === 'brought')
    return `a commit or the index would carry the bytes of ${quoted(withheld.file)}, which include-file brought in and which may hold secrets (take it out of the commits, or leave it out of include-file)`
  return "what the job brought in (include-file, the ignore rules of enter) cannot be told apart: the main step's account of it was changed"
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function listed(items: string[]): string {
  return items.slice(0, LISTED).join(', ') + (items.length > LISTED ? ', …' : '')
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** Why pushed work may be among the unsaved commits: the remote of enter, the only proof, could not be asked (or, for a submodule, is not known). */
function unasked(findings: Findings): string {
  const why = [...(findings.remoteUnasked ? [findings.remoteUnasked] : []), ...Object.values(findings.submoduleUnasked ?? {})]
  return why.length && findings.unsavedCommits.length ? ` (the remote could not be asked whether it has them: ${why.join('; ')})` : ''
}

/** "2 uncommitted files and 1 unsaved commit", or "nothing unsaved". */
export function describeFindings(findings: Findings): string {
  const parts: string[] = []
  if (findings.uncommitted.length) parts.push(plural(findings.uncommitted.length, 'uncommitted file'))
  if (findings.unsavedCommits.length) parts.push(plural(findings.unsavedCommits.length, 'unsaved commit'))
  if (findings.nested.length)
    parts.push(findings.nested.length === 1 ? '1 nested repository with work' : `${findings.nested.length} nested repositories with work`)
  return parts.length ? parts.join(' and ') : 'nothing unsaved'
}

/** `XY path`, as git status --porcelain shows it. */
export function describeUncommitted(file: Uncommitted): string {
  return `${file.code} ${quoted(file.path)}`
}

/** `<id> <subject>`, after the submodule's path when it is in one. */
export function describeCommit(commit: UnsavedCommit): string {
  return `${commit.submodule ? `${quoted(commit.submodule)}: ` : ''}${commit.commit} ${quoted(commit.subject)}`
}

/** `path: what it is and holds`. */
export function describeNested(nested: NestedWork): string {
  return `${quoted(nested.path)}: ${describeNestedWork(nested)}`
}

function describeNestedWork(nested: Nested): string {
  switch (nested.state) {
    case 'unreadable':
      return `a ${nested.what} whose state could not be read`
    case 'too-deep':
      return `a ${nested.what === 'submodule' ? 'submodule' : 'repository'} nested too deep to look into`
    case 'locked':
      return 'a locked worktree'
    case 'commits':
      return nested.what === 'bare repository' ? 'a bare repository with commits' : `a ${nested.what} with commits that no remote has`
    case 'uncommitted':
      return `a ${nested.what} with ${plural(nested.files, 'uncommitted file')}`
    case 'holding':
      return `a ${nested.what} holding ${nested.inside.map(describeNested).join('; ')}`
  }
}

/** `path (a named pipe)`. */
export function describeSpecial(special: SpecialFile): string {
  return `${quoted(special.path)} (${special.kind === 'fifo' ? 'a named pipe' : special.kind === 'socket' ? 'a socket' : 'a device'})`
}

/** Says what the exit found and did: a warning when a person should look, a line of the log otherwise. */
export function report(result: ExitResult, prefix = ''): void {
  if (result.breach.length) {
    const shown = result.breach.slice(0, LISTED).join(', ') + (result.breach.length > LISTED ? `, and ${result.breach.length - LISTED} more` : '')
    core.warning(
      oneLine(
        `The original checkout ${quoted(result.evidence.repository)} changed while the job worked in ${quoted(result.path)}, which should have left it alone: ${shown}. Give the agent the worktree-path output as its working directory.`
      ),
      { title: 'agent-worktree: isolation breach' }
    )
  }
  reportShared(result)
  for (const problem of rescueProblems(result.rescue)) core.warning(oneLine(problem), { title: 'agent-worktree: rescue' })
  if (result.pushed && 'failed' in result.pushed) core.warning(oneLine(pushFailure(result.pushed)), { title: 'agent-worktree: push' })
  else if (result.pushed)
    core.info(
      oneLine(
        `Pushed ${result.pushed.commit.slice(0, 12)} to the branch ${quoted(result.pushed.branch)} of ${quoted(result.pushed.remote)} (${quoted(result.pushed.url)}).`
      )
    )
  const message = `${prefix}${messageOf(result)}`
  if (!result.warning) return core.info(oneLine(message))
  core.warning([message, ...findingLines(result.findings)].map(oneLine).join('\n'), { title: 'agent-worktree' })
}

/**
 * What changed in what every worktree shares: a warning for what may be the job's, a line of the log for what
 * another job's worktree or the remote explains.
 */
function reportShared(result: ExitResult): void {
  const repository = result.evidence.repository
  const [elsewhere, here] = [result.shared.filter(fromElsewhere), result.shared.filter(c => !fromElsewhere(c))]
  if (here.length)
    core.warning(
      oneLine(
        `What every worktree of ${quoted(repository)} shares changed while the job worked in ${quoted(result.path)}: ${counted(here.map(describeShared))}. In a clone shared with other jobs, a change may come from another job running at the same time; where the worktrees or a reflog tell, it is said. Nothing was put back.`
      ),
      { title: 'agent-worktree: shared state' }
    )
  if (elsewhere.length)
    core.info(oneLine(`Changed meanwhile in what every worktree of ${quoted(repository)} shares, by another job: ${counted(elsewhere.map(describeShared))}.`))
}

function counted(items: string[]): string {
  return items.slice(0, LISTED).join(', ') + (items.length > LISTED ? `, and ${items.length - LISTED} more` : '')
}

/** One change to what every worktree shares, and where it belongs as far as can be told. */
export function describeShared(change: SharedChange): string {
  // An object id, short; a symbolic ref's target ("ref:refs/remotes/origin/main") whole, a name.
  const id = (value: string | undefined): string => (value && /^[0-9a-f]+$/.test(value) ? value.slice(0, 12) : quoted(value ?? ''))
  const what = change.kind === 'ref' ? quoted(change.name) : `${change.kind} ${quoted(change.name)}`
  // null: one of a folder of many loose refs, recorded by name, and no reflog kept its id.
  const was = change.from === null ? 'an id not recorded at enter' : id(change.from)
  const done =
    change.change === 'moved'
      ? `moved from ${was} to ${id(change.to)}`
      : change.change === 'created'
        ? `created at ${id(change.to)}`
        : change.change === 'deleted'
          ? `deleted (it was at ${was})`
          : change.change
  return `${what} ${done}${originText(change.origin)}`
}

function originText(origin: Origin | undefined): string {
  const holder = origin?.holder
  const who = !holder
    ? undefined
    : holder.whose === 'this-job'
      ? "this job's worktree"
      : holder.whose === 'other-job'
        ? `the worktree ${quoted(holder.folder)}, which another job holds (${holder.job})`
        : `the worktree ${quoted(holder.folder)}`
  const parts = [
    origin?.remote && 'as the remote has it',
    origin?.reflog && `reflog: ${quoted(origin.reflog.slice(0, 80))}`,
    who && (origin?.how === 'branch' ? `the branch of ${who}` : `made in ${who}`)
  ]
  return parts.some(Boolean) ? ` (${parts.filter(Boolean).join('; ')})` : ''
}

/** At most this many changes go into the shared-changes output (the warning gives the count). */
const MAX_OUTPUT_CHANGES = 1000

/** The shared-changes output: JSON, one object per change, where it belongs flattened into it. */
export function sharedChangesOutput(changes: SharedChange[]): string {
  return JSON.stringify(
    changes.slice(0, MAX_OUTPUT_CHANGES).map(({ origin, ...change }) => ({
      ...change,
      reflog: origin?.reflog,
      worktree: origin?.holder?.folder,
      whose: origin?.holder?.whose,
      job: origin?.holder?.job,
      how: origin?.how
    }))
  )
}

/** What every worktree shares could not be read at enter: the exit will not say what changed in it. */
export function reportSharedUnread(why: string): void {
  core.info(oneLine(`What every worktree of the repository shares (refs, config, hooks) could not be read, so the exit will not report changes to it: ${why}`))
}

function findingLines(findings: Findings | undefined): string[] {
  const { uncommitted = [], unsavedCommits = [], nested = [], special = [], broughtChanged = [] } = findings ?? {}
  return [
    uncommitted.length && `Uncommitted: ${listed(uncommitted.map(describeUncommitted))}`,
    unsavedCommits.length && `Unsaved commits: ${listed(unsavedCommits.map(describeCommit))}`,
    nested.length && `Nested repositories with work: ${nested.slice(0, LISTED).map(describeNested).join(', ')}`,
    special.length && `Named pipes, sockets or devices where files were (never read): ${listed(special.map(describeSpecial))}`,
    broughtChanged.length && `Brought in by include-file and changed since (never rescued: they may hold secrets): ${listed(broughtChanged.map(quoted))}`
  ].filter((line): line is string => typeof line === 'string')
}

export function setExitOutputs(result: ExitResult): void {
  core.setOutput('action', result.action)
  core.setOutput('removed', String(result.removed))
  core.setOutput('reason', result.reason)
  core.setOutput('worktree-path', result.path)
  core.setOutput('original-path', result.evidence.repository)
  core.setOutput('branch', result.evidence.branch)
  core.setOutput('uncommitted-files', String(result.findings?.uncommitted.length ?? 0))
  core.setOutput('unsaved-commits', String(result.findings?.unsavedCommits.length ?? 0))
  core.setOutput('rescued', String(rescued(result.rescue)))
  core.setOutput('rescue-ref', result.rescue?.branch?.name ?? '')
  core.setOutput('rescue-artifact', result.rescue?.artifact?.name ?? '')
  const pushed = result.pushed && !('failed' in result.pushed) ? result.pushed : undefined
  core.setOutput('pushed', String(pushed !== undefined))
  core.setOutput('pushed-branch', pushed?.branch ?? '')
  core.setOutput('pushed-commit', pushed?.commit ?? '')
  core.setOutput('shared-changes', sharedChangesOutput(result.shared))
  core.setOutput('message', oneLine(messageOf(result)))
}

/** Why the push input's push did not happen, and what the work became. */
export function pushFailure(pushed: { branch: string; failed: string }): string {
  return `The worktree's HEAD was not pushed to the branch ${quoted(pushed.branch)}: ${pushed.failed}. What is unsaved was judged as if no push had been asked.`
}

/** The post could not exit the worktree: it stays as it is, and the job is not failed for it. */
export function reportExitFailure(worktree: string | undefined, error: Error): void {
  core.warning(
    oneLine(
      `agent-worktree could not exit ${worktree === undefined ? 'the worktree' : quoted(worktree)} and left it as it is: ${error.message}. The sweep of the next job on this runner finishes what is safe to finish.`
    ),
    { title: 'agent-worktree' }
  )
}

/** What the main step entered, and what act will do with it. */
export function reportEntered(record: Pick<WorktreeRecord, 'created' | 'path' | 'branch' | 'baseSha'>, fate: ActFate | undefined): void {
  const note = fate && actNote(fate)
  if (note?.level === 'warning') core.warning(oneLine(note.message), { title: 'agent-worktree' })
  else if (note) core.info(oneLine(note.message))
  core.info(
    oneLine(
      `${record.created ? 'Created' : 'Entered'} worktree ${quoted(record.path)} on ${record.branch ? `branch ${quoted(record.branch)}` : 'a detached HEAD'} at ${record.baseSha.slice(0, 12)}.`
    )
  )
}

/** Under act: what goes with act's clean-up, said as a warning when unsaved work goes too, else as a line of the log. */
export function actNote(fate: ActFate): { level: 'warning' | 'info'; message: string } {
  const rescue = fate.rescued
    ? 'rescue: branch pushes unsaved work to the remote before that.'
    : 'To keep unsaved work, give repository-path a clone outside it (your own checkout), or set rescue: branch to push unsaved work to the remote.'
  if (fate.mode === 'host') {
    const goes = [
      fate.worktree && `the worktree ${quoted(fate.worktree)}`,
      fate.repository && `its branch, commits and registration (in act's copy of the repository, ${quoted(fate.repository)})`
    ].filter(Boolean)
    return {
      level: fate.rescued ? 'info' : 'warning',
      message: `Running under act in host mode, which deletes its job folder ${quoted(fate.folder)} when the job succeeds (it keeps it after a failure): ${goes.join(' and ')} go with it. ${rescue}`
    }
  }
  if (!fate.outside) {
    return {
      level: 'info',
      message: `Running under act in a container: the worktree ${quoted(fate.worktree)} stays only if act runs with --bind, which mounts the workspace ${quoted(fate.workspace)} from the disk; without --bind, act removes the workspace with the container.${fate.rescued ? ` ${rescue}` : ''}`
    }
  }
  const outside = fate.outside.repository
    ? `its repository ${quoted(fate.outside.repository)}`
    : `the worktree ${quoted(fate.outside.worktree ?? fate.worktree)}`
  return {
    level: fate.rescued ? 'info' : 'warning',
    message: `Running under act in a container, which act removes after the job with all that is not mounted from the disk (the workspace is, with --bind): ${outside} lies outside the workspace and goes with it, unless mounted. ${
      fate.rescued
        ? rescue
        : 'To keep unsaved work, set worktrees-dir to a folder inside the workspace that git ignores (for example .worktrees, listed in .gitignore) and run act with --bind, or set rescue: branch to push unsaved work to the remote.'
    }`
  }
}

/** What a restore put back into the new worktree, and what it could not. */
export function reportRestored(restored: Restored, record: Pick<WorktreeRecord, 'path' | 'branch' | 'baseSha'>): void {
  const from = `the ${restored.kind === 'branch' ? 'branch' : 'artifact'} ${quoted(restored.name)}`
  const was = restored.wasOn && restored.wasOn !== record.branch ? ` (the rescue's was ${quoted(restored.wasOn)})` : ''
  const head = !restored.head
    ? `its branch ${quoted(record.branch)} without a commit yet, as the rescue's was`
    : `HEAD at ${restored.head.slice(0, 12)} ${restored.onBranch ? `on its branch ${quoted(record.branch)}${was}` : 'detached, as it was'}`
  const kept = restored.kept.length ? ` Commits HEAD does not reach are kept as ${restored.kept.map(quoted).join(', ')}.` : ''
  const base = restored.otherBase
    ? ` The rescue was made on ${restored.otherBase.slice(0, 12)}, not on this worktree's base ${record.baseSha.slice(0, 12)}: it is restored on its own base, its history as it was.`
    : ''
  core.info(oneLine(`Restored ${from} into ${quoted(record.path)}: ${head}, the index as it was staged, the files as they were left.${kept}${base}`))
  if (restored.notRestored.length)
    core.warning(oneLine(`restore: not put back: ${listed(restored.notRestored.map(n => `${quoted(n.file)} (${n.why})`))}.`), { title: 'agent-worktree' })
}

/** restore: auto found nothing: one line. */
export function reportNothingToRestore(nothing: Nothing): void {
  if (nothing.left.length) {
    const left = nothing.left.map(({ kind, name }) => `the ${kind} ${quoted(name)}`).join(', ')
    const why =
      nothing.left.length === 1
        ? 'a branch is what anyone who may push could have made, and only an artifact of this run proves a rescue this step’s'
        : 'two rescues of one name, job and leg (a reusable workflow called twice in one job, a worktree entered again) cannot be told apart'
    core.warning(
      oneLine(
        `restore: auto restored nothing: attempt ${nothing.attempt - 1} left ${left}, and ${why}. The worktree starts from its base; restore one by name (restore: <name>) if it holds this step's work.`
      ),
      { title: 'agent-worktree' }
    )
    return
  }
  const looked = nothing.looked.join(' or ')
  core.info(
    oneLine(
      nothing.attempt === 1
        ? 'restore: auto: nothing to restore on the first attempt of a run.'
        : looked
          ? `restore: auto: attempt ${nothing.attempt - 1} left no rescue of this step (no ${looked} of its name, job and leg): the worktree starts from its base.`
          : `restore: auto: nothing to restore: this step rescues nowhere (rescue: none), so attempt ${nothing.attempt - 1} left no rescue.`
    )
  )
}

/** Why a parked worktree was taken out of the pool, in its lock and in the warning. */
export function heldBackWhy(findings: Findings): string {
  return findings.error ? `its state could not be read (${findings.error})` : `it holds ${describeFindings(findings)}`
}

/** Parked worktrees that gained work while parked: taken out of the pool and kept. */
export function reportHeldBack(heldBack: HeldBack[]): void {
  for (const held of heldBack.map(({ path, findings }) => `${quoted(path)}: ${heldBackWhy(findings)}`))
    core.warning(
      oneLine(
        `A parked worktree gained work while it was parked, so it was taken out of the pool and kept: ${held}. Look at it, and remove it by hand if nothing there is needed.`
      ),
      { title: 'agent-worktree' }
    )
}

export function reportTaken(worktree: string): void {
  core.info(oneLine(`Took ${quoted(worktree)} from the pool of parked worktrees.`))
}

export function reportTakeover(worktree: string, from: string): void {
  core.info(oneLine(`Taking over ${quoted(worktree)} from ${from}.`))
}

/** What symlink-dirs linked and include-file copied, and what not, with why. */
export function reportPrepared(prepared: {
  toplevel: string
  missingLinks: string[]
  /** Each as said: its folder quoted, and why. */
  unlinked: string[]
  includeFile?: string
  copied: string[]
  notCopied: { file: string; why: string; outside: boolean }[]
}): void {
  const { toplevel, missingLinks, unlinked, includeFile, copied, notCopied } = prepared
  if (missingLinks.length)
    core.warning(oneLine(`symlink-dirs: ${missingLinks.map(quoted).join(', ')} not found in ${quoted(toplevel)}, so not linked.`), { title: 'agent-worktree' })
  if (unlinked.length) core.warning(oneLine(`symlink-dirs: not linked: ${unlinked.join(', ')}.`), { title: 'agent-worktree' })
  if (!includeFile) return
  core.info(
    oneLine(
      `Copied ${copied.length} ignored file(s) that ${quoted(path.relative(toplevel, includeFile))} names${copied.length ? `: ${copied.map(quoted).join(', ')}` : ''}.`
    )
  )
  const outside = notCopied.filter(n => n.outside).map(n => `${quoted(n.file)} (${n.why})`)
  if (outside.length)
    core.warning(oneLine(`include-file: not copied, a folder on the way leads outside the worktree: ${outside.join(', ')}.`), { title: 'agent-worktree' })
  const others = notCopied.filter(n => !n.outside).map(n => `${quoted(n.file)} (${n.why})`)
  if (others.length) core.info(oneLine(`Not copied: ${others.join(', ')}.`))
}

/** What the sweep of a later job did besides the exits it reports one by one. */
export interface Swept {
  repository: string
  /** Parked worktrees removed for their age. */
  expired: string[]
  /** Kept on purpose by earlier jobs: left as they are. */
  kept: { path: string; over: string }[]
  /** Folders whose registration is gone: left as they are. */
  orphans: string[]
}

export function reportSweep(swept: Swept): void {
  if (swept.expired.length)
    core.info(oneLine(`Removed ${swept.expired.length} worktree(s) parked in the pool for more than a day: ${swept.expired.map(quoted).join(', ')}.`))
  if (swept.kept.length)
    core.info(
      oneLine(
        `Kept by earlier jobs, left as they are: ${swept.kept.map(k => `${quoted(k.path)} (by ${k.over})`).join(', ')}. Enter one with path to work on or remove it.`
      )
    )
  if (swept.orphans.length)
    core.warning(
      oneLine(
        `Found ${swept.orphans.length} worktree folder(s) that ${quoted(swept.repository)} no longer knows (was the repository recreated?): ${swept.orphans.map(quoted).join(', ')}. Their files are left as they are: copy out what is needed, then delete the folders.`
      ),
      { title: 'agent-worktree' }
    )
}

/** The outputs of an exit that was cancelled before it decided: nothing was removed. */
export function setCancelledOutputs(why: string): void {
  core.setOutput('action', 'keep')
  core.setOutput('removed', 'false')
  core.setOutput('reason', 'cancelled')
  core.setOutput('message', oneLine(`Nothing was removed: ${why}. The worktree is as it was; the post step exits it at the end of the job.`))
}

function listing(title: string, items: string[]): string {
  if (!items.length) return ''
  const shown = items
    .slice(0, LISTED)
    .map(i => `<li>${html(i)}</li>`)
    .join('')
  const more = items.length > LISTED ? `<li>… and ${items.length - LISTED} more</li>` : ''
  return `<details><summary>${title} (${items.length})</summary><ul>${shown}${more}</ul></details>`
}

/**
 * Text of ours, its names quoted, in the job summary's HTML: no tag or entity of a name's, and one line (a blank
 * line would end the HTML block, and what follows would render as Markdown of the agent's).
 */
function html(text: string): string {
  return oneLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Appends to the job summary; a summary that cannot be written (no runner) is not an error of the exit. */
export async function writeSummary(result: ExitResult): Promise<void> {
  const { evidence, findings, rescue } = result
  const found = findings ? `${describeFindings(findings)}${findings.error ? ` (state unknown: ${html(findings.error)})` : ''}` : '—'
  const done = result.removed ? (result.reason === 'parked' ? 'parked' : 'removed') : findings ? 'kept' : 'nothing'
  const restore = restoreCommands(result)
  const restoreBlock = restore.length ? `<p>Restore:</p><pre>${restore.map(command => html(escaped(command))).join('\n')}</pre>` : ''
  const where = [rescue?.branch?.name, rescue?.artifact?.name].filter((name): name is string => Boolean(name))
  try {
    await core.summary
      .addHeading(`agent-worktree: ${html(quoted(evidence.name))}`, 3)
      .addTable([
        [
          { data: 'name', header: true },
          { data: 'branch', header: true },
          { data: 'base', header: true },
          { data: 'path', header: true },
          { data: 'found', header: true },
          { data: 'done', header: true },
          { data: 'rescued', header: true }
        ],
        [
          html(quoted(evidence.name)),
          evidence.branch ? html(quoted(evidence.branch)) : '(detached)',
          (evidence.believed.base ?? '').slice(0, 12),
          html(quoted(result.path)),
          found,
          `${done} (${result.reason})`,
          where.length ? html(where.map(quoted).join(', ')) : rescue?.snapshot ? 'on this machine only' : '—'
        ]
      ])
      .addRaw(`<p>${html(messageOf(result))}</p>${restoreBlock}`, true)
      .addRaw(
        listing('Uncommitted files', (findings?.uncommitted ?? []).map(describeUncommitted)) +
          listing('Unsaved commits', (findings?.unsavedCommits ?? []).map(describeCommit)) +
          listing('Nested repositories with work', (findings?.nested ?? []).map(describeNested)) +
          listing(`Changed in the original checkout ${html(quoted(evidence.repository))}`, result.breach) +
          listing(`Changed in what every worktree of ${html(quoted(evidence.repository))} shares`, result.shared.map(describeShared)),
        true
      )
      .write()
  } catch (error) {
    core.debug(oneLine(`No job summary written: ${(error as Error).message}`))
  }
}
