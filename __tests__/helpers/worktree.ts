// A worktree made as the main step makes one: locked with a token, its record in its git dir.
import * as path from 'node:path'
import { writeRecordFile, type WorktreeRecord } from '../../src/state-helper.js'
import { git, type Repos } from './repos.js'

export function createLikeMain(repos: Repos, name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  const wt = path.join(repos.root, 'wts', name)
  const record: WorktreeRecord = {
    token: `${name.replace(/[^a-z0-9]/gi, '')}0token`,
    repository: repos.clone,
    path: wt,
    name,
    branch: `worktree-${name}`,
    baseSha: git(repos.clone, 'rev-parse', 'HEAD'),
    created: true,
    onExit: 'remove',
    discardChanges: false,
    owner: { runner: 'runner-1', run: '1-1', job: 'agents' },
    ...overrides
  }
  git(repos.clone, 'worktree', 'add', '--quiet', '--lock', '--reason', `agent-worktree ${record.token}: test`, '-b', record.branch, wt, record.baseSha)
  writeRecordFile(git(wt, 'rev-parse', '--absolute-git-dir'), record)
  return record
}
