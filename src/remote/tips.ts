// What the remote of enter has, in its own words: the tips it advertises, asked through a sealed view. Only its
// word makes a commit saved; a remote-tracking ref is a file the agent can write.
import * as path from 'node:path'
import { STALL_MS, type Git } from '../git/git-command-manager.js'
import type { Repository } from '../git/repository.js'
import { openView, REMOTE_PROTOCOLS } from '../git/sealed-git.js'
import type { PushTarget } from '../record/state-helper.js'
import { once } from '../os/once.js'
import { quoted } from '../os/quote.js'

/**
 * The commits the remote of enter has, as it says itself now: only its word makes a commit saved, for a
 * remote-tracking ref is a file the agent (or any job sharing the repository) can write. `unasked`: why it
 * could not be asked; then nothing counts as on the remote.
 */
export interface OnRemote {
  tips: string[]
  /** Every tip it named, also those this repository lacks: what a repository nested in the worktree may have. */
  advertised?: string[]
  unasked?: string
  /**
   * The heads of its pull requests (`refs/pull/<n>/head`), which it keeps after a merge deleted their branch: asked
   * once, and only for commits its branches and tags leave unsaved.
   */
  pullHeads?: () => Promise<PullHeads>
}

/** Every pull request head the remote names, also those this repository lacks; `unasked`: why it could not be asked. */
export interface PullHeads {
  heads: string[]
  unasked?: string
}

/**
 * What the remote of enter has now, in its own words (advertisedTips), those of its tips this repository has. A
 * remote-tracking ref proves nothing: the agent, or any job sharing the repository, can write one at an unpushed
 * commit.
 */
export async function remoteTips(repo: Repository, target: PushTarget | undefined, has: Git = repo.git): Promise<OnRemote> {
  if (!target) return { tips: [], unasked: 'the step has no remote of enter to ask' }
  const advertised = await advertisedTips(repo.commonDir, target.url, quoted(target.remote))
  if (!advertised.tips.length) return advertised
  const known = await has.run(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${advertised.tips.join('\n')}\n` })
  return {
    ...advertised,
    tips: known.stdout
      .split('\n')
      .filter(line => / (commit|tag)$/.test(line))
      .map(line => line.slice(0, line.indexOf(' '))),
    advertised: advertised.tips
  }
}

/**
 * The tips of a remote's branches and tags (its pull requests' heads asked later, when needed), as it says itself,
 * asked at `url` through a sealed view with the job's transport set-up of enter: no setting of any repository (an
 * upload-pack, ssh command, proxy, insteadOf) takes part. `named`: how a message names the remote (its name quoted), never by its URL, which may hold a credential.
 */
export async function advertisedTips(commonDir: string, url: string, named: string): Promise<OnRemote> {
  const listed = await listRefs(commonDir, url, named, ['--heads', '--tags'])
  if (listed.unasked !== undefined) return { tips: [], unasked: listed.unasked }
  return { tips: idsOf(listed.refs), pullHeads: once(() => pullRequestHeads(commonDir, url, named)) }
}

/** A pull request's head as GitHub names it. ls-remote matches a pattern against the end of a name (refs/heads/refs/pull/1/head too). */
const PULL_HEAD = /^refs\/pull\/[0-9]+\/head$/

/**
 * The heads of the remote's pull requests. A second call, made only when needed: ls-remote asks the remote for
 * refs by prefix (refs/heads/, refs/tags/) only with --heads and --tags; for pull request heads it lists every ref
 * (the merge refs too) and keeps those that match, which on a remote of 10,000 pull requests costs twice as much.
 */
async function pullRequestHeads(commonDir: string, url: string, named: string): Promise<PullHeads> {
  const listed = await listRefs(commonDir, url, named, [], ['refs/pull/*/head'])
  return listed.unasked !== undefined ? { heads: [], unasked: listed.unasked } : { heads: idsOf(listed.refs.filter(([, ref]) => PULL_HEAD.test(ref))) }
}

/** The refs `git ls-remote --refs` lists at `url` through a sealed view, as [id, name]; `unasked`: its error. */
async function listRefs(
  commonDir: string,
  url: string,
  named: string,
  options: string[],
  patterns: string[] = []
): Promise<{ refs: [string, string][]; unasked?: string }> {
  const view = openView({ objects: path.join(commonDir, 'objects') })
  try {
    const listed = await view.git.run(['ls-remote', ...options, '--refs', '--end-of-options', url, ...patterns], {
      env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS },
      stallMs: STALL_MS,
      interruptible: true,
      remote: true
    })
    if (listed.exitCode !== 0) {
      // git's own error line, not the advice after it ("Please make sure you have the correct access rights").
      const lines = listed.stderr.trim().split('\n')
      return { refs: [], unasked: `git ls-remote ${named} failed: ${lines.find(line => /^(fatal|error):/.test(line)) ?? lines.slice(-1)[0]}` }
    }
    return { refs: listed.stdout.split('\n').map(line => line.split('\t', 2) as [string, string]) }
  } finally {
    view.dispose()
  }
}

/** The object ids of `refs`, each once, only what has the form of one. */
function idsOf(refs: [string, string][]): string[] {
  return [...new Set(refs.map(([id]) => id))].filter(id => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))
}
