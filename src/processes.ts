// Processes, per platform: how git children are spawned and stopped, whether an owner is alive, and who
// still works inside a folder. The platform is a parameter so that each rule is tested on Linux too.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isInside } from './paths.js'

export type Platform = NodeJS.Platform

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
    run('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' })
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
    const out = run('lsof', ['-w', '-d', 'cwd', '-Fpn'], { encoding: 'utf8', windowsHide: true })
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
