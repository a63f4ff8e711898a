// Covers: src/git/porcelain.ts.
import { describe, expect, it } from 'vitest'
import { parseStatus, parseStatusV2, parseWorktreeList } from '../../src/git/porcelain.js'

describe('git worktree list --porcelain', () => {
  it('reads every kind of block', () => {
    const text = [
      'worktree /repo',
      'HEAD 1111111111111111111111111111111111111111',
      'branch refs/heads/main',
      '',
      'worktree /wt/a',
      'HEAD 2222222222222222222222222222222222222222',
      'detached',
      'locked agent-worktree abc: run 1',
      '',
      'worktree /wt/b',
      'HEAD 3333333333333333333333333333333333333333',
      'branch refs/heads/b',
      'locked',
      'prunable gitdir file points to non-existent location',
      '',
      'worktree /bare.git',
      'bare',
      ''
    ].join('\n')
    expect(parseWorktreeList(text)).toEqual([
      { path: '/repo', head: '1'.repeat(40), branch: 'refs/heads/main', detached: false, bare: false },
      { path: '/wt/a', head: '2'.repeat(40), detached: true, bare: false, locked: 'agent-worktree abc: run 1' },
      {
        path: '/wt/b',
        head: '3'.repeat(40),
        branch: 'refs/heads/b',
        detached: false,
        bare: false,
        locked: '',
        prunable: 'gitdir file points to non-existent location'
      },
      { path: '/bare.git', detached: false, bare: true }
    ])
  })
  it('reads paths with spaces', () => {
    expect(parseWorktreeList('worktree /a b/c d\nHEAD 1\ndetached\n')[0].path).toBe('/a b/c d')
  })
})

describe('git status --porcelain=v1 -z', () => {
  it('reads modified, staged, deleted, untracked, renamed and odd paths', () => {
    const text = [' M src/app.txt', 'A  new.txt', ' D gone.txt', '?? with space.txt', 'R  to.txt', 'from.txt', '?? line\nbreak.txt', ''].join('\0')
    expect(parseStatus(text)).toEqual([
      { code: ' M', path: 'src/app.txt' },
      { code: 'A ', path: 'new.txt' },
      { code: ' D', path: 'gone.txt' },
      { code: '??', path: 'with space.txt' },
      { code: 'R ', path: 'to.txt' },
      { code: '??', path: 'line\nbreak.txt' }
    ])
  })
  it('is empty for a clean tree', () => {
    expect(parseStatus('')).toEqual([])
  })
})

describe('git status --porcelain=v2 --branch -z', () => {
  it('reads HEAD and every kind of entry', () => {
    const sha = 'a'.repeat(40)
    const text = [
      `# branch.oid ${sha}`,
      '# branch.head main',
      `1 .M N... 100644 100644 100644 ${sha} ${sha} src/app.txt`,
      `1 A. N... 000000 100644 100644 ${'0'.repeat(40)} ${sha} with space.txt`,
      `2 R. N... 100644 100644 100644 ${sha} ${sha} R100 to.txt`,
      'from.txt',
      `u UU N... 100644 100644 100644 100644 ${sha} ${sha} ${sha} conflict.txt`,
      '? new.txt',
      '! ignored.log',
      ''
    ].join('\0')
    expect(parseStatusV2(text)).toMatchObject({
      head: sha,
      entries: [
        { code: ' M', path: 'src/app.txt', sub: 'N...', modes: ['100644', '100644', '100644'], hashes: [sha, sha] },
        { code: 'A ', path: 'with space.txt' },
        { code: 'R ', path: 'to.txt' },
        { code: 'UU', path: 'conflict.txt' },
        { code: '??', path: 'new.txt' },
        { code: '!!', path: 'ignored.log' }
      ]
    })
  })
  it('has no HEAD before the first commit', () => {
    expect(parseStatusV2('# branch.oid (initial)\0# branch.head main\0').head).toBe('')
  })
})
