// Publishes a release, as .github/workflows/release.yml runs it, in two steps:
//
//   node scripts/release.mjs check <version>          after dist/ was checked: is the version new and
//                                                     well-formed? Prints sha=<the commit checked out>.
//   node scripts/release.mjs publish <version> <sha>  creates the tag and the GitHub release at that commit
//                                                     (gh), then moves the major tag (v1) to it when it is
//                                                     the newest release of its major version.
//
// As with the major tags of the actions/* repositories, v1 follows the newest v1.x.y. The rules: a version
// is vMAJOR.MINOR.PATCH, with -<pre> for a prerelease; a prerelease never moves the major tag; neither does
// a release older than one already published (a patch of an older minor): the major tag never goes back;
// and it names the release's commit, never a tag object. Both steps read the remote's tags, not the clone's. Run again after a
// failure, publish finishes what is left: a tag and a release that exist at that commit are kept.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const VERSION = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/

/**
 * @typedef {{ tag: string, major: number, minor: number, patch: number, pre: string[] }} Version
 * @typedef {{ name: string, object: string, commit: string }} RemoteTag
 *   object: what the tag ref holds (a tag object for an annotated tag); commit: the commit it names
 */

/**
 * The version a tag names, or undefined when it is not vMAJOR.MINOR.PATCH[-pre] (semver 2.0.0, no build
 * metadata, no leading zeros).
 * @param {string} tag
 * @returns {Version | undefined}
 */
export function parseVersion(tag) {
  const match = VERSION.exec(tag)
  if (!match) return undefined
  return { tag, major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), pre: match[4] ? match[4].split('.') : [] }
}

/**
 * Semver precedence: negative when a comes before b.
 * @param {Version} a
 * @param {Version} b
 */
export function compareVersions(a, b) {
  for (const key of /** @type {const} */ (['major', 'minor', 'patch'])) if (a[key] !== b[key]) return a[key] - b[key]
  // A prerelease comes before its release.
  if (!a.pre.length || !b.pre.length) return (b.pre.length ? 1 : 0) - (a.pre.length ? 1 : 0)
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i], b.pre[i]]
    if (x === y) continue
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)]
    if (nx && ny) return Number(x) - Number(y)
    if (nx !== ny) return nx ? -1 : 1
    return x < y ? -1 : 1
  }
  return a.pre.length - b.pre.length
}

/**
 * Where the major tag goes for this release, given the remote's tags.
 * @param {Version} version
 * @param {RemoteTag[]} tags
 * @returns {{ major: string, move: boolean, latest: boolean, why: string }}
 *   latest: whether the release is the newest of all (GitHub's "Latest" badge)
 */
export function planMajor(version, tags) {
  const major = `v${version.major}`
  const released = tags.map(t => parseVersion(t.name)).filter(v => v !== undefined && !v.pre.length && v.tag !== version.tag)
  const newer = /** @type {Version[]} */ (released).filter(v => compareVersions(v, version) > 0)
  if (version.pre.length) return { major, move: false, latest: false, why: `${version.tag} is a prerelease: ${major} stays where it is` }
  const newerSameMajor = newer
    .filter(v => v.major === version.major)
    .sort(compareVersions)
    .at(-1)
  if (newerSameMajor)
    return { major, move: false, latest: false, why: `${newerSameMajor.tag} is newer than ${version.tag}: ${major} stays with it, it never goes back` }
  return { major, move: true, latest: newer.length === 0, why: `${version.tag} is the newest release of ${major}` }
}

/**
 * The remote's tags, each with the commit it names (ls-remote lists an annotated tag's commit as <tag>^{}).
 * @param {string} remote
 * @returns {RemoteTag[]}
 */
