// What the remote of enter has, in its own words: the tips it advertises, asked through a sealed view. Only its
// word makes a commit saved; a remote-tracking ref is a file the agent can write.
import * as path from 'node:path'
import { STALL_MS, type Git } from '../git/git-command-manager.js'
import type { Repository } from '../git/repository.js'
import { openView, REMOTE_PROTOCOLS } from '../git/sealed-git.js'
import type { PushTarget } from '../record/state-helper.js'
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
    tips: known.stdout
      .split('\n')
      .filter(line => / (commit|tag)$/.test(line))
      .map(line => line.slice(0, line.indexOf(' '))),
    advertised: advertised.tips
  }
}

/**
 * The tips of a remote's branches and tags, as it says itself, asked at `url` through a sealed view with the
 * job's transport set-up of enter: no setting of any repository (an upload-pack, ssh command, proxy, insteadOf)
 * takes part. `named`: how a message names the remote (its name quoted), never by its URL, which may hold a credential.
 */
export async function advertisedTips(commonDir: string, url: string, named: string): Promise<OnRemote> {
  const view = openView({ objects: path.join(commonDir, 'objects') })
  try {
    const listed = await view.git.run(['ls-remote', '--heads', '--tags', '--refs', '--end-of-options', url], {
      env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS },
      stallMs: STALL_MS,
      interruptible: true,
      remote: true
    })
    if (listed.exitCode !== 0) {
      // git's own error line, not the advice after it ("Please make sure you have the correct access rights").
      const lines = listed.stderr.trim().split('\n')
      return { tips: [], unasked: `git ls-remote ${named} failed: ${lines.find(line => /^(fatal|error):/.test(line)) ?? lines.slice(-1)[0]}` }
    }
    const tips = [...new Set(listed.stdout.split('\n').map(line => line.slice(0, line.indexOf('\t'))))]
    return { tips: tips.filter(id => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id)) }
  } finally {
    view.dispose()
  }
}
