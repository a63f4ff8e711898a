// The exit's report: its message, the warnings and lines of the log, and its outputs, as the post and the exit
// sub-action say them (words.ts: how names are shown).
import { core } from '../toolkit.js'
import type { ExitResult } from '../../exit/exit-worktree.js'
import { shellQuote, type Resident } from '../../os/processes.js'
import { oneLine, quoted } from '../../os/quote.js'
import type { Outcome } from '../../exit/remove-worktree.js'
import { rescueLabel } from '../../rescue/names.js'
import { rescued, type RescueResult, type Withheld } from '../../rescue/rescue.js'
import { OVER_LIMIT } from '../../rescue/snapshot.js'
import type { Findings } from '../../gate/findings.js'
import type { BranchDeletion } from '../../gate/delete-branch.js'
import { sweepsHere } from '../../record/ownership.js'
import { fromElsewhere, type SharedChange } from '../../shared/shared-state.js'
import {
  describeCommit,
  describeFindings,
  describeNested,
  describeReclaimed,
  describeShared,
  describeSpecial,
  describeUncommitted,
  LISTED,
  listed,
  plural
} from './words.js'
import { pullRequestSentence, unopened } from './pull-request.js'

/** The exit's message: what was found, what was done, what to do next; a push that was not needed; then the pull request, when one was asked for. */
export function messageOf(result: ExitResult): string {
  const unneeded = result.pushed && 'unneeded' in result.pushed ? ` ${pushUnneeded(result.pushed)}` : ''
  return `${decisionOf(result)}${unneeded}${withSpace(pullRequestSentence(result))}`
}

function decisionOf(result: ExitResult): string {
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
      return unsavedText(where, result)
  }
}

/**
 * Kept for unsaved work: what is unsaved, and the one command that saves it, first; then where the rescue put a
 * copy, why it was detached, and the way to remove it anyway (not where the machine goes with the job anyway).
 * Line by line: the warning shows each on a line of its own.
 */
function unsavedText(where: string, result: ExitResult): string {
  const findings = result.findings!
  const ephemeral = result.evidence.believed.ephemeral
  // Once the job is over on a machine that goes with it, no command run in the worktree saves anything.
  const command = ephemeral && result.step !== 'exit' ? undefined : saveCommand(result)
  return [
    `Kept ${where}: it has ${describeFindings(findings)}${unasked(findings)}.`,
    command ? `To save it, run ${quoted(command)}.` : !ephemeral && 'Commit and push the work to save it.',
    rescueSummary(result),
    detachedText(result, false).trim(),
    !ephemeral && 'Or exit with discard-changes: true to remove it anyway.'
  ]
    .filter(Boolean)
    .join('\n')
}

/**
 * The one command that saves what was kept, in the worktree: back on its branch (when the end of the job detached
 * it, at the same commit), the files as the kept ref holds them into a commit, and a push of what the remote
 * lacks, to the branch the push input names or else the worktree's own. None without a branch to push to.
 */
function saveCommand(result: ExitResult): string | undefined {
  const branch = result.detached ?? result.evidence.branch
  const target = result.pushed?.branch ?? branch
  if (!target) return undefined
  const remote = plainRemote(result.evidence.believed.push?.remote)
  const snapshot = result.rescue?.snapshot?.ref
  const steps = [`cd ${shellQuote(result.path)}`]
  if (result.detached) steps.push(`git switch -C ${shellQuote(result.detached)}`)
  if (result.findings?.uncommitted.length) {
    steps.push(snapshot ? `git restore --source=${shellQuote(snapshot)} --staged -- .` : 'git add -A')
    steps.push(`git commit -m ${shellQuote('Save the work agent-worktree kept')}`)
  }
  steps.push(`git push ${remote} ${shellQuote(result.detached === target ? target : `HEAD:refs/heads/${target}`)}`)
  return steps.join(' && ')
}

/**
 * A kept worktree at the end of the job: its branch goes with the next actions/checkout, the kept ref stays; the
 * command pushes the branch from the detached HEAD (a plain `git push origin HEAD` cannot name a branch there),
 * unless the push input pushed that HEAD already.
 */
