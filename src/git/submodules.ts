// The remote each submodule of the base had when the main step entered: the only one whose word makes a commit
// in that submodule saved. Its own git dir (remote-tracking refs, remote URLs) is the agent's to write, and so is
// the worktree's .gitmodules; what the base commit's .gitmodules and the repository's config said at enter is not.
import type { Git } from './git-command-manager.js'
import type { ConfigEntry } from './repository.js'

/**
 * The URL git would clone each submodule of `base` from, by its path: the repository's config of enter
 * (submodule.<name>.url, as actions/checkout or `git submodule init` wrote it) wins over the base's .gitmodules,
 * whose relative URLs are resolved against the superproject's remote, as `git submodule init` does. A submodule
 * whose URL cannot be told has none: its commits count as unsaved but for what the base pins.
 */
export async function submoduleUrls(git: Git, base: string, entries: ConfigEntry[], superUrl: string | undefined): Promise<Record<string, string>> {
  if (!base) return {}
  // No include of the blob is followed (--no-includes): it names nothing but submodules.
  const listed = await git.run(['config', '-z', '--no-includes', '--blob', `${base}:.gitmodules`, '--list'])
  if (listed.exitCode !== 0) return {}
  const paths = new Map<string, string>()
  const urls = new Map<string, string>()
  for (const field of listed.stdout.split('\0')) {
    const [, name, key, value] = /^submodule\.(.+)\.(path|url)\n(.*)$/s.exec(field) ?? []
    if (name !== undefined) (key === 'path' ? paths : urls).set(name, value)
  }
  for (const { key, value } of entries) {
    const [, name] = /^submodule\.(.+)\.url$/.exec(key) ?? []
    if (name !== undefined && value !== undefined) urls.set(name, value)
  }
  const found: Record<string, string> = {}
  for (const [name, where] of paths) {
    const url = urls.has(name) ? resolveUrl(urls.get(name)!, superUrl) : undefined
    if (url) found[where.replace(/\/+$/, '')] = url
  }
  return found
}

/**
 * A submodule URL as `git submodule init` resolves it (relative_url in git's remote.c): one that starts with ./
 * or ../ is taken relative to the superproject's remote URL, each ../ taking off its last component (after a
 * `/`, else after a `:` of host:path). None where the remote's URL is itself a relative path, or is missing.
 */
export function resolveUrl(url: string, superUrl: string | undefined): string | undefined {
  if (!url.startsWith('./') && !url.startsWith('../')) return url
  if (!superUrl || isRelativePath(superUrl)) return undefined
  let base = superUrl.replace(/\/$/, '')
  let rest = url
  let colon = false
  for (;;) {
    if (rest.startsWith('../')) {
      rest = rest.slice(3)
      const cut = base.lastIndexOf('/') >= 0 ? base.lastIndexOf('/') : base.lastIndexOf(':')
      if (cut < 0) return undefined
      colon ||= base[cut] === ':'
      base = base.slice(0, cut)
    } else if (rest.startsWith('./')) rest = rest.slice(2)
    else break
  }
  return `${base}${colon ? ':' : '/'}${rest}`.replace(/\/$/, '')
}

/** A local path that is not absolute: no `:` before the first `/` (not host:path, not scheme://), and no leading `/`. */
function isRelativePath(url: string): boolean {
  const colon = url.indexOf(':')
  const slash = url.indexOf('/')
  return (colon < 0 || (slash >= 0 && slash < colon)) && !url.startsWith('/')
}
