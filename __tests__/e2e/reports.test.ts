// Covers: src/runner/report/, src/shared/shared-state.ts (fromElsewhere, confirmedByRemote), src/enter/enter.ts (checkoutError) through the bundles.
// What our reports say is so: a name the agent chose ends no block of the job summary and forms no Markdown of
// ours; a ref's move is the agent's unless more than its own reflog message says otherwise; an error at enter names
// the filter that failed. Through the committed bundles, as the runner runs them.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { HOSTED, warnings } from '../helpers/steps.js'

let repos: Repos

beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
  })
}

describe('the job summary, warnings and outputs', () => {
  it('a file name holding a blank line and Markdown of the agent’s: no block of the summary ends, the name shows as it is', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'markdown' })
    const forged = 'notes\n\n## Nothing unsaved: removed\n\n**all clean**\n\n<!--'
    write(main.outputs['worktree-path'], forged, 'work\n')
    const [post] = await j.runPosts()
    expect(fs.existsSync(main.outputs['worktree-path'])).toBe(true)
    const summary = post.summary
    expect(summary).toContain('<code>notes\\n\\n## Nothing unsaved: removed\\n\\n**all clean**\\n\\n&lt;!--</code>')
    // GitHub's Markdown ends an HTML block at a blank line: none inside any block of ours.
    for (const block of summary.match(/<details>[\s\S]*?<\/details>/g) ?? []) expect(block).not.toMatch(/\n\s*\n/)
    expect(summary).not.toMatch(/^## Nothing unsaved/m)
  })

  it('file names that hold a blank line and a report of their own, or a command: shown quoted in the warning, the summary and the message, no block or annotation of theirs', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'forged-report' })
    const wt = main.outputs['worktree-path']
    const forged = 'a\n\n</details>\n\n### agent-worktree: nothing unsaved, removed\n\n[all clean](x.md) | removed |\n\n<details>'
    const command = 'b::warning::c\n::error::forged annotation %0A::error::encoded'
    for (const name of [forged, command]) write(wt, name, 'work\n')
    const exit = await j.uses('./exit', { 'on-exit': 'remove' })
    const [post] = await j.runPosts()
    expect(fs.existsSync(wt)).toBe(true)
    // The runner's annotations: the one warning of ours that says what was kept, no error of a name's.
    expect(exit.annotations.map(a => a.level)).toEqual(['warning'])
    expect(post.annotations).toEqual([])
    const [said] = warnings(exit)
    const shown = {
      forged: '`a\\n\\n</details>\\n\\n### agent-worktree: nothing unsaved, removed\\n\\n[all clean](x.md) | removed |\\n\\n<details>`',
      command: '`b::warning::c\\n::error::forged annotation %0A::error::encoded`'
    }
    expect(said).toContain(`Kept \`${wt}\`: it has 2 uncommitted files.`)
    expect(said).toContain(`Uncommitted: ?? ${shown.forged}, ?? ${shown.command}`)
    expect(exit.outputs.message).toContain(`Kept \`${wt}\`: it has 2 uncommitted files.`)
    // The summary: HTML blocks of ours only, none ended by a name, the names shown quoted.
    const summary = exit.summary
    expect(summary.trimEnd()).not.toMatch(/\n\s*\n/)
    expect(summary.match(/<details>/g)).toHaveLength(1)
    expect(summary.match(/<\/details>/g)).toHaveLength(1)
    expect(summary).not.toMatch(/^(#|\[|\|)/m)
    const code = (span: string): string => `<code>${span.slice(1, -1).replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code>`
    expect(summary).toContain(`<li>?? ${code(shown.forged)}</li>`)
    expect(summary).toContain(`<li>?? ${code(shown.command)}</li>`)
    expect(summary).toContain(`<p>Kept <code>${wt}</code>: it has 2 uncommitted files.<br>`)
    expect(summary).not.toContain('`')
  })

  it('an ignored file of the checkout that include-file copies, named with the runner’s older command syntax: no annotation of its own', async () => {
    write(repos.clone, '.gitignore', '*.env\n')
    git(repos.clone, 'add', '.gitignore')
    git(repos.clone, 'commit', '--quiet', '-m', 'ignore env files')
    write(repos.clone, '##[error]forged ##[stop-commands]x.env', 'SECRET=1\n')
    write(repos.clone, '.worktreeinclude', '*.env\n')
    const j = job()
    const main = await j.uses('.', { name: 'legacy-syntax' })
    expect(main.exitCode).toBe(0)
    expect(main.annotations).toEqual([])
    expect(main.stdout).not.toContain('##[')
    expect(main.stdout).toContain('Copied 1 ignored file(s) that `.worktreeinclude` names: `##\\u005berror]forged ##\\u005bstop-commands]x.env`.')
  })

  it('a remote-tracking branch the agent moved with update-ref -m "fetch: …" is warned of, its reflog quoted', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'forged-fetch' })
    const wt = main.outputs['worktree-path']
    const elsewhere = commit(wt, 'elsewhere.txt')
    git(wt, 'update-ref', '-m', 'fetch: fast-forward', 'refs/remotes/origin/main', elsewhere)
    git(wt, 'reset', '--quiet', '--hard', 'HEAD~1')
    const [post] = await j.runPosts()
    const said = warnings(post).join('\n')
    expect(said).toContain('`refs/remotes/origin/main` moved from')
    expect(said).toContain('reflog: `fetch: fast-forward`')
  })
})

