// Covers: src/rescue/find-rescue.ts, src/rescue/restore.ts, src/rescue/snapshot-message.ts through the bundles.
// The restore matrix: for each checkout actions/checkout makes (push at depth 1, a pull request's merge
// commit at depth 1, fetch-depth: 0, sparse, LFS pointers), an agent leaves every kind of unsaved work, the
// post rescues it to a branch and to an artifact at once (rescue: artifact,branch), and each copy is
// brought back in a fresh clone with the commands the post printed, as a person pastes them, and compared
// byte for byte with what the agent left. Through the committed bundles; the artifact service and `gh` are
// stand-ins (results-service.ts, restore.ts), the only parts that cannot be real here.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { commit, git, write } from '../helpers/repos.js'
import { CHECKOUTS, digest, everyKind, hostedJob, lab, restoreCommandsOf, restoreEnv, runRestore } from '../helpers/restore.js'
import { startResultsService } from '../helpers/results-service.js'

describe.concurrent('every rescue restores in a fresh clone with the commands the post printed, byte for byte', () => {
  it.for(CHECKOUTS)('%s checkout, every kind of work, artifact and branch', async (kind, t) => {
    const l = lab(t, kind)
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = hostedJob(l, service.env)
    const main = await j.uses('.', { name: 'matrix', rescue: 'artifact,branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const commits = everyKind(wt, kind)
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(post.annotations.map(a => a.message).join('\n')).not.toMatch(/failed|left out/i)
    const commands = restoreCommandsOf(post.stdout)
    expect(commands, post.stdout).toHaveLength(2)
    for (const [i, command] of commands.entries()) {
      const into = path.join(l.repos.root, `restored-${i}`)
      const tip = runRestore(command, { origin: l.repos.origin, into, artifacts: service.artifacts, env: restoreEnv(l) })
      expect(digest(into), command).toBe(before)
      expect(fs.existsSync(path.join(into, 'build/ignored.bin'))).toBe(false)
      for (const sha of commits) expect(git(into, 'merge-base', '--is-ancestor', sha, tip)).toBe('')
      // Nothing the restore downloaded stays in the clone, for a git add -A to take along.
      expect(git(into, 'ls-files', '--others')).toBe('')
    }
  })

  it.for(CHECKOUTS)('%s checkout, an orphan branch with staged and untracked files', async (kind, t) => {
    const l = lab(t, kind)
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = hostedJob(l, service.env)
    const main = await j.uses('.', { name: 'orphan', rescue: 'artifact,branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    // As a docs generator does: a new history, its files staged, one more left untracked.
    git(wt, 'switch', '--quiet', '--orphan', 'gh-pages')
    write(wt, 'index.html', '<h1>docs</h1>\r\n')
    git(wt, 'add', 'index.html')
    write(wt, 'extra.css', 'body{}\n')
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    const commands = restoreCommandsOf(post.stdout)
    expect(commands, post.stdout).toHaveLength(2)
    for (const [i, command] of commands.entries()) {
      const into = path.join(l.repos.root, `restored-${i}`)
      runRestore(command, { origin: l.repos.origin, into, artifacts: service.artifacts, env: restoreEnv(l) })
      expect(fs.readFileSync(path.join(into, 'index.html'), 'utf8')).toBe('<h1>docs</h1>\r\n')
      expect(fs.readFileSync(path.join(into, 'extra.css'), 'utf8')).toBe('body{}\n')
      // The orphan's files, and only them: the clone's own files are gone with the switch to a commit with no parent.
      expect(digest(into)).toBe(before)
    }
  })

  it('a pull request, restored in a clone as shallow as the job’s: the commands fetch the merge commit’s parents first', async t => {
    const l = lab(t, 'pull_request')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = hostedJob(l, service.env)
    const main = await j.uses('.', { name: 'shallow', rescue: 'artifact' })
    const wt = main.outputs['worktree-path']
    commit(wt, 'src/fix.txt', 'fix\n')
    write(wt, 'src/app.txt', 'modified\n')
    const before = digest(wt)
    const [post] = await j.runPosts()
    const [command] = restoreCommandsOf(post.stdout)
    expect(command).toMatch(/&& git fetch origin [0-9a-f]{40} [0-9a-f]{40} &&/)
    const into = path.join(l.repos.root, 'restored')
    runRestore(command, { origin: l.repos.origin, into, cloneArgs: ['--depth', '1'], artifacts: service.artifacts })
    expect(digest(into)).toBe(before)
  })
})
