// The refs this action keeps for the worktrees and clones of every job (refs/agent-worktree/kept/<id>/<token>,
// borrowed/<id>): no branch of anyone's, but what a kept worktree's unsaved commits and a clone's borrowed objects
// live by in a shared clone, and in the common dir, where the agent writes. Read at enter and at exit from the files
// (the loose refs over packed-refs, which is read again only when it is another file): each one that changed
// meanwhile and is not this worktree's own is reported with what every worktree shares.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { BORROWED_REFS, KEPT_REFS, keptId } from '../record/refs.js'
import { CLONES_DIR } from '../record/state-helper.js'
import { readBytes, readSmall, regularFilesBelow } from '../os/untrusted-files.js'
import type { RefChange } from './shared-refs.js'

/** The action's refs of a repository: those packed (with packed-refs' identity) and the loose ones, by name. */
export interface ActionRefs {
  packed: Record<string, string>
  /** packed-refs' inode, size and time: the same at exit, the packed refs are the same. */
  packedFile?: string
  loose: Record<string, string>
}

const FOLDERS = [KEPT_REFS, BORROWED_REFS]
const OBJECT_ID = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)(?:\s|$)/
const MAX_PACKED_BYTES = 1024 ** 3

/** The action's refs as the files have them now; `before`: those of enter, whose packed refs stand while packed-refs is the same file. */
export function readActionRefs(commonDir: string, before?: ActionRefs): ActionRefs {
  const file = path.join(commonDir, 'packed-refs')
  const packedFile = identity(file)
  const packed = before && packedFile !== undefined && before.packedFile === packedFile ? before.packed : packedOf(file)
  const loose: Record<string, string> = {}
  const real = realOf(commonDir)
  for (const prefix of FOLDERS) {
    const folder = path.join(commonDir, ...prefix.split('/').filter(Boolean))
    // A folder an agent replaced by a link (or one below a link): not the repository's, and not read.
    if (real === undefined || realOf(folder) !== path.join(real, ...prefix.split('/').filter(Boolean))) continue
    for (const ref of regularFilesBelow(folder, 10_000)) {
      const id = OBJECT_ID.exec(readSmall(ref, 1024) ?? '')?.[1]
      if (id && !ref.endsWith('.lock')) loose[`${prefix}${path.relative(folder, ref).split(path.sep).join('/')}`] = id
    }
  }
  return { packed, packedFile, loose }
}

/** The action's refs that changed, but this worktree's own: its kept ref (its id's, with its token) and what its clone borrows. */
export function actionRefChanges(was: ActionRefs | undefined, now: ActionRefs, own: { id?: string; token: string }): RefChange[] {
  if (!was) return []
  const [before, after] = [
    { ...was.packed, ...was.loose },
    { ...now.packed, ...now.loose }
  ]
  const mine = own.id ? [`${KEPT_REFS}${own.id}/${own.token}`, `${BORROWED_REFS}${own.id}`] : []
  const changes: RefChange[] = []
  for (const ref of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (mine.includes(ref) || before[ref] === after[ref]) continue
    changes.push({ ref, ...(Object.hasOwn(before, ref) ? { from: before[ref] } : {}), ...(Object.hasOwn(after, ref) ? { to: after[ref] } : {}) })
  }
  return changes
}

/** Whether a ref is one of the action's own that every job relies on. */
export function isActionRef(ref: string): boolean {
  return FOLDERS.some(prefix => ref.startsWith(prefix))
}

/** Whether the worktree or clone an action ref names is still registered: its git dir, or its clone's entry of ours. */
export function entryThere(commonDir: string, ref: string): boolean {
  const id = ref.startsWith(KEPT_REFS) ? keptId(ref) : ref.slice(BORROWED_REFS.length)
  if (!id || id === '.' || id === '..' || id.includes('/')) return false
  return [path.join(commonDir, 'worktrees', id), path.join(commonDir, CLONES_DIR, id)].some(dir => fs.existsSync(dir))
}

function packedOf(file: string): Record<string, string> {
  const refs: Record<string, string> = {}
  const bytes = readBytes(file, MAX_PACKED_BYTES)
  if (!bytes) return refs
  for (const prefix of FOLDERS) {
    for (let at = bytes.indexOf(` ${prefix}`); at !== -1; at = bytes.indexOf(` ${prefix}`, at + 1)) {
      const start = bytes.lastIndexOf(10, at) + 1
      const stop = bytes.indexOf(10, at)
      const id = bytes.toString('latin1', start, at)
      if (OBJECT_ID.test(id)) refs[bytes.toString('utf8', at + 1, stop === -1 ? bytes.length : stop).trimEnd()] = id
    }
  }
  return refs
}

function identity(file: string): string | undefined {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false, bigint: true })
  return stat?.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeNs}` : undefined
}

function realOf(dir: string): string | undefined {
  try {
    return fs.realpathSync(dir)
  } catch {
    return undefined
  }
}
