// Processes, per platform: how git children are spawned and stopped, whether an owner is alive, and who
// still works inside a folder. The platform is a parameter so that each rule is tested on Linux too.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isInside } from './paths.js'

export type Platform = NodeJS.Platform

/** A word as a POSIX shell reads it back unchanged, in a command a person may paste: quoted unless plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9._/+@:=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * The environment of every program this action starts (git, rm, lsof): the step's, without what the runner
 * gives an action and never a `run:` step (ACTIONS_RUNTIME_TOKEN and the other ACTIONS_* service URLs and
 * tokens, INPUT_*, STATE_*), without the step's file commands (a program that could write GITHUB_STATE or
 * GITHUB_ENV could forge what the post or later steps read), and without SSH_ASKPASS, which names a program.
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // One copy, then deletions: process.env is read once (each read of it is a call into node's C++), at every git call.
  const clean: NodeJS.ProcessEnv = { ...env }
  for (const key of Object.keys(clean)) if (WITHHELD.test(key)) delete clean[key]
  return clean
}

const WITHHELD = /^(ACTIONS_|INPUT_|STATE_)|^GITHUB_(STATE|OUTPUT|ENV|PATH|STEP_SUMMARY)$|^SSH_ASKPASS/i

/** How long a helper program (taskkill, lsof, mount) may take: it runs while the step waits. */
const HELPER_TIMEOUT_MS = 10_000

/**
 * POSIX: every git child leads a process group of its own, so that a Ctrl-C meant for the step (act, a
 * terminal) reaches only us and we decide what becomes of git; a stop then reaches git's own children.
 * Windows has no process groups: a tree is stopped with taskkill /T.
 */
export function spawnOptions(platform: Platform = process.platform): { detached: boolean; windowsHide: boolean } {
  return { detached: platform !== 'win32', windowsHide: true }
}

/** Stops a child and whatever it started; quiet when it is already gone. */
export function stopTree(pid: number, signal: NodeJS.Signals, platform: Platform = process.platform, run = spawnSync): void {
  if (platform === 'win32') {
    run('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore', env: childEnvironment(), timeout: HELPER_TIMEOUT_MS })
    return
  }
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal)
      return
    } catch {
      // not a group leader, or already gone
    }
  }
}

/** Whether a process of that pid exists here: one of another user's too (EPERM). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * When a process started, as a number that differs between two processes that had the same pid: Linux's
 * start time in clock ticks since boot. Undefined where it cannot be read (then only the pid is compared).
 */
