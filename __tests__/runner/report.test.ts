// Covers: src/runner/report/.
// The report turns what the gate found, which is data, into words: the counts of a message, and each item as
// the summary and the warnings list it; every name in them quoted (src/os/quote.ts), whatever it holds.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { parseAnnotations } from '../../scripts/runner.mjs'
import { core } from '../../src/runner/toolkit.js'
import type { ExitResult } from '../../src/exit/exit-worktree.js'
import type { Findings } from '../../src/gate/findings.js'
import { escaped, oneLine, quoted } from '../../src/os/quote.js'
import type { RescueResult } from '../../src/rescue/rescue.js'
import { OVER_LIMIT } from '../../src/rescue/snapshot.js'
import { describeCommit, describeFindings, describeNested, describeShared, describeSpecial, describeUncommitted } from '../../src/runner/report/words.js'
import { messageOf, pushFailure, report, rescueProblems } from '../../src/runner/report/exit.js'
import { reportEntered, reportPrepared, reportReclaimed, reportSweep, reportTaken, reportTakeover, writeSweepSummary } from '../../src/runner/report/enter.js'
import { writeSummary } from '../../src/runner/report/summary.js'

const none = { nested: [], tips: [] }
const clean: Findings = { uncommitted: [], unsavedCommits: [], ...none }
const dirty: Findings = { uncommitted: [{ code: '??', path: 'a.txt' }], unsavedCommits: [], ...none }

describe('describing what was found', () => {
  it('counts with the right plural', () => {
    expect(describeFindings(clean)).toBe('nothing unsaved')
    expect(describeFindings(dirty)).toBe('1 uncommitted file')
    const many: Findings = {
      uncommitted: [
        { code: '??', path: 'a' },
        { code: ' M', path: 'b' }
      ],
      unsavedCommits: ['c', 'd', 'e'].map(commit => ({ commit, subject: 'work' })),
      ...none
    }
    expect(describeFindings(many)).toBe('2 uncommitted files and 3 unsaved commits')
  })

  it('names each item as git shows it', () => {
    expect(describeUncommitted({ code: ' M', path: 'src/a: b.txt' })).toBe(' M `src/a: b.txt`')
    expect(describeCommit({ commit: 'abc123456789', subject: 'fix: the flaky test' })).toBe('abc123456789 `fix: the flaky test`')
    expect(describeCommit({ commit: 'abc1234', subject: 'add fix.txt', submodule: 'lib' })).toBe('`lib`: abc1234 `add fix.txt`')
    expect(describeSpecial({ path: 'pipe', kind: 'fifo' })).toBe('`pipe` (a named pipe)')
  })

  it('says what a nested repository holds, at any depth', () => {
    expect(describeNested({ path: 'vendor', what: 'repository', state: 'commits' })).toBe('`vendor`: a repository with commits that no remote has')
    expect(describeNested({ path: 'b', what: 'bare repository', state: 'commits' })).toBe('`b`: a bare repository with commits')
    expect(describeNested({ path: 'w', what: 'worktree', state: 'uncommitted', files: 1 })).toBe('`w`: a worktree with 1 uncommitted file')
    expect(describeNested({ path: 'lib', what: 'submodule', state: 'too-deep' })).toBe('`lib`: a submodule nested too deep to look into')
    expect(
      describeNested({
        path: 'outer',
        what: 'repository',
        state: 'holding',
        inside: [
          { path: 'inner', what: 'repository', state: 'uncommitted', files: 2 },
          { path: 'x', what: 'worktree', state: 'locked' }
        ]
      })
    ).toBe('`outer`: a repository holding `inner`: a repository with 2 uncommitted files; `x`: a locked worktree')
  })
})

/** Names an agent (or the repository) chooses: each ends a line, a block or a command, or forms Markdown or HTML, unquoted. */
const HOSTILE = [
  'notes\n\n## Nothing unsaved: removed\n\n**all clean**\n\n</details>',
  'x\n::error::forged',
  '%0A::error::encoded',
  '##[error]legacy',
  '##[stop-commands]token',
  '</code></pre><img src=x>',
  '[ok](https://example.com) | a | b |',
  'a`b`` and nothing unsaved`',
  '\u001b[2Kreport\u202etxt.exe',
  'zero\u200bwidth\u2028sep'
]