function detachedText(result: ExitResult, withPush = true): string {
  if (!result.detached) return ''
  const remote = plainRemote(result.evidence.believed.push?.remote)
  const push = `git -C ${shellQuote(result.path)} push ${remote} ${shellQuote(`HEAD:refs/heads/${result.detached}`)}`
  const pushed = result.pushed && 'commit' in result.pushed && result.pushed.commit === result.findings?.head
  const keeps = `${result.keptRef ? quoted(result.keptRef) : 'its HEAD'} keeps its commits`
  return ` It was detached from its branch ${quoted(result.detached)} at the same commit, as the next actions/checkout on this runner deletes every local branch; ${withPush && !pushed ? `${keeps}, and ${quoted(push)} pushes them` : keeps}.`
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
      return `Could not finish removing ${where}: ${outcome.left} in ${quoted(outcome.at)}. Its registration and branch are kept, so that ${sweepsHere() ? "the next job's sweep, or a rerun, can finish" : 'a rerun can finish'}; or delete that folder by hand and run git worktree prune.`
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
  return "what the job brought in (include-file, the ignore rules of enter) cannot be told apart: the record in the worktree's git dir does not carry this job's seal (it was changed, it is an earlier job's, or no step could seal it: no runtime token, no RUNNER_TEMP)"
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** Why pushed work may be among the unsaved commits: the remote of enter, the only proof, could not be asked (or, for a submodule, is not known). */
function unasked(findings: Findings): string {
  const why = [...(findings.remoteUnasked ? [findings.remoteUnasked] : []), ...Object.values(findings.submoduleUnasked ?? {})]
  return why.length && findings.unsavedCommits.length ? ` (the remote could not be asked whether it has them: ${why.join('; ')})` : ''
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
  else if (result.pushed && 'commit' in result.pushed)
    core.info(oneLine(`Pushed ${result.pushed.commit.slice(0, 12)} to the branch ${quoted(result.pushed.branch)} of ${quoted(result.pushed.remote)}.`))
  const reclaimed = describeReclaimed(result.reclaimed, result.path)
  if (reclaimed) core.info(oneLine(reclaimed))
  if (unopened(result)) core.warning(oneLine(pullRequestSentence(result)), { title: 'agent-worktree: pull request' })
  const message = `${prefix}${messageOf(result)}`
  if (!result.warning) return core.info(oneLine(message))
  core.warning([...message.split('\n'), ...findingLines(result.findings)].map(oneLine).join('\n'), { title: 'agent-worktree' })
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
    core.info(
      oneLine(
        `Changed meanwhile in what every worktree of ${quoted(repository)} shares, by another job or another worktree of this one: ${counted(elsewhere.map(describeShared))}.`
      )
    )
}

function counted(items: string[]): string {
  return items.slice(0, LISTED).join(', ') + (items.length > LISTED ? `, and ${items.length - LISTED} more` : '')
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
      how: origin?.how,
      entry: origin?.entry
    }))
  )
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

/** What the exit sent to the remote: the push, and the pull request of it. */
function setRemoteOutputs(result: ExitResult): void {
  const pushed = result.pushed && 'commit' in result.pushed ? result.pushed : undefined
  core.setOutput('pushed', String(pushed !== undefined))
  core.setOutput('pushed-branch', pushed?.branch ?? '')
  core.setOutput('pushed-commit', pushed?.commit ?? '')
  const pullRequest = result.pullRequest && 'number' in result.pullRequest ? result.pullRequest : undefined
  core.setOutput('pull-request-number', pullRequest ? String(pullRequest.number) : '')
  core.setOutput('pull-request-url', pullRequest?.url ?? '')
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
  setRemoteOutputs(result)
  core.setOutput('shared-changes', sharedChangesOutput(result.shared))
  core.setOutput('message', oneLine(messageOf(result)))
}

/** Why the push input's push did not happen, and what the work became. */
export function pushFailure(pushed: { branch: string; failed: string }): string {
  return `The worktree's HEAD was not pushed to the branch ${quoted(pushed.branch)}: ${pushed.failed}. What is unsaved was judged as if no push had been asked.`
}

/** Why the push input pushed nothing: HEAD has no commit its base lacks, and a branch of it would only pile up. */
function pushUnneeded(pushed: { branch: string; unneeded: { head: string; base: string } }): string {
  const { head, base } = pushed.unneeded
  const which = head === base ? ` is its base, ${head.slice(0, 12)}` : `, ${head.slice(0, 12)}, is an ancestor of its base, ${base.slice(0, 12)}`
  return `Nothing was pushed to the branch ${quoted(pushed.branch)}: the worktree's HEAD${which}, so it has no commit the base lacks.`
}

/** The post could not exit the worktree: it stays as it is, and the job is not failed for it. */
export function reportExitFailure(worktree: string | undefined, error: Error): void {
  core.warning(
    oneLine(
      `agent-worktree could not exit ${worktree === undefined ? 'the worktree' : quoted(worktree)} and left it as it is: ${error.message}. ${sweepsHere() ? 'The sweep of the next agent-worktree step on this runner for this repository finishes what is safe to finish.' : 'No later job sweeps it here: look at it, and remove it with the exit sub-action or by hand (see Troubleshooting in the README).'}`
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
