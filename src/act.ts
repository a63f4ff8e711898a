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
import { isReallyInside as isInside } from './paths.js'
import type { RescueTarget } from './input-helper.js'

export interface ActNote {
  /** warning: unsaved work goes with act's clean-up; info: it may stay, or a rescue copies it. */
  level: 'warning' | 'info'
  message: string
}

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

/** What act keeps of this worktree, when running under act and something of it does not stay. */
export function actNote(entered: Entered, env: NodeJS.ProcessEnv = process.env): ActNote | undefined {
  if (env.ACT !== 'true' || !env.GITHUB_WORKSPACE) return undefined
  const rescued = entered.rescue.includes('branch')
  const rescue = rescued
    ? 'rescue: branch pushes unsaved work to the remote before that.'
    : 'To keep unsaved work, give repository-path a clone outside it (your own checkout), or set rescue: branch to push unsaved work to the remote.'
  const host = actHostFolder(env)
  if (host) {
    const goes = [
      isInside(entered.path, host) && `the worktree ${entered.path}`,
      isInside(entered.commonDir, host) && `its branch, commits and registration (in act's copy of the repository, ${entered.commonDir})`
    ].filter(Boolean)
    if (!goes.length) return undefined
    return {
      level: rescued ? 'info' : 'warning',
      message: `Running under act in host mode, which deletes its job folder ${host} when the job succeeds (it keeps it after a failure): ${goes.join(' and ')} go with it. ${rescue}`
    }
  }
  const workspace = env.GITHUB_WORKSPACE
  if (isInside(entered.path, workspace) && isInside(entered.commonDir, workspace)) {
    return {
      level: 'info',
      message: `Running under act in a container: the worktree ${entered.path} stays only if act runs with --bind, which mounts the workspace ${workspace} from the disk; without --bind, act removes the workspace with the container.${rescued ? ` ${rescue}` : ''}`
    }
  }
  const outside = isInside(entered.path, workspace) ? `its repository ${entered.commonDir}` : `the worktree ${entered.path}`
  return {
    level: rescued ? 'info' : 'warning',
    message: `Running under act in a container, which act removes after the job with all that is not mounted from the disk (the workspace is, with --bind): ${outside} lies outside the workspace and goes with it, unless mounted. ${
      rescued
        ? rescue
        : 'To keep unsaved work, set worktrees-dir to a folder inside the workspace that git ignores (for example .worktrees, listed in .gitignore) and run act with --bind, or set rescue: branch to push unsaved work to the remote.'
    }`
  }
}
