// Tells people and agents what an exit found and did: log, annotation, job summary, outputs.
import * as core from '@actions/core'
import type { ExitResult } from './exit-worktree.js'
import { describeFindings } from './safety-gate.js'

const LISTED = 10

export function report(result: ExitResult): void {
  if (result.breach.length) {
    const shown = result.breach.slice(0, LISTED).join(', ') + (result.breach.length > LISTED ? `, and ${result.breach.length - LISTED} more` : '')
    core.warning(
      `The original checkout ${result.record.repository} changed while the job worked in ${result.record.path}, which should have left it alone: ${shown}. Give the agent the worktree-path output as its working directory.`,
      { title: 'agent-worktree: isolation breach' }
    )
  }
  if (!result.warning) return core.info(result.message)
  const lines = [result.message]
  const { uncommitted = [], unsavedCommits = [] } = result.findings ?? {}
  if (uncommitted.length) lines.push(`Uncommitted: ${uncommitted.slice(0, LISTED).join(', ')}${uncommitted.length > LISTED ? ', …' : ''}`)
  if (unsavedCommits.length) lines.push(`Unsaved commits: ${unsavedCommits.slice(0, LISTED).join(', ')}${unsavedCommits.length > LISTED ? ', …' : ''}`)
  core.warning(lines.join('\n'), { title: 'agent-worktree' })
}

export function setExitOutputs(result: ExitResult): void {
  core.setOutput('action', result.action)
  core.setOutput('removed', String(result.removed))
  core.setOutput('worktree-path', result.record.path)
  core.setOutput('original-path', result.record.repository)
  core.setOutput('branch', result.record.branch)
  core.setOutput('uncommitted-files', String(result.findings?.uncommitted.length ?? 0))
  core.setOutput('unsaved-commits', String(result.findings?.unsavedCommits.length ?? 0))
  core.setOutput('message', result.message)
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
  const { record, findings } = result
  const found = findings ? `${describeFindings(findings)}${findings.error ? ` (state unknown: ${escape(findings.error)})` : ''}` : '—'
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
          { data: 'done', header: true }
        ],
        [
          escape(record.name),
          escape(record.branch || '(detached)'),
          record.baseSha.slice(0, 12),
          escape(record.path),
          found,
          result.removed ? 'removed' : findings ? 'kept' : 'nothing'
        ]
      ])
      .addRaw(`<p>${escape(result.message)}</p>`, true)
      .addRaw(
        listing('Uncommitted files', findings?.uncommitted ?? []) +
          listing('Unsaved commits', findings?.unsavedCommits ?? []) +
          listing(`Changed in the original checkout ${escape(record.repository)}`, result.breach),
        true
      )
      .write()
  } catch (error) {
    core.debug(`No job summary written: ${(error as Error).message}`)
  }
}