export function remoteTags(remote = 'origin') {
  const lines = git('ls-remote', '--tags', remote).split('\n').filter(Boolean)
  /** @type {Map<string, RemoteTag>} */
  const tags = new Map()
  for (const line of lines) {
    const [sha, ref] = line.split('\t')
    const name = ref.replace(/^refs\/tags\//, '').replace(/\^\{\}$/, '')
    const tag = tags.get(name) ?? { name, object: sha, commit: sha }
    if (ref.endsWith('^{}')) tag.commit = sha
    else tag.object = sha
    tags.set(name, tag)
  }
  return [...tags.values()]
}

/** @param {string[]} args */
function git(...args) {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

/** @param {string[]} args */
function gh(...args) {
  return execFileSync('gh', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
}

/** @param {string} message */
function say(message) {
  process.stderr.write(`${message}\n`)
}

/** @param {string} tag */
function versionOrFail(tag) {
  const version = parseVersion(tag)
  if (!version) throw new Error(`"${tag}" is not a version: give vMAJOR.MINOR.PATCH (v1.4.0), or vMAJOR.MINOR.PATCH-<pre> (v1.4.0-rc.1) for a prerelease`)
  return version
}

/**
 * The check, after dist/ was checked: the version is well-formed, and new (or, when a publish is run
 * again, already at this commit). Returns the lines for GITHUB_OUTPUT.
 * @param {string} tag
 */
export function check(tag) {
  const version = versionOrFail(tag)
  const sha = git('rev-parse', '--verify', 'HEAD^{commit}')
  const tags = remoteTags()
  const existing = tags.find(t => t.name === tag)
  if (existing && existing.commit !== sha) throw new Error(`the tag ${tag} exists already, at ${existing.commit.slice(0, 12)}: a version is released once`)
  const plan = planMajor(version, tags)
  say(`${tag} at ${sha}: ${version.pre.length ? 'a prerelease' : 'a release'}; ${plan.move ? `${plan.major} will move to it` : plan.why}.`)
  return [`sha=${sha}`, `prerelease=${version.pre.length > 0}`, `major=${plan.major}`, `move-major=${plan.move}`]
}

/**
 * Creates the tag and the release at `sha`, then moves the major tag when this is the newest release of
 * its major version. The remote's tags are read again here: another release may have landed since check.
 * @param {string} tag
 * @param {string} sha
 */
export function publish(tag, sha) {
  const version = versionOrFail(tag)
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`"${sha}" is not a full commit id`)
  const tags = remoteTags()
  const existing = tags.find(t => t.name === tag)
  if (existing && existing.commit !== sha) throw new Error(`the tag ${tag} exists already, at ${existing.commit.slice(0, 12)}, not at ${sha.slice(0, 12)}`)
  const plan = planMajor(version, tags)
  let released = false
  try {
    gh('release', 'view', tag, '--json', 'tagName')
    released = true
  } catch {
    // no release of that tag yet
  }
  if (released) {
    say(`The release ${tag} exists already: kept as it is.`)
  } else {
    // A prerelease is never GitHub's "Latest"; an older release must not take the badge either.
    const flags = version.pre.length ? ['--prerelease'] : plan.latest ? [] : ['--latest=false']
    // gh creates the tag at the commit, unless it exists already at it.
    gh('release', 'create', tag, ...(existing ? ['--verify-tag'] : ['--target', sha]), '--title', tag, '--generate-notes', ...flags)
    say(`Published the release ${tag} at ${sha}${flags.length ? ` (${flags.join(' ')})` : ''}.`)
  }
  if (!plan.move) return say(`${plan.why}.`)
  const current = remoteTags().find(t => t.name === plan.major)
  if (current?.commit === sha && current.object === sha) return say(`${plan.major} names ${sha} already.`)
  // A lightweight tag at the commit, replacing the old one only if nobody moved it meanwhile.
  git('push', `--force-with-lease=refs/tags/${plan.major}:${current?.object ?? ''}`, 'origin', `${sha}:refs/tags/${plan.major}`)
  say(`Moved ${plan.major} from ${current ? current.commit.slice(0, 12) : '(none)'} to ${sha}: ${plan.why}.`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2)
  try {
    if (command === 'check' && args.length === 1) process.stdout.write(`${check(args[0]).join('\n')}\n`)
    else if (command === 'publish' && args.length === 2) publish(args[0], args[1])
    else throw new Error('usage: node scripts/release.mjs check <version> | publish <version> <sha>')
  } catch (error) {
    // stderr: in the workflow, stdout goes to GITHUB_OUTPUT (the runner reads commands from both).
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`::error::${message.split('\n')[0]}\n`)
    process.exitCode = 1
  }
}
