// Tells people and agents what an exit found and did: log, annotation, job summary, outputs. Text from the
// repository, git or a record file goes out on one line: a newline in it cannot start a workflow command.
import * as core from '@actions/core'
import type { ExitResult } from './exit-worktree.js'
import { describeFindings } from './safety-gate.js'

const LISTED = 10

/** One line, without control characters: safe to log and to hand to later steps. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ')
}

/** A word as a POSIX shell reads it back unchanged: quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9._/+@:=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

export function report(result: ExitResult): void {
  if (result.breach.length) {
    const shown = result.breach.slice(0, LISTED).join(', ') + (result.breach.length > LISTED ? `, and ${result.breach.length - LISTED} more` : '')
    core.warning(
      oneLine(
        `The original checkout ${result.record.repository} changed while the job worked in ${result.path}, which should have left it alone: ${shown}. Give the agent the worktree-path output as its working directory.`
      ),
      { title: 'agent-worktree: isolation breach' }
    )
  }
  for (const problem of result.rescue?.problems ?? []) core.warning(oneLine(problem), { title: 'agent-worktree: rescue' })
  if (!result.warning) return core.info(oneLine(result.message))
  const lines = [result.message]
  const { uncommitted = [], unsavedCommits = [], nested = [] } = result.findings ?? {}
  if (uncommitted.length) lines.push(`Uncommitted: ${uncommitted.slice(0, LISTED).join(', ')}${uncommitted.length > LISTED ? ', …' : ''}`)
  if (unsavedCommits.length) lines.push(`Unsaved commits: ${unsavedCommits.slice(0, LISTED).join(', ')}${unsavedCommits.length > LISTED ? ', …' : ''}`)
  if (nested.length) lines.push(`Nested repositories with work: ${nested.slice(0, LISTED).join(', ')}`)
  core.warning(lines.map(oneLine).join('\n'), { title: 'agent-worktree' })
}

export function setExitOutputs(result: ExitResult): void {
  core.setOutput('action', result.action)
  core.setOutput('removed', String(result.removed))
  core.setOutput('reason', result.reason)
  core.setOutput('worktree-path', result.path)
  core.setOutput('original-path', result.record.repository)
  core.setOutput('branch', result.record.branch)
  core.setOutput('uncommitted-files', String(result.findings?.uncommitted.length ?? 0))
  core.setOutput('unsaved-commits', String(result.findings?.unsavedCommits.length ?? 0))
  core.setOutput('rescued', String(result.rescue?.rescued ?? false))
  core.setOutput('rescue-ref', result.rescue?.branch ?? '')
  core.setOutput('rescue-artifact', result.rescue?.artifact ?? '')
  core.setOutput('message', oneLine(result.message))
}

function listing(title: string, items: string[]): string {
  if (!items.length) return ''
  const shown = items
    .slice(0, LISTED)
    .map(i => `<li><code>${escape(i)}</code></li>`)
    .join('')
  const more = items.length > LISTED ? `<li>… and ${items.length - LISTED} more</li>` : ''
  return `<details><summary>${title} (${items.length})</summary><ul>${shown}${more}</ul></details>`
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Appends to the job summary; a summary that cannot be written (no runner) is not an error of the exit. */
export async function writeSummary(result: ExitResult): Promise<void> {
  const { record, findings, rescue } = result
  const found = findings ? `${describeFindings(findings)}${findings.error ? ` (state unknown: ${escape(findings.error)})` : ''}` : '—'
  const done = result.removed ? (result.reason === 'parked' ? 'parked' : 'removed') : findings ? 'kept' : 'nothing'
  const restore = rescue?.restore.length ? `<p>Restore:</p><pre>${rescue.restore.map(escape).join('\n')}</pre>` : ''
  try {
    await core.summary
      .addHeading(`agent-worktree: ${escape(record.name)}`, 3)
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
          escape(record.name),
          escape(record.branch || '(detached)'),
          record.baseSha.slice(0, 12),
          escape(result.path),
          found,
          `${done} (${result.reason})`,
          rescue?.rescued ? escape([rescue.branch, rescue.artifact].filter(Boolean).join(', ')) : rescue?.snapshot ? 'on this machine only' : '—'
        ]
      ])
      .addRaw(`<p>${escape(oneLine(result.message))}</p>${restore}`, true)
      .addRaw(
        listing('Uncommitted files', findings?.uncommitted ?? []) +
          listing('Unsaved commits', findings?.unsavedCommits ?? []) +
          listing('Nested repositories with work', findings?.nested ?? []) +
          listing(`Changed in the original checkout ${escape(record.repository)}`, result.breach),
        true
      )
      .write()
  } catch (error) {
    core.debug(oneLine(`No job summary written: ${(error as Error).message}`))
  }
}