describe('the warning of a worktree kept for unsaved work', () => {
  /** What the agent leaves: a commit, and a file it never committed. */
  function leaveWork(wt: string): void {
    commit(wt, 'done.txt')
    write(wt, 'draft.txt', 'draft\n')
  }

  it('on a machine that stays: what is unsaved, then the one command that saves it, which works as pasted; never a push of what the post pushed', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'kept', push: 'true' })
    const wt = main.outputs['worktree-path']
    leaveWork(wt)
    const [post] = await j.runPosts()
    const [kept] = warnings(post).filter(w => w.startsWith('Kept'))
    const lines = kept.split('\n')
    expect(lines[0]).toBe(`Kept \`${wt}\`: it has 1 uncommitted file.`)
    expect(lines[1]).toMatch(
      /^To save it, run `cd \S+ && git switch -C worktree-kept && git restore --source=refs\/agent-worktree\/kept\/\S+ --staged -- \. && git commit -m '[^']+' && git push origin worktree-kept`\.$/
    )
    expect(lines.at(-2)).toBe('Or exit with discard-changes: true to remove it anyway.')
    expect(lines.at(-1)).toBe('Uncommitted: ?? `draft.txt`')
    // Every line but the command reads in one look.
    for (const line of lines.filter(l => !l.startsWith('To save it'))) expect(line.length).toBeLessThanOrEqual(240)
    // What the post pushed is not to be pushed again.
    expect(kept).not.toContain('HEAD:refs/heads/')
    const command = /^To save it, run `(.*)`\.$/.exec(lines[1])![1]
    execFileSync('bash', ['-c', command], {
      env: { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' },
      stdio: 'ignore'
    })
    expect(git(repos.origin, 'show', 'worktree-kept:draft.txt')).toBe('draft')
    expect(git(repos.origin, 'show', 'worktree-kept:done.txt')).toBe('done.txt')
    expect(git(wt, 'status', '--porcelain')).toBe('')
  })

  it('on a machine that goes with the job: no command in a worktree that goes too, and no discard-changes', async () => {
    const j = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner', '_temp'), env: HOSTED })
    const main = await j.uses('.', { name: 'hosted', rescue: 'none' })
    leaveWork(main.outputs['worktree-path'])
    const [post] = await j.runPosts()
    const [kept] = warnings(post).filter(w => w.startsWith('Kept'))
    expect(kept.split('\n')[0]).toBe(`Kept \`${main.outputs['worktree-path']}\`: it has 1 uncommitted file and 1 unsaved commit.`)
    expect(kept).not.toContain('discard-changes')
    expect(kept).not.toContain('To save it')
  })
})

describe('errors at enter', () => {
  it('a smudge filter of the repository’s (not Git LFS) that fails: the error names that filter', async () => {
    write(repos.clone, '.gitattributes', 'secret.txt filter=crypt\n')
    write(repos.clone, 'secret.txt', 'ciphertext\n')
    git(repos.clone, 'add', '-A')
    git(repos.clone, 'commit', '--quiet', '-m', 'an encrypted file')
    git(repos.clone, 'config', 'filter.crypt.clean', 'cat')
    git(repos.clone, 'config', 'filter.crypt.smudge', 'false')
    git(repos.clone, 'config', 'filter.crypt.required', 'true')
    const main = await job().uses('.', { name: 'crypt' })
    expect(main.exitCode).toBe(1)
    const error = main.annotations.find(a => a.level === 'error')?.message ?? ''
    expect(error).toContain('The filter `crypt` (`filter.crypt.smudge` or .process of the repository')
    expect(error).not.toContain('LFS')
  })
})
