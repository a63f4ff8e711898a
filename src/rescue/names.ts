// A rescue's name, written and read here alone: the branch agent-worktree-rescue/<name>/<tail> and the artifact
// agent-worktree-rescue-<name>-<tail>, as the rescue names it, the restore input takes it and restore: auto looks for it.
import type { WorktreeRecord } from '../record/state-helper.js'

/** The worktree's name as it may stand in a ref and a command: a name from a record file is only a hint. */
export function rescueLabel(record: Pick<WorktreeRecord, 'name'>): string {
  return (
    record.name
      .replaceAll('/', '+')
      .replace(/[^A-Za-z0-9._+-]/g, '-')
      .replace(/\.\.+/g, '.')
      .replace(/^[.-]+/, '') || 'worktree'
  )
}

export const RESCUE_PREFIX = 'agent-worktree-rescue'

/**
 * agent-worktree-rescue/<name>/<job>-<run>-<attempt>[-<leg>][-take<n>], or with `-` for an artifact name, which
 * may not hold `/`.
 */
export function rescueName(record: Pick<WorktreeRecord, 'name' | 'owner' | 'leg'>, separator: '/' | '-', take = 1): string {
  return [RESCUE_PREFIX, rescueLabel(record), rescueTail(record.owner, record.leg, take)].join(separator)
}

/**
 * <job>-<run>-<attempt>[-<leg>][-take<n>]: what sets apart the rescues of one name. Legs of a matrix share job
 * and run (and maybe a name): the leg's index keeps them apart. A second rescue of that name in one job (the
 * worktree entered again, a reusable workflow called twice) is another take.
 */
export function rescueTail(owner: Pick<WorktreeRecord['owner'], 'job' | 'run' | 'since'>, leg: string | undefined, take = 1): string {
  const run = owner.run || `local-${Date.parse(owner.since) || Date.now()}`
  return [owner.job, run, leg, take > 1 ? `take${take}` : undefined]
    .filter(Boolean)
    .join('-')
    .replace(/[^A-Za-z0-9._-]/g, '-')
}

/** A rescue's name as the restore input takes it (the rescue-ref or rescue-artifact output), or undefined. */
export function parseRescueName(value: string): { kind: 'branch' | 'artifact'; name: string } | undefined {
  if (value.includes('..')) return undefined
  if (new RegExp(`^${RESCUE_PREFIX}/[A-Za-z0-9._+-]+/[A-Za-z0-9._-]+$`).test(value)) return { kind: 'branch', name: value }
  if (new RegExp(`^${RESCUE_PREFIX}-[A-Za-z0-9._+-]+$`).test(value)) return { kind: 'artifact', name: value }
  return undefined
}

/** The names of every take of one rescue: `label` and `tail` are regular expression sources; the take is group 1. */
export function rescueNames(separator: '/' | '-', label: string, tail: string): RegExp {
  return new RegExp(`^${RESCUE_PREFIX}${separator}${label}${separator}${tail}(?:-take(\\d+))?$`)
}