/** Everything the step printed while `act` ran, and the annotations the runner reads from it. */
function printed(act: () => void): { stdout: string; annotations: ReturnType<typeof parseAnnotations> } {
  const lines: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    lines.push(String(chunk))
    return true
  })
  try {
    act()
  } finally {
    spy.mockRestore()
  }
  const stdout = lines.join('')
  return { stdout, annotations: parseAnnotations(stdout) }
}

/** A kept worktree whose every name is `name`: files, a commit's subject, a submodule, a nested repository, refs, rescues. */
function keptWith(name: string): ExitResult {
  const evidence = { repository: `/w/${name}`, path: `/w/wt-${name}`, name: 'fix', branch: `b-${name}`, believed: {}, source: 'record' }
  return {
    evidence,
    path: `/w/wt-${name}`,
    action: 'keep',
    removed: false,
    reason: 'unsaved',
    verdict: 'keep-unsaved',
    warning: true,
    detached: `b-${name}`,
    keptRef: 'refs/agent-worktree/kept/fix/t',
    findings: {
      uncommitted: [{ code: '??', path: name }],
      unsavedCommits: [{ commit: 'abc123456789', subject: name, submodule: `lib-${name}` }],
      nested: [{ path: `vendor-${name}`, what: 'repository', state: 'commits' }],
      special: [{ path: `pipe-${name}`, kind: 'fifo' }],
      broughtChanged: [`.env-${name}`],
      tips: []
    },
    breach: [`${quoted(`orig-${name}`)} (added)`],
    shared: [{ kind: 'ref', name: `refs/heads/${name}`, change: 'created', to: 'abc123456789', origin: { reflog: name } }],
    rescue: {
      targets: ['branch'],
      snapshot: {
        commit: 'abc123456789',
        ref: 'refs/agent-worktree/kept/fix/t',
        leftOut: [{ file: `big-${name}`, why: OVER_LIMIT }],
        base: 'abc',
        head: 'abc'
      },
      branch: { remote: 'origin', name: 'agent-worktree-rescue/fix/agents-1-1' },
      failures: []
    }
  } as unknown as ExitResult
}

