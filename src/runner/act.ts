// nektos/act runs workflows on a developer's machine, and keeps less than a runner does; what it keeps
// depends on how it runs (act 0.2.87, from its source, pkg/runner/run_context.go, and runs of it):
// - Host mode (-P <label>=-self-hosted): each job runs in a fresh folder ~/.cache/act/<hex>, with the
//   workspace, a copy of the repository, in <hex>/hostexecutor and RUNNER_TEMP in <hex>/tmp. act deletes
//   the whole folder when the job succeeds (and keeps it after a failure). A repository outside it, given
//   as repository-path, is the developer's own: its worktrees stay.
// - Container mode (the default): the job runs in a container that act removes after the job. Only the
//   workspace can outlive it, and only with --bind, which mounts the developer's folder; without it the
//   workspace is a docker volume that goes with the container.
import * as path from 'node:path'
import { isReallyInside as isInside } from '../os/paths.js'
import type { RescueTarget } from '../record/settings.js'

/** What act does with a worktree: in host mode, which of it lies in the job folder act deletes after a green job; in a container, what lies outside the workspace. */
export type ActFate =
  | { mode: 'host'; folder: string; worktree?: string; repository?: string; rescued: boolean }
  | { mode: 'container'; workspace: string; worktree: string; outside?: { worktree?: string; repository?: string }; rescued: boolean }

interface Entered {
  /** The worktree. */
  path: string
  /** The common git dir: branches, commits, registration. */
  commonDir: string
  rescue: RescueTarget[]
}

/** act's job folder in host mode, or undefined when act runs the job in a container. */
export function actHostFolder(env: NodeJS.ProcessEnv): string | undefined {
  const workspace = env.GITHUB_WORKSPACE
  if (!workspace || path.basename(workspace) !== 'hostexecutor') return undefined
  const folder = path.dirname(workspace)
  return env.RUNNER_TEMP && path.resolve(env.RUNNER_TEMP) === path.join(folder, 'tmp') ? folder : undefined
}

/** What act keeps of this worktree, when running under act and something of it may not stay. */
export function actFate(entered: Entered, env: NodeJS.ProcessEnv = process.env): ActFate | undefined {
  if (env.ACT !== 'true' || !env.GITHUB_WORKSPACE) return undefined
  const rescued = entered.rescue.includes('branch')
  const host = actHostFolder(env)
  if (host) {
    const worktree = isInside(entered.path, host) ? entered.path : undefined
    const repository = isInside(entered.commonDir, host) ? entered.commonDir : undefined
    return worktree || repository ? { mode: 'host', folder: host, worktree, repository, rescued } : undefined
  }
  const workspace = env.GITHUB_WORKSPACE
  const inside = isInside(entered.path, workspace)
  const outside = inside && isInside(entered.commonDir, workspace) ? undefined : inside ? { repository: entered.commonDir } : { worktree: entered.path }
  return { mode: 'container', workspace, worktree: entered.path, outside, rescued }
}
