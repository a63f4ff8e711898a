// Covers: src/runner/act.ts, src/runner/report/enter.ts.
// What act keeps, as the main step tells it (src/runner/act.ts), for each mode and where the worktree and its
// repository lie. The end-to-end cases, through the bundles, are in real-runner.test.ts.
import { describe, expect, it } from 'vitest'
import { actFate, actHostFolder } from '../../src/runner/act.js'
import { actNote as say } from '../../src/runner/report/enter.js'

/** What the main step says under act: the fate (act.ts), in words (report/enter.ts). */
function actNote(...args: Parameters<typeof actFate>): ReturnType<typeof say> | undefined {
  const fate = actFate(...args)
  return fate && say(fate)
}

const folder = '/home/dev/.cache/act/0123456789abcdef'
const host = { ACT: 'true', GITHUB_WORKSPACE: `${folder}/hostexecutor`, RUNNER_TEMP: `${folder}/tmp` }
const container = { ACT: 'true', GITHUB_WORKSPACE: '/home/dev/project', RUNNER_TEMP: '/tmp' }

describe('act', () => {
  it('is host mode when the workspace is <hex>/hostexecutor beside <hex>/tmp', () => {
    expect(actHostFolder(host)).toBe(folder)
    expect(actHostFolder(container)).toBeUndefined()
    expect(actHostFolder({ ...host, RUNNER_TEMP: '/tmp' })).toBeUndefined()
  })

  it('says nothing outside act, nor in host mode for a repository and worktree outside its job folder', () => {
    const own = { path: '/home/dev/project.worktrees/a', commonDir: '/home/dev/project/.git', rescue: [] }
    expect(actNote(own, { GITHUB_WORKSPACE: '/w' })).toBeUndefined()
    expect(actNote(own, host)).toBeUndefined()
  })

  it("in host mode warns for whatever lies in the job folder: act's copy of the repository, or the worktree", () => {
    const copy = { path: `${folder}/hostexecutor.worktrees/a`, commonDir: `${folder}/hostexecutor/.git`, rescue: [] }
    const note = actNote(copy, host)
    expect(note?.level).toBe('warning')
    expect(note?.message).toContain(`deletes its job folder \`${folder}\` when the job succeeds (it keeps it after a failure)`)
    expect(note?.message).toContain(`the worktree \`${copy.path}\` and its branch, commits and registration`)
    // A worktree of the developer's own clone put inside the job folder goes too, its commits stay.
    const inside = actNote({ path: `${folder}/hostexecutor/.worktrees/a`, commonDir: '/home/dev/project/.git', rescue: [] }, host)
    expect(inside?.message).toContain(`the worktree \`${folder}/hostexecutor/.worktrees/a\` go with it`)
    expect(inside?.message).not.toContain('commits')
  })

  it('only informs when rescue: branch copies unsaved work to the remote first', () => {
    const note = actNote({ path: `${folder}/hostexecutor.worktrees/a`, commonDir: `${folder}/hostexecutor/.git`, rescue: ['branch'] }, host)
    expect(note?.level).toBe('info')
    expect(note?.message).toContain('rescue: branch pushes unsaved work to the remote before that')
    expect(actNote({ path: '/home/dev/project.worktrees/a', commonDir: '/home/dev/project/.git', rescue: ['artifact'] }, container)?.level).toBe('warning')
  })

  it('in a container warns for what lies outside the workspace, and says the workspace stays only with --bind', () => {
    const beside = actNote({ path: '/home/dev/project.worktrees/a', commonDir: '/home/dev/project/.git', rescue: [] }, container)
    expect(beside?.level).toBe('warning')
    expect(beside?.message).toContain('the worktree `/home/dev/project.worktrees/a` lies outside the workspace')
    const shared = actNote({ path: '/home/dev/project/.worktrees/a', commonDir: '/srv/clone/.git', rescue: [] }, container)
    expect(shared?.message).toContain('its repository `/srv/clone/.git` lies outside the workspace')
    const inside = actNote({ path: '/home/dev/project/.worktrees/a', commonDir: '/home/dev/project/.git', rescue: [] }, container)
    expect(inside).toEqual({ level: 'info', message: expect.stringContaining('stays only if act runs with --bind') })
  })
})