describe('names in our words', () => {
  it.each(HOSTILE.map(name => [JSON.stringify(name), name]))(
    '%s: every warning shows it quoted, and no line or annotation of the name’s own appears',
    (_, name) => {
      const result = keptWith(name)
      const { stdout, annotations } = printed(() => report(result))
      // Ours: the breach, the shared change, the rescue's left-out file, and the kept worktree.
      expect(annotations.map(a => a.level)).toEqual(['warning', 'warning', 'warning', 'warning'])
      expect(stdout.split('\n').filter(line => line && !line.startsWith('::warning title=agent-worktree'))).toEqual([])
      expect(stdout).not.toContain('##[')
      const said = annotations.map(a => a.message).join('\n')
      for (const shown of [
        name,
        `/w/wt-${name}`,
        `/w/${name}`,
        `b-${name}`,
        `lib-${name}`,
        `vendor-${name}`,
        `pipe-${name}`,
        `.env-${name}`,
        `big-${name}`,
        `orig-${name}`,
        `refs/heads/${name}`
      ])
        expect(said).toContain(oneLine(quoted(shown)))
      expect(messageOf(result)).toContain(`Kept ${quoted(`/w/wt-${name}`)}: it has`)
    }
  )

  it.each(HOSTILE.map(name => [JSON.stringify(name), name]))('%s: the lines of the log say it quoted and start no command', (_, name) => {
    const { stdout, annotations } = printed(() => {
      reportTaken(`/w/${name}`)
      reportTakeover(`/w/${name}`, 'this job')
      reportSweep({ repository: `/r/${name}`, expired: [`/w/${name}`], kept: [{ path: `/w/${name}`, over: 'an earlier job' }], orphans: [], worktrees: [] })
      reportReclaimed({ folders: [{ path: name, bytes: 2048, files: 1 }], spared: [{ path: `${name}/x`, why: 'repository' }] }, `/w/${name}`)
      reportPrepared({
        toplevel: '/r',
        missingLinks: [],
        unlinked: [],
        includeFile: '/r/.worktreeinclude',
        copied: [name],
        notCopied: [{ file: name, why: 'x', outside: false }]
      })
      reportEntered({ created: true, path: `/w/${name}`, branch: `b-${name}`, baseSha: 'abc123456789' }, undefined)
    })
    expect(annotations).toEqual([])
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(8)
    expect(stdout).toContain(`Reclaimed 2.0 KB (1 file) of ignored folders in the kept ${oneLine(quoted(`/w/${name}`))}: ${oneLine(quoted(name))} (2.0 KB).`)
    expect(stdout).toContain(`Took ${oneLine(quoted(`/w/${name}`))} from the pool`)
    expect(stdout).toContain(`on branch ${oneLine(quoted(`b-${name}`))} at`)
  })

  it('names a withheld file, a push’s branch and a restore’s names quoted', () => {
    const name = HOSTILE[0]
    const withheld = rescueProblems({ targets: ['branch'], withheld: { why: 'brought', file: name }, failures: [] } as unknown as RescueResult)
    expect(withheld[0]).toContain(`carry the bytes of ${quoted(name)}, which`)
    expect(pushFailure({ branch: name, failed: 'rejected' })).toContain(`pushed to the branch ${quoted(name)}: rejected`)
    expect(describeShared({ kind: 'config', name, change: 'added' })).toBe(`config ${quoted(name)} added`)
    expect(describeShared({ kind: 'ref', name: 'refs/remotes/origin/HEAD', change: 'moved', from: 'ref:refs/remotes/origin/main', to: `ref:${name}` })).toBe(
      `${quoted('refs/remotes/origin/HEAD')} moved from ${quoted('ref:refs/remotes/origin/main')} to ${quoted(`ref:${name}`)}`
    )
  })

  it('writes the job summary with no block a name ends and no Markdown or HTML of a name’s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-summary-'))
    const file = path.join(dir, 'summary.md')
    fs.writeFileSync(file, '')
    const before = process.env.GITHUB_STEP_SUMMARY
    process.env.GITHUB_STEP_SUMMARY = file
    try {
      for (const name of HOSTILE) {
        fs.writeFileSync(file, '')
        core.summary.emptyBuffer()
        await writeSummary(keptWith(name))
        const summary = fs.readFileSync(file, 'utf8')
        // HTML blocks only, none ended early: no blank line, and every tag is ours.
        expect(summary.trimEnd()).not.toMatch(/\n\s*\n/)
        expect(summary.match(/<\/details>/g)).toHaveLength(5)
        expect(summary.match(/<\/pre>/g)).toHaveLength(1)
        expect(summary).not.toMatch(/<img\b/)
        expect(summary).not.toMatch(/^(#|\*|\||\[)/m)
        // Each name as <code>, its text escaped: GitHub's Markdown shows a backtick inside HTML as it is.
        const code = (text: string): string => `<code>${oneLine(escaped(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code>`
        expect(summary).toContain(`<li>?? ${code(name)}</li>`)
        expect(summary).toContain(`<td>${code(`b-${name}`)}</td>`)
        expect(summary).toContain(`<h3>agent-worktree: ${code('fix')}</h3>`)
        expect(summary.match(/<code>/g)?.length).toBe(summary.match(/<\/code>/g)?.length)
        // No backtick of ours: only the names' own, inside <code>, and the restore commands' (in <pre>).
        expect(summary.replace(/<pre>[\s\S]*?<\/pre>/g, '').replace(/<code>.*?<\/code>/g, '')).not.toContain('`')
        // The sweep's list of kept worktrees, by size.
        fs.writeFileSync(file, '')
        core.summary.emptyBuffer()
        const since = new Date(Date.now() - 3 * 86_400_000).toISOString()
        const worktrees = Array.from({ length: 12 }, (_, i) => ({ path: `/w/${name}-${i}`, since, bytes: i * 1024 ** 2 }))
        await writeSweepSummary({ repository: `/r/${name}`, expired: [], kept: [], orphans: [], worktrees })
        const swept = fs.readFileSync(file, 'utf8')
        expect(swept.trimEnd()).not.toMatch(/\n\s*\n/)
        expect(swept).not.toMatch(/<img\b/)
        expect(swept).not.toMatch(/^(#|\*|\||\[)/m)
        expect(swept).toContain('12 worktree(s) that earlier jobs kept stay on this machine, 66.0 MB in all; the 10 largest.')
        expect(swept.match(/<tr>/g)).toHaveLength(11)
        expect(swept).toContain('<td>11.0 MB</td>')
        expect(swept).not.toContain('<td>1.0 MB</td>')
        expect(swept).toContain('<td>3 days</td>')
      }
    } finally {
      if (before === undefined) delete process.env.GITHUB_STEP_SUMMARY
      else process.env.GITHUB_STEP_SUMMARY = before
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