export function startTime(pid: number, platform: Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/**
 * Where a pid names one process: Linux's pid namespace and boot (`pid:[4026531836] <boot id>`). A pid recorded
 * in another namespace (a runner in another container) or before a reboot tells nothing when looked up here.
 * Elsewhere there are no pid namespaces: the platform stands for it. Undefined where it cannot be read.
 */
export function pidSpace(platform: Platform = process.platform): string | undefined {
  if (platform !== 'linux') return platform
  try {
    return `${fs.readlinkSync('/proc/self/ns/pid')} ${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`
  } catch {
    return undefined
  }
}

export interface ProcessRef {
  pid: number
  /** Linux start time, when known. */
  start?: string
}

/** Whether the process is still the one recorded (a recycled pid is another process). */
export function isSameProcessAlive(ref: ProcessRef, platform: Platform = process.platform): boolean {
  if (!isAlive(ref.pid)) return false
  return ref.start === undefined || startTime(ref.pid, platform) === undefined || startTime(ref.pid, platform) === ref.start
}

export interface Resident {
  pid: number
  command: string
}

/**
 * Processes whose working directory lies inside `dir`, other than this one: a dev server or a watcher an
 * agent left running, which would write into the folder while it is removed. Linux reads /proc; macOS
 * asks lsof; elsewhere (Windows, where a folder in use cannot be renamed anyway) none can be seen.
 */
export function residentsOf(dir: string, platform: Platform = process.platform, run = spawnSync): Resident[] {
  if (platform === 'linux') return linuxResidents(dir)
  if (platform === 'darwin') {
    const out = run('lsof', ['-w', '-d', 'cwd', '-Fpn'], { encoding: 'utf8', windowsHide: true, env: childEnvironment(), timeout: HELPER_TIMEOUT_MS })
    return typeof out.stdout === 'string' ? parseLsofCwd(out.stdout).filter(r => r.pid !== process.pid && isInside(r.command, dir, platform)) : []
  }
  return []
}

function linuxResidents(dir: string): Resident[] {
  const found: Resident[] = []
  let pids: string[]
  try {
    pids = fs.readdirSync('/proc').filter(name => /^\d+$/.test(name))
  } catch {
    return found
  }
  for (const name of pids) {
    const pid = Number(name)
    if (pid === process.pid) continue
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      if (!isInside(cwd, dir, 'linux')) continue
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
      found.push({ pid, command: command || path.basename(cwd) })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/** lsof -Fpn output: "p<pid>" then "n<path>" lines; the path stands in for the command here. */
export function parseLsofCwd(text: string): Resident[] {
  const found: Resident[] = []
  let pid: number | undefined
  for (const line of text.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1))
    else if (line.startsWith('n') && pid !== undefined) found.push({ pid, command: line.slice(1) })
  }
  return found
}

export interface GroupSample {
  /** CPU ticks the processes of the group have used, their waited-for children included. */
  ticks: number
  /** The path a process of the group waits to open: a named pipe without a writer (Linux). */
  pipe?: string
  /** One of them waits to open a named pipe. */
  pipeWait: boolean
}

/**
 * How far the process `pid` and its descendants have got, read from /proc (Linux; undefined elsewhere, or when
 * it is gone): a git call that uses no CPU and writes nothing for long, or waits to open a named pipe, is stuck.
 * Only that tree is read, not every process of the machine: many legs may be watching at once.
 */
export function sampleTree(pid: number): GroupSample | undefined {
  if (process.platform !== 'linux') return undefined
  const sample: GroupSample = { ticks: 0, pipeWait: false }
  const visit = (at: number, depth: number): boolean => {
    try {
      const stat = fs.readFileSync(`/proc/${at}/stat`, 'utf8')
      // After the command's closing parenthesis: state, ppid, pgrp, ... utime, stime, cutime, cstime (fields 14-17).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      sample.ticks += fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0)
      if (fields[0] === 'S' && fs.readFileSync(`/proc/${at}/wchan`, 'utf8').trim() === 'wait_for_partner') {
        sample.pipeWait = true
        sample.pipe ??= openingPath(at)
      }
      if (depth < 4) for (const child of childrenOf(at)) visit(child, depth + 1)
      return true
    } catch {
      return false // gone meanwhile
    }
  }
  return visit(pid, 0) ? sample : undefined
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** open and openat by architecture: the number, and which argument holds the path. */
const OPEN_CALLS: Partial<Record<NodeJS.Architecture, Record<number, number>>> = { x64: { 2: 0, 257: 1 }, arm64: { 56: 1 } }

/** The path a process is opening now, read from its syscall arguments and memory (a child of ours may be read). */
function openingPath(pid: number): string | undefined {
  try {
    const [call, ...args] = fs.readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ')
    const argument = OPEN_CALLS[process.arch]?.[Number(call)]
    if (argument === undefined) return undefined
    const buffer = Buffer.alloc(4096)
    const fd = fs.openSync(`/proc/${pid}/mem`, 'r')
    try {
      fs.readSync(fd, buffer, 0, buffer.length, Number(BigInt(args[argument])))
    } finally {
      fs.closeSync(fd)
    }
    const opened = buffer.subarray(0, buffer.indexOf(0)).toString('utf8')
    const base = argument === 1 && BigInt.asIntN(32, BigInt(args[0])) !== -100n ? `/proc/${pid}/fd/${Number(BigInt(args[0]))}` : `/proc/${pid}/cwd`
    return path.isAbsolute(opened) ? opened : path.join(fs.readlinkSync(base), opened)
  } catch {
    return undefined
  }
}
