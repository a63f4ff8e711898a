// Covers: dist/ and the engines of every package it ships.
// Which Node runs what. The action runs on the Node the runner starts for `runs.using: node24`: every
// package the bundle ships must accept it (some packages of the artifact client, Azure's and what they and
// Octokit use, declare Node 22 or newer). The project itself is developed and tested on Node 20 and 24
// (package.json engines, the CI matrix); on 20, npm ci warns about those packages, and the rescue tests
// run their upload there.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/runner.mjs'

type Version = [number, number, number]

function version(text: string): Version {
  const [major, minor, patch] = text.replace(/^[=v]+/, '').split('.')
  const n = (part: string | undefined): number => (part === undefined || /^[x*]$/i.test(part) ? 0 : Number(part))
  return [n(major), n(minor), n(patch)]
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

/** Whether `v` satisfies a node-semver range as engines fields write them (||, spaces, >= > <= < ^ ~ =, x). */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some(alternative =>
    alternative
      .trim()
      .replace(/([<>=^~]+)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every(comparator => {
        const [, op, rest] = /^([<>=^~]*)(.*)$/.exec(comparator)!
        const bound = version(rest)
        const c = compare(v, bound)
        const parts = rest.split('.').filter(p => p && !/^[x*]$/i.test(p)).length
        switch (op) {
          case '>=':
            return c >= 0
          case '>':
            return c > 0
          case '<=':
            return c <= 0
          case '<':
            return c < 0
          case '^':
            return c >= 0 && (bound[0] > 0 ? v[0] === bound[0] : bound[1] > 0 ? v[0] === 0 && v[1] === bound[1] : compare(v, bound) === 0)
          case '~':
            return c >= 0 && v[0] === bound[0] && (parts < 2 || v[1] === bound[1])
          default:
            // a bare version; with x or fewer parts, a range of its own
            return parts >= 3 ? c === 0 : v[0] === bound[0] && (parts < 2 || v[1] === bound[1])
        }
      })
  )
}

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean; engines?: { node?: string } }>
}

describe('Node versions', () => {
  it('reads engines ranges as npm does', () => {
    expect(satisfies([24, 0, 0], '>=22.0.0')).toBe(true)
    expect(satisfies([20, 19, 0], '>=22.0.0')).toBe(false)
    expect(satisfies([24, 0, 0], '>= 20')).toBe(true)
    expect(satisfies([24, 0, 0], '^12.22.0 || ^14.17.0 || >=16.0.0')).toBe(true)
    expect(satisfies([24, 0, 0], '^18 || ^20')).toBe(false)
    expect(satisfies([24, 0, 0], '>=0.6.11 <=0.7.0 || >=0.7.3')).toBe(true)
    expect(satisfies([24, 0, 0], '>=16 || 14 >=14.17')).toBe(true)
    expect(satisfies([14, 18, 0], '>=16 || 14 >=14.17')).toBe(true)
    expect(satisfies([24, 1, 0], '24.x')).toBe(true)
    expect(satisfies([24, 1, 0], '~24.0.0')).toBe(false)
  })

  it('the Node the runner starts the action with meets the engines of every package the bundle ships', () => {
    const runtimes = ['action.yml', 'exit/action.yml'].map(
      file => (parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as { runs: { using: string } }).runs.using
    )
    expect(new Set(runtimes)).toEqual(new Set(['node24']))
    const shipped = Object.entries(lock.packages).filter(([name, pkg]) => name && !pkg.dev && !pkg.devOptional && pkg.engines?.node)
    expect(shipped.length).toBeGreaterThan(0)
    const refused = shipped.filter(([, pkg]) => !satisfies([24, 0, 0], pkg.engines!.node!)).map(([name, pkg]) => `${name}: ${pkg.engines!.node}`)
    expect(refused).toEqual([])
  })

  it('the project is developed and tested on the Node versions package.json names', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    const ci = parse(fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'ci.yml'), 'utf8')) as {
      jobs: { test: { strategy: { matrix: { node: number[] } } } }
    }
    const tested = ci.jobs.test.strategy.matrix.node
    expect(tested).toEqual([20, 24])
    for (const node of tested) expect(satisfies([node, 0, 0], pkg.engines.node), `Node ${node} against engines ${pkg.engines.node}`).toBe(true)
    expect(satisfies([18, 0, 0], pkg.engines.node)).toBe(false)
  })
})
