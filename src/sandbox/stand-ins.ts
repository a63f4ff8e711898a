// Every read-only entry of a sandbox's lists exists when the lists are handed out: a sandbox that protects only
// paths that exist (one made of bind mounts, such as plain bubblewrap, or of Landlock rules) would leave an absent
// one for the agent to create (a modules/<name>/hooks/post-checkout that a later `git submodule update` runs), and
// the agents' own sandboxes stand an empty file in its place while they run, on the host, where every job of a
// shared clone meets it. Each absent entry is made in a form that changes nothing git or this action does:
// - an empty folder where git looks for files inside (hooks, info, remotes, branches, modules, our clones' folder);
// - an empty config.worktree, which git reads only with extensions.worktreeConfig, and then as no setting;
// - commondir as ".", which git reads as the folder itself, made whole at once (git dies on an empty one);
// - our list of the object store's verified files as an empty file, which the next enter reads as a list that cannot
//   be read, and so verifies every file of the store (it is made before the lists are handed out: this is a spare);
//   our list of what a park proved of the worktree's files likewise, which the next take reads as nothing proven;
// - rr-cache: a folder turns rerere on where rerere.enabled is not set, so an empty file stands there instead (git
//   then keeps rerere off), and a folder only where rerere.enabled is true (git would make one itself).
// An entry with no such form is left out of the lists where it is absent, and guarded otherwise: shallow (any file
// git can open there makes the repository shallow, and one it cannot breaks a later `git fetch --depth`), which the
// exit compares with what it was when the agent got the worktree (shallow-file.ts); the main checkout's HEAD reflog
// (an empty one is one git then writes), which nothing of ours believes.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { SandboxPaths } from './paths.js'
import { writeNew } from '../os/untrusted-files.js'

type Form = 'folder' | 'file' | 'self' | 'rr-cache'

/** The form each entry the lists may name absent takes, by its name; any other entry exists by construction. */
const FORMS: Record<string, Form> = {
  hooks: 'folder',
  info: 'folder',
  remotes: 'folder',
  branches: 'folder',
  modules: 'folder',
  'agent-worktree-clones': 'folder',
  // Read as a list that cannot be read: every file of the store is verified at the next enter.
  'agent-worktree-objects.json': 'file',
  // Read as nothing proven: the next take reads every file.
  'agent-worktree-parked': 'file',
  'config.worktree': 'file',
  commondir: 'self',
  'rr-cache': 'rr-cache'
}

/**
 * The lists as they are handed out: each absent read-only entry of `paths` made in its harmless form (a folder on the
 * way included), and one with none left out. `rerere`: whether git has rerere.enabled set true, asked only where
 * rr-cache is absent. Each is made only where nothing is: what another job or git made meanwhile stays.
 */
export async function handOut(paths: SandboxPaths, rerere: () => Promise<boolean>): Promise<SandboxPaths> {
  const readOnly: string[] = []
  for (const entry of paths.readOnly) {
    const form = Object.hasOwn(FORMS, path.basename(entry)) ? FORMS[path.basename(entry)] : undefined
    if (form && !fs.lstatSync(entry, { throwIfNoEntry: false })) {
      fs.mkdirSync(path.dirname(entry), { recursive: true })
      const kind = form === 'rr-cache' ? ((await rerere()) ? 'folder' : 'file') : form
      try {
        if (kind === 'folder') fs.mkdirSync(entry)
        else writeNew(entry, kind === 'self' ? '.\n' : '')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
    if (fs.lstatSync(entry, { throwIfNoEntry: false })) readOnly.push(entry)
  }
  return { write: paths.write, readOnly }
}

/** Whether rerere.enabled is set true, as git reads it: the last value of the key among `entries` (a key alone is true). */
export function rerereEnabled(entries: { key: string; value?: string }[]): boolean {
  const entry = entries.filter(e => e.key.toLowerCase() === 'rerere.enabled').at(-1)
  return entry !== undefined && (entry.value === undefined || !/^(false|no|off|0|)$/i.test(entry.value.trim()))
}
