// The job summary of an exit: a table, the message, the restore commands and what was found, as HTML of ours in
// which no name of the agent's forms a tag or Markdown. GitHub's Markdown renders nothing inside an HTML block, so
// a name our words quote as a code span (quote.ts) is written there as <code>, never with its backticks.
import { core } from '../toolkit.js'
import type { ExitResult } from '../../exit/exit-worktree.js'
import { escaped, oneLine, quoted } from '../../os/quote.js'
import { describeCommit, describeFindings, describeNested, describeReclaimed, describeShared, describeUncommitted, LISTED } from './words.js'
import { messageOf, restoreCommands } from './exit.js'

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
 * Text of ours, its names quoted, in the job summary's HTML: each quoted name as <code>, no tag or entity of a
 * name's, and one line (a blank line would end the HTML block, and what follows would render as Markdown of the
 * agent's).
 */
export function html(text: string): string {
  const line = oneLine(text)
  let out = ''
  let at = 0
  // A code span as Markdown reads one: a run of backticks, to the next run of exactly as many.
  const fences = /`+/g
  for (let open = fences.exec(line); open; open = fences.exec(line)) {
    const close = new RegExp(`(?<!\`)${open[0]}(?!\`)`, 'g')
    close.lastIndex = fences.lastIndex
    const end = close.exec(line)
    if (!end) continue
    out += `${escapeHtml(line.slice(at, open.index))}<code>${escapeHtml(spanText(line.slice(fences.lastIndex, end.index)))}</code>`
    at = fences.lastIndex = close.lastIndex
  }
  return out + escapeHtml(line.slice(at))
}

/** A code span's text: one space at each end dropped when both ends have one (quoted pads so), as Markdown does. */
function spanText(inside: string): string {
  return /^ .*[^ ].* $/.test(inside) ? inside.slice(1, -1) : inside
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** A link to the pull request the exit opened or found open. */
function pullRequestLink({ pullRequest }: ExitResult): string {
  if (!pullRequest || !('number' in pullRequest) || !/^https?:\/\//.test(pullRequest.url)) return ''
  return `<p>Pull request: <a href="${html(pullRequest.url).replace(/"/g, '&quot;')}">#${pullRequest.number}</a></p>`
}

/** Appends to the job summary; a summary that cannot be written (no runner) is not an error of the exit. */
export async function writeSummary(result: ExitResult): Promise<void> {
  const { evidence, findings } = result
  const restore = restoreCommands(result)
  const restoreBlock = restore.length ? `<p>Restore:</p><pre>${restore.map(command => html(escaped(command))).join('\n')}</pre>` : ''
  const reclaimed = describeReclaimed(result.reclaimed, result.path)
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
        summaryRow(result)
      ])
      .addRaw(
        `<p>${messageOf(result).split('\n').map(html).join('<br>')}</p>${reclaimed ? `<p>${html(reclaimed)}</p>` : ''}${pullRequestLink(result)}${restoreBlock}`,
        true
      )
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

/** The table's row of one exit: its names quoted, what it found, what it did, where its rescue went. */
function summaryRow(result: ExitResult): string[] {
  const { evidence, findings, rescue } = result
  const found = findings ? `${describeFindings(findings)}${findings.error ? ` (state unknown: ${html(findings.error)})` : ''}` : '—'
  const done = result.removed ? (result.reason === 'parked' ? 'parked' : 'removed') : findings ? 'kept' : 'nothing'
  const where = [rescue?.branch?.name, rescue?.artifact?.name].filter((name): name is string => Boolean(name))
  return [
    html(quoted(evidence.name)),
    evidence.branch ? html(quoted(evidence.branch)) : '(detached)',
    evidence.believed.base?.slice(0, 12) ?? '—',
    html(quoted(result.path)),
    found,
    `${done} (${result.reason})`,
    where.length ? html(where.map(quoted).join(', ')) : rescue?.snapshot ? 'on this machine only' : '—'
  ]
}
