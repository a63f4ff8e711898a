// The object store every worktree of a repository shares (<common dir>/objects) is written by every agent of a
// worktree there, and read by every later job: a pack an agent of an earlier job left, whose index names the base's
// tree for other bytes, would hand the next job's agent, and the workflow's later steps, files of that agent's with
// `git status` clean. So the main step keeps a list of the store's files it verified (by their identities, as
// object-store.ts lists them), in a file of ours in the common dir that every sandbox list keeps read-only, and at
// enter, before anything is made, verifies what is not on it as it is now: a new or changed pack, a loose object.
// Nothing new, no git process and no write.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { listStore, verifiedList, verifiedOf, type StoreList } from './object-store.js'
import { OBJECTS_LIST_FILE } from '../record/state-helper.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

/** A store of many loose objects lists each in a line of about 90 characters. */
const MAX_LIST = 256 * 1024 * 1024

/**
 * The list kept in `commonDir`: undefined where there is none; an empty one where it cannot be read (every file is
 * then verified anew).
 */
export function readObjectsList(commonDir: string): StoreList | undefined {
  const file = path.join(commonDir, OBJECTS_LIST_FILE)
  const text = readSmall(file, MAX_LIST)
  if (text === undefined) return listAbsent(file) ? undefined : {}
  try {
    const list = JSON.parse(text) as unknown
    if (!list || typeof list !== 'object' || Array.isArray(list)) return {}
    return Object.fromEntries(Object.entries(list as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
  } catch {
    return {}
  }
}

/** Nothing at all there: a link, a folder or anything else is a list that cannot be read. */
function listAbsent(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false }) === undefined
}

function writeObjectsList(commonDir: string, list: StoreList): void {
  writeReplacing(path.join(commonDir, OBJECTS_LIST_FILE), `${JSON.stringify(list)}\n`)
}

/**
 * Verifies what the shared object store of `commonDir` holds that its list does not, and lists it; throws, naming
 * the file, where one is not what its id says. To be called under the repository lock, before anything is made.
 */
export async function verifySharedStore(commonDir: string): Promise<void> {
  // Absolute: git verifies a pack from a folder of its own.
  const objects = path.resolve(commonDir, 'objects')
  const list = readObjectsList(commonDir)
  if (list === undefined) {
    // The first enter on this repository: the store is what the workflow fetched (actions/checkout's), which no
    // agent of ours can have written before any job of ours entered. Listed as it is, not hashed: on a fresh
    // clone of a large repository, a verification of every pack would cost the job seconds for nothing.
    writeObjectsList(commonDir, listStore(objects))
    return
  }
  let verified: Awaited<ReturnType<typeof verifiedList>>
  try {
    verified = await verifiedList(objects, list)
  } catch (error) {
    verified = { list, problem: `the verification failed: ${(error as Error).message}`, changed: false }
  }
  if (verified.problem) throw new Error(storeError(objects, verified.problem))
  if (verified.changed) writeObjectsList(commonDir, verified.list)
}

function storeError(objects: string, problem: string): string {
  return (
    `The object store ${quoted(objects)} that every worktree of the repository shares holds a file that is not what it says (${problem}): ` +
    'an agent of an earlier job, or anything else with write access to the store, may have written it, and git would read its bytes for ' +
    'another object, so a new worktree could start on files that are not the base. Nothing was created. ' +
    'Save what is needed from it, then move the named pack (its .pack, .idx and .rev) or loose object aside, or run `git fsck` to find every ' +
    'such object; where the agents of several jobs do not trust each other, use isolation: clone.'
  )
}

/**
 * Adds to the list of `commonDir`, where there is one, the files of its store this process verified as they are now
 * (what an exit verified its agent wrote), so that the next enter does not hash them again. Under the repository lock.
 */
export function listVerified(commonDir: string): void {
  const list = readObjectsList(commonDir)
  if (list === undefined) return
  const objects = path.join(commonDir, 'objects')
  const unlisted = Object.entries(listStore(objects)).filter(([file, identity]) => !Object.hasOwn(list, file) || list[file] !== identity)
  const added = verifiedOf(objects, Object.fromEntries(unlisted))
  if (Object.keys(added).length) writeObjectsList(commonDir, { ...list, ...added })
}
