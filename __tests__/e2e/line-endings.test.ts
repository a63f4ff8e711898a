// Covers: .gitattributes, .prettierrc.json: the sources on every system.
// Sources are LF on every system. The Windows images set core.autocrlf=true, which without attributes
// checks every text file out with CRLF: Prettier then fails on every file, and the README's snippets no
// longer parse. .gitattributes pins LF for sources and leaves dist/ byte for byte as the build wrote it.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/runner.mjs'

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'core.autocrlf=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** The project's files as git tracks them (a copy of the project without its .git has none to check). */
function trackedFiles(): string[] {
  try {
    return git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
      .split('\0')
      .filter(file => file && fs.existsSync(path.join(ROOT, file)))
  } catch {
    return []
  }
}

const tracked = trackedFiles()
const isDist = (file: string): boolean => file.startsWith('dist/')

let scratch: string | undefined
afterEach(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true })
  scratch = undefined
})

describe.skipIf(tracked.length === 0)('line endings', () => {
  it('every source file of this checkout is LF, on whatever system it was checked out', () => {
    const crlf = tracked.filter(file => !isDist(file) && fs.readFileSync(path.join(ROOT, file)).includes('\r\n'))
    expect(crlf).toEqual([])
  })

  it('the attributes make every source text with LF, and leave dist/ as the build wrote it', () => {
    const attrs = git(ROOT, 'check-attr', '-z', 'text', 'eol', '--', ...tracked).split('\0')
    const wrong: string[] = []
    for (let i = 0; i + 2 < attrs.length; i += 3) {
      const [file, attr, value] = attrs.slice(i, i + 3)
      const expected = isDist(file) ? { text: 'unset' } : { text: 'auto', eol: 'lf' }
      const want = expected[attr as keyof typeof expected]
      if (want !== undefined && value !== want) wrong.push(`${file}: ${attr}=${value}`)
    }
    expect(wrong).toEqual([])
  })

  it('a clone with core.autocrlf=true, as on the Windows images, has the same bytes as this checkout', () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-eol-'))
    const source = path.join(scratch, 'source')
    fs.mkdirSync(source)
    git(source, 'init', '--quiet', '-b', 'main')
    for (const file of tracked) {
      fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true })
      fs.copyFileSync(path.join(ROOT, file), path.join(source, file))
    }
    git(source, 'add', '-A')
    git(source, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'snapshot')
    const windows = path.join(scratch, 'windows')
    execFileSync('git', ['-c', 'core.autocrlf=true', 'clone', '--quiet', '--config', 'core.autocrlf=true', source, windows], { stdio: 'ignore' })
    const differ = tracked.filter(file => !fs.readFileSync(path.join(windows, file)).equals(fs.readFileSync(path.join(ROOT, file))))
    expect(differ).toEqual([])
  })
})
