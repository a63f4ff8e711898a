export const id = 813;
export const ids = [813];
export const modules = {

/***/ 773:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Ah: () => (/* binding */ denyGlobRegex),
/* harmony export */   NM: () => (/* binding */ globToRegex),
/* harmony export */   Q6: () => (/* binding */ GlobTokenKind),
/* harmony export */   qF: () => (/* binding */ parseGlob),
/* harmony export */   uU: () => (/* binding */ escapeRegexLiteral),
/* harmony export */   ys: () => (/* binding */ globTokenToRegex)
/* harmony export */ });
/* harmony import */ var _utils_debug_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7459);
/**
 * The glob syntax of a filesystem entry. {@link parseGlob} alone reads it;
 * what else needs it goes by the tokens.
 */

var GlobTokenKind;
(function (GlobTokenKind) {
    /** Characters that stand for themselves, none of them a separator. */
    GlobTokenKind["Text"] = "text";
    /** `/` */
    GlobTokenKind["Separator"] = "separator";
    /** `?`: one character of a name. */
    GlobTokenKind["AnyChar"] = "anyChar";
    /** `*`: any number of characters of a name. */
    GlobTokenKind["Star"] = "star";
    /** `**`: any number of characters, separators among them. */
    GlobTokenKind["Globstar"] = "globstar";
    /** `**` with the `/` after it: any number of directories. */
    GlobTokenKind["GlobstarSlash"] = "globstarSlash";
    /** `[abc]`, `[a-z]`: one character of a set. */
    GlobTokenKind["Set"] = "set";
})(GlobTokenKind || (GlobTokenKind = {}));
/**
 * The ranges that `members` spells, a single character as a range of one, in
 * UTF-16 code units as a regular expression without the `u` flag reads them.
 * A `-` is a member where it is the first or the last. Undefined where they
 * spell no set: there are none, or a range runs backwards (`[user-id]`: `r-i`).
 */
function setRanges(members) {
    if (members === '')
        return undefined;
    const ranges = [];
    for (let i = 0; i < members.length; i++) {
        const isRange = members[i + 1] === '-' && i + 2 < members.length;
        const from = members.charCodeAt(i);
        if (isRange)
            i += 2;
        const to = members.charCodeAt(i);
        if (to < from)
            return undefined;
        ranges.push([from, to]);
    }
    return ranges;
}
const SEPARATOR = '/'.charCodeAt(0);
/**
 * `pattern` as its tokens, in time that grows with its length. Every string
 * is a pattern, and no character escapes another:
 *
 * - A set runs from a `[` to the first `]` after it, be that the next
 *   character. All between the two are members, a `*`, a `?`, a `/` or another
 *   `[` too, and `^` and `!` do not negate.
 * - Brackets that spell no set (see {@link setRanges}) are text, as POSIX
 *   reads a `[` that opens none, and what is between them keeps its meaning.
 *   So are a `[` that nothing closes and a `]` that nothing opens.
 * - Of a run of `*`, the last two go with a `/` that follows. Two or more of
 *   the rest are a `**`.
 */
function parseGlob(pattern) {
    const tokens = [];
    let textStart = 0;
    const endText = (at) => {
        if (textStart < at) {
            const text = pattern.slice(textStart, at);
            tokens.push({ kind: GlobTokenKind.Text, text });
        }
    };
    /**
     * Adds a wildcard that stands right after the last token. Wildcards side by
     * side are kept to the fewest that match the same, two at most: a regular
     * expression tries every way to share a path out among them, which takes a
     * power of its length.
     */
    const addWildcard = (kind) => {
        const { Star, Globstar, GlobstarSlash } = GlobTokenKind;
        const kindAt = (fromEnd) => tokens[tokens.length - fromEnd]?.kind;
        // A `**` matches whatever there is, with any of them after it. And
        // `**/**/` is `**/`.
        if (kindAt(1) === Globstar || kindAt(1) === kind)
            return;
        // So it does with any before it. `*` `**/` `*` and `**/` `*` `**/` are
        // one too: whatever there is, is directories and then a name.
        const isGlobstar = kind === Globstar ||
            (kindAt(2) === kind &&
                (kindAt(1) === Star || kindAt(1) === GlobstarSlash));
        if (!isGlobstar) {
            tokens.push({ kind });
            return;
        }
        while (kindAt(1) === Star || kindAt(1) === GlobstarSlash)
            tokens.pop();
        tokens.push({ kind: Globstar });
    };
    // Found to open no set once, for all of them: looking for a `]` from every
    // `[` anew takes the square of the length.
    let bracketsAreTextUntil = 0;
    const noSets = [];
    let i = 0;
    while (i < pattern.length) {
        switch (pattern[i]) {
            case '/':
                endText(i);
                tokens.push({ kind: GlobTokenKind.Separator });
                textStart = ++i;
                break;
            case '?':
                endText(i);
                tokens.push({ kind: GlobTokenKind.AnyChar });
                textStart = ++i;
                break;
            case '*': {
                endText(i);
                const start = i;
                while (pattern[i] === '*')
                    i++;
                const withSeparator = i - start >= 2 && pattern[i] === '/';
                const rest = i - start - (withSeparator ? 2 : 0);
                if (rest >= 2)
                    addWildcard(GlobTokenKind.Globstar);
                if (rest === 1)
                    addWildcard(GlobTokenKind.Star);
                if (withSeparator)
                    addWildcard(GlobTokenKind.GlobstarSlash);
                textStart = withSeparator ? ++i : i;
                break;
            }
            case '[': {
                if (i < bracketsAreTextUntil) {
                    i++;
                    break;
                }
                const close = pattern.indexOf(']', i + 1);
                if (close === -1) {
                    noSets.push(pattern.slice(i));
                    bracketsAreTextUntil = pattern.length;
                    i++;
                    break;
                }
                const members = pattern.slice(i + 1, close);
                const ranges = setRanges(members);
                if (ranges === undefined) {
                    noSets.push(`[${members}]`);
                    bracketsAreTextUntil = close + 1;
                    i++;
                    break;
                }
                endText(i);
                tokens.push({
                    kind: GlobTokenKind.Set,
                    members,
                    matchesSeparator: ranges.some(([from, to]) => from <= SEPARATOR && SEPARATOR <= to),
                });
                textStart = i = close + 1;
                break;
            }
            default:
                i++;
        }
    }
    endText(i);
    if (noSets.length > 0) {
        (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_0__/* .logForDebugging */ .o)(`[Sandbox] The brackets in ${noSets.join(', ')} spell no set of characters, so they are read as text: ${pattern}`, { level: 'warn' });
    }
    return tokens;
}
/** A regular expression that matches `text` and nothing else. */
function escapeRegexLiteral(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
/** The regular expression for what `token` matches. */
function globTokenToRegex(token) {
    switch (token.kind) {
        case GlobTokenKind.Text:
            return escapeRegexLiteral(token.text);
        case GlobTokenKind.Separator:
            return '/';
        case GlobTokenKind.AnyChar:
            return '[^/]';
        case GlobTokenKind.Star:
            return '[^/]*';
        case GlobTokenKind.Globstar:
            return '.*';
        case GlobTokenKind.GlobstarSlash:
            return '(.*/)?';
        case GlobTokenKind.Set:
            // A `-` stays what it is to the set, and the rest are its members.
            return `[${token.members.replace(/[.^$+{}()|\\]/g, '\\$&')}]`;
    }
}
/**
 * Convert a glob pattern to a regular expression
 *
 * This implements gitignore-style pattern matching to match the behavior of the
 * `ignore` library used by the permission system.
 *
 * Supported patterns:
 * - * matches any characters except / (e.g., *.ts matches foo.ts but not foo/bar.ts)
 * - ** matches any characters including / (e.g., src/**\/*.ts matches all .ts files in src/)
 * - ? matches any single character except / (e.g., file?.txt matches file1.txt)
 * - [abc] matches any character in the set (e.g., file[0-9].txt matches file3.txt)
 *
 * Whatever a pattern spells, what is returned compiles, so that no entry keeps
 * a sandbox from starting (see {@link parseGlob}). Only its size can be more
 * than an engine takes.
 *
 * Shared between macOS sandbox profiles and Linux glob expansion.
 */
function globToRegex(globPattern) {
    return `^${parseGlob(globPattern).map(globTokenToRegex).join('')}$`;
}
/**
 * Regex for a glob used in a DENY rule: {@link globToRegex} plus an optional
 * `/…` tail, so the deny covers everything beneath each match the way
 * `subpath` does for literals. Callers strip a trailing `/**` before the
 * pattern gets here (removeTrailingGlobSuffix), so `**\/secrets/**` arrives
 * as `**\/secrets` and, matched exactly, would deny only the directory
 * vnode while `secrets/key` stayed readable. This is what the Linux backend
 * already does (a deny masks the whole subtree). Only ever widens a deny.
 *
 * Takes a whole pattern, so every character in it is glob syntax: right for
 * the pattern reading of a spelling the caller wrote, which is what
 * `readRuleCovers` passes. A pattern anchored at a directory that is a
 * name on disk goes through the macOS `denyGlobEntryRegex`, which splices
 * that directory back in escaped and calls this for the tail.
 */
function denyGlobRegex(normalizedGlob) {
    // globToRegex() always returns '^…$'.
    return globToRegex(normalizedGlob).slice(0, -1) + '(/.*)?$';
}
//# sourceMappingURL=glob-pattern.js.map

/***/ }),

/***/ 7813:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   CA_TRUST_VARS: () => (/* binding */ CA_TRUST_VARS),
/* harmony export */   DANGEROUS_DIRECTORIES: () => (/* binding */ DANGEROUS_DIRECTORIES),
/* harmony export */   DANGEROUS_FILES: () => (/* binding */ DANGEROUS_FILES),
/* harmony export */   MAX_ENCODED_COMMAND_BYTES: () => (/* binding */ MAX_ENCODED_COMMAND_BYTES),
/* harmony export */   PROXY_AUTH_USER: () => (/* binding */ PROXY_AUTH_USER),
/* harmony export */   SANDBOXED_COMMAND_KEY_LENGTH: () => (/* binding */ SANDBOXED_COMMAND_KEY_LENGTH),
/* harmony export */   attributionKeyFor: () => (/* binding */ attributionKeyFor),
/* harmony export */   buildGitConfigEnv: () => (/* binding */ buildGitConfigEnv),
/* harmony export */   buildPosixGitSafeDirEnv: () => (/* binding */ buildPosixGitSafeDirEnv),
/* harmony export */   collapseInteriorSpellings: () => (/* binding */ collapseInteriorSpellings),
/* harmony export */   containsGlobChars: () => (/* binding */ containsGlobChars),
/* harmony export */   containsGlobCharsForPlatform: () => (/* binding */ containsGlobCharsForPlatform),
/* harmony export */   containsGlobCharsWin: () => (/* binding */ containsGlobCharsWin),
/* harmony export */   decodeSandboxedCommand: () => (/* binding */ decodeSandboxedCommand),
/* harmony export */   encodeSandboxedCommand: () => (/* binding */ encodeSandboxedCommand),
/* harmony export */   encodedCommandFromProxyUser: () => (/* binding */ encodedCommandFromProxyUser),
/* harmony export */   expandGlobPattern: () => (/* binding */ expandGlobPattern),
/* harmony export */   expandTilde: () => (/* binding */ expandTilde),
/* harmony export */   expandWindowsEnvRefs: () => (/* binding */ expandWindowsEnvRefs),
/* harmony export */   finish: () => (/* binding */ finish),
/* harmony export */   finishInTurns: () => (/* binding */ finishInTurns),
/* harmony export */   generateProxyEnvVars: () => (/* binding */ generateProxyEnvVars),
/* harmony export */   getDangerousDirectories: () => (/* binding */ getDangerousDirectories),
/* harmony export */   getDefaultWritePaths: () => (/* binding */ getDefaultWritePaths),
/* harmony export */   globBaseDirIsRoot: () => (/* binding */ globBaseDirIsRoot),
/* harmony export */   globPatternBaseDir: () => (/* binding */ globPatternBaseDir),
/* harmony export */   isAbsenceErrno: () => (/* binding */ isAbsenceErrno),
/* harmony export */   isAtOrUnder: () => (/* binding */ isAtOrUnder),
/* harmony export */   isStrictlyUnder: () => (/* binding */ isStrictlyUnder),
/* harmony export */   isSymlinkOutsideBoundary: () => (/* binding */ isSymlinkOutsideBoundary),
/* harmony export */   isUncPath: () => (/* binding */ isUncPath),
/* harmony export */   markedLiteralPath: () => (/* binding */ markedLiteralPath),
/* harmony export */   nameLocation: () => (/* binding */ nameLocation),
/* harmony export */   normalizeCaseForComparison: () => (/* binding */ normalizeCaseForComparison),
/* harmony export */   normalizePathForSandbox: () => (/* binding */ normalizePathForSandbox),
/* harmony export */   pathSpellings: () => (/* binding */ pathSpellings),
/* harmony export */   properAncestors: () => (/* binding */ properAncestors),
/* harmony export */   proxyUsernameFor: () => (/* binding */ proxyUsernameFor),
/* harmony export */   removeTrailingGlobSuffix: () => (/* binding */ removeTrailingGlobSuffix),
/* harmony export */   sshConnectScript: () => (/* binding */ sshConnectScript),
/* harmony export */   stripExtendedPathPrefix: () => (/* binding */ stripExtendedPathPrefix),
/* harmony export */   toForwardSlashes: () => (/* binding */ toForwardSlashes),
/* harmony export */   walkGlobPattern: () => (/* binding */ walkGlobPattern),
/* harmony export */   walkGlobPatternSteps: () => (/* binding */ walkGlobPatternSteps),
/* harmony export */   workingDirectory: () => (/* binding */ workingDirectory)
/* harmony export */ });
/* harmony import */ var os__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(857);
/* harmony import */ var path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6928);
/* harmony import */ var fs__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(9896);
/* harmony import */ var _utils_platform_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(2353);
/* harmony import */ var _utils_debug_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(7459);
/* harmony import */ var _utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(2560);
/* harmony import */ var _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(773);







/**
 * Dangerous files that should be protected from writes.
 * These files can be used for code execution or data exfiltration.
 */
const DANGEROUS_FILES = [
    '.gitconfig',
    '.gitmodules',
    '.bashrc',
    '.bash_profile',
    '.zshrc',
    '.zprofile',
    '.profile',
    '.ripgreprc',
    '.mcp.json',
];
/**
 * Dangerous directories that should be protected from writes.
 * These directories contain sensitive configuration or executable files.
 */
const DANGEROUS_DIRECTORIES = ['.git', '.vscode', '.idea'];
/**
 * Get the list of dangerous directories to deny writes to.
 * Excludes .git since we need it writable for git operations -
 * instead we block specific paths within .git (hooks and config).
 */
function getDangerousDirectories() {
    return [
        ...DANGEROUS_DIRECTORIES.filter(d => d !== '.git'),
        '.claude/commands',
        '.claude/agents',
    ];
}
/**
 * Normalizes a path for case-insensitive comparison.
 * This prevents bypassing security checks using mixed-case paths on case-insensitive
 * filesystems (macOS/Windows) like `.cLauDe/Settings.locaL.json`.
 *
 * We always normalize to lowercase regardless of platform for consistent security.
 * @param path The path to normalize
 * @returns The lowercase path for safe comparison
 */
function normalizeCaseForComparison(pathStr) {
    return pathStr.toLowerCase();
}
/**
 * `p` is `dir` itself or lies beneath it, by path segment ('/xy' is not under
 * '/x'); root-aware, since '/' + '/' is a prefix of nothing.
 */
function isAtOrUnder(p, dir) {
    return p === dir || p.startsWith(dir === '/' ? '/' : dir + '/');
}
/** `p` lies strictly beneath `dir` (isAtOrUnder, excluding `dir` itself). */
function isStrictlyUnder(p, dir) {
    return p !== dir && isAtOrUnder(p, dir);
}
/** The proper ancestors of an absolute POSIX path, nearest first, ending at '/'. */
function* properAncestors(absolutePath) {
    for (let slash = absolutePath.lastIndexOf('/'); slash > 0; slash = absolutePath.lastIndexOf('/', slash - 1)) {
        yield absolutePath.slice(0, slash);
    }
    if (absolutePath !== '/')
        yield '/';
}
/**
 * The spellings that name `candidatePath` for a mount comparison: as spelled,
 * plus with every symlink resolved when that differs. A path that cannot be
 * resolved (dangling, vanished) is named by its spelling alone.
 */
function pathSpellings(candidatePath) {
    try {
        const resolved = (0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(candidatePath);
        if (resolved !== candidatePath)
            return [candidatePath, resolved];
    }
    catch {
        // Dangling or vanished: only the spelling names it.
    }
    return [candidatePath];
}
/**
 * Where the name `p` lives: its parent directories as `canonicalOf` resolves
 * them, its last component as written. An allowRead entry is read so: one
 * that is a symlink names the link, and nothing the link points at.
 */
function nameLocation(p, canonicalOf) {
    if (p === '/')
        return p;
    const parent = canonicalOf(path__WEBPACK_IMPORTED_MODULE_1__.dirname(p));
    return `${parent === '/' ? '' : parent}/${path__WEBPACK_IMPORTED_MODULE_1__.basename(p)}`;
}
/** `process.cwd()`, or undefined where that throws: it has been removed. */
function workingDirectory() {
    try {
        return process.cwd();
    }
    catch {
        return undefined;
    }
}
/** An fs error that means the name resolves to no file — it is missing, or
 * the path cannot name one at all — as opposed to one that means a file is
 * there but could not be looked at (EACCES, EPERM, EIO, anything
 * unrecognised). */
function isAbsenceErrno(err) {
    const code = err?.code;
    return (code === 'ENOENT' ||
        code === 'ENOTDIR' ||
        code === 'ELOOP' ||
        code === 'ENAMETOOLONG');
}
/**
 * Check if a path pattern contains glob characters
 */
function containsGlobChars(pathPattern) {
    return (pathPattern.includes('*') ||
        pathPattern.includes('?') ||
        pathPattern.includes('[') ||
        pathPattern.includes(']'));
}
/**
 * Windows-specific glob-char check. `[` and `]` are NOT
 * metachars here — they are legal in Win32 filenames, so a
 * literal `C:\app\[prod].env` must route to the literal-path
 * branch, not glob expansion (where it would match nothing and
 * be silently dropped). Only `*` and `?` trigger expansion.
 */
function containsGlobCharsWin(p) {
    return p.includes('*') || p.includes('?');
}
/** Platform-appropriate glob-char check. */
function containsGlobCharsForPlatform(p) {
    return (0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() === 'windows'
        ? containsGlobCharsWin(p)
        : containsGlobChars(p);
}
/**
 * The path of an entry that is not a spelling. Throws unless the entry is
 * `{ path: string, literal: true }`: a config built in code skips the
 * schema, and reading `{ path }` either way would be a guess about a deny.
 */
function markedLiteralPath(entry) {
    const candidate = entry;
    if (candidate === null ||
        typeof candidate !== 'object' ||
        typeof candidate.path !== 'string' ||
        candidate.path === '' ||
        candidate.literal !== true) {
        throw new TypeError('A filesystem path entry must be a path, or { path, literal: true }; ' +
            `got ${JSON.stringify(entry) ?? String(entry)}`);
    }
    return candidate.path;
}
/**
 * Strip the Win32 `\\?\` extended-path prefix so the residue is
 * a conventional absolute path (drive-letter or UNC) with no `?`
 * for the glob-char check to misclassify. `\\?\UNC\srv\share\f`
 * → `\\srv\share\f`; `\\?\C:\f` → `C:\f`; anything else → input.
 * The UNC marker is matched case-insensitively (Windows accepts
 * `\\?\unc\…` in any casing; a case-sensitive check would fall
 * through to the 4-char strip and yield a cwd-relative residue).
 */
function stripExtendedPathPrefix(p) {
    if (/^\\\\\?\\unc\\/i.test(p))
        return '\\\\' + p.slice(8);
    if (p.startsWith('\\\\?\\'))
        return p.slice(4);
    return p;
}
/**
 * True for a Windows UNC path in any spelling — `\\server\share\…`,
 * extended-length `\\?\UNC\server\share\…`, device-namespace
 * `\\.\UNC\server\share\…` (all any casing, either separator).
 * Delegates path-form normalization to
 * `path.win32.toNamespacedPath` — every UNC spelling canonicalizes
 * to `\\?\UNC\…` — so the check is "namespaced form starts with
 * `\\?\UNC\` (or `\\.\UNC\`)". Drive-local forms (`C:\…`,
 * `\\?\C:\…`), other device paths (`\\.\pipe\…`), relative paths
 * (resolved against a local cwd), and server-only `\\srv` (no
 * share) are all false.
 *
 * The broker uses this to skip `stat`/`realpath` on UNC **literals**
 * (see {@link normalizePathForSandbox}): any such call is an SMB
 * request carrying the **real user's** NTLM credentials to whatever
 * host the path names — a forced-auth / path-encoded-exfil channel
 * if the path is model-influenced. Literals pass through raw
 * (resolution failures surface at `srt-win` stamp/grant time); a
 * UNC **glob** still walks the share with real-user credentials —
 * the user consented by naming their own share in the config.
 * Defense-in-depth: the primary embedder already gates
 * model-provided cwd/paths upstream.
 */
function isUncPath(p) {
    const ns = path__WEBPACK_IMPORTED_MODULE_1__.win32.toNamespacedPath(p);
    // Already-namespaced input passes through `toNamespacedPath`
    // verbatim (casing and separators preserved), so match the UNC
    // marker case-insensitively with either separator. `[?.]` also
    // catches the device-namespace `\\.\UNC\…` form — that is a real
    // network access, not a local device.
    return /^[\\/]{2}[?.][\\/]unc[\\/]/i.test(ns);
}
/**
 * Remove trailing /** glob suffix from a path pattern
 * Used to normalize path patterns since /** just means "directory and everything under it"
 */
function removeTrailingGlobSuffix(pathPattern) {
    const stripped = pathPattern.replace(/\/\*\*$/, '');
    return stripped || '/';
}
/**
 * Check if a symlink resolution crosses expected path boundaries.
 *
 * When resolving symlinks for sandbox path normalization, we need to ensure
 * the resolved path doesn't unexpectedly broaden the scope. This function
 * returns true if the resolved path is an ancestor of the original path
 * or resolves to a system root, which would indicate the symlink points
 * outside expected boundaries.
 *
 * @param originalPath - The original path before symlink resolution
 * @param resolvedPath - The path after fs.realpathSync() resolution
 * @returns true if the resolved path is outside expected boundaries
 */
function isSymlinkOutsideBoundary(originalPath, resolvedPath) {
    const normalizedOriginal = path__WEBPACK_IMPORTED_MODULE_1__.normalize(originalPath);
    const normalizedResolved = path__WEBPACK_IMPORTED_MODULE_1__.normalize(resolvedPath);
    // Same path after normalization - OK
    if (normalizedResolved === normalizedOriginal) {
        return false;
    }
    // Handle macOS /tmp -> /private/tmp canonical resolution
    // This is a legitimate system symlink that should be allowed
    // /tmp/claude -> /private/tmp/claude is OK
    // /var/folders/... -> /private/var/folders/... is OK
    if (normalizedOriginal.startsWith('/tmp/') &&
        normalizedResolved === '/private' + normalizedOriginal) {
        return false;
    }
    if (normalizedOriginal.startsWith('/var/') &&
        normalizedResolved === '/private' + normalizedOriginal) {
        return false;
    }
    // If resolved path is "/" it's outside expected boundaries
    if (normalizedResolved === '/') {
        return true;
    }
    // If resolved path is very short (single component like /tmp, /usr, /var),
    // it's likely outside expected boundaries
    const resolvedParts = normalizedResolved.split('/').filter(Boolean);
    if (resolvedParts.length <= 1) {
        return true;
    }
    // If original path starts with resolved path, the resolved path is an ancestor
    // e.g., /tmp/claude -> /tmp means the symlink points to a broader scope
    if (normalizedOriginal.startsWith(normalizedResolved + '/')) {
        return true;
    }
    // Also check the canonical form of the original path for macOS
    // e.g., /tmp/claude should also be checked as /private/tmp/claude
    let canonicalOriginal = normalizedOriginal;
    if (normalizedOriginal.startsWith('/tmp/')) {
        canonicalOriginal = '/private' + normalizedOriginal;
    }
    else if (normalizedOriginal.startsWith('/var/')) {
        canonicalOriginal = '/private' + normalizedOriginal;
    }
    if (canonicalOriginal !== normalizedOriginal &&
        canonicalOriginal.startsWith(normalizedResolved + '/')) {
        return true;
    }
    // STRICT CHECK: Only allow resolutions that stay within the expected path tree
    // The resolved path must either:
    // 1. Start with the original path (deeper/same) - already covered by returning false below
    // 2. Start with the canonical original (deeper/same under canonical form)
    // 3. BE the canonical form of the original (e.g., /tmp/x -> /private/tmp/x)
    // Any other resolution (e.g., /tmp/claude -> /Users/dworken) is outside expected bounds
    const resolvedStartsWithOriginal = normalizedResolved.startsWith(normalizedOriginal + '/');
    const resolvedStartsWithCanonical = canonicalOriginal !== normalizedOriginal &&
        normalizedResolved.startsWith(canonicalOriginal + '/');
    const resolvedIsCanonical = canonicalOriginal !== normalizedOriginal &&
        normalizedResolved === canonicalOriginal;
    // If resolved path is not within expected tree, it's outside boundary
    if (!resolvedIsCanonical &&
        !resolvedStartsWithOriginal &&
        !resolvedStartsWithCanonical) {
        return true;
    }
    // Allow resolution to same directory level or deeper within expected tree
    return false;
}
/**
 * Expand a leading `~` to the home directory. Handles bare `~`,
 * `~/…`, and (on Windows only) the `~\…` form so callers don't each
 * open-code the variants. `~\` is gated to Windows because `\` is a
 * valid POSIX filename byte — `~\foo` is a legal relative filename
 * on Linux/macOS and must NOT tilde-expand there.
 */
function expandTilde(p) {
    if (p === '~')
        return (0,os__WEBPACK_IMPORTED_MODULE_0__.homedir)();
    if (p.startsWith('~/') ||
        (process.platform === 'win32' && p.startsWith('~\\'))) {
        return (0,os__WEBPACK_IMPORTED_MODULE_0__.homedir)() + p.slice(1);
    }
    return p;
}
/**
 * Expand Windows-style `%USERPROFILE%` / `%HOMEDRIVE%` / `%HOMEPATH%`
 * references to the real user's home directory. Case-insensitive;
 * idempotent. Applied by {@link normalizePathForSandbox}'s Windows
 * pre-processing so every filesystem-config path field
 * (`allowRead`/`allowWrite`/`denyRead`/`denyWrite`) accepts these
 * forms uniformly.
 *
 * `%HOMEPATH%` is drive-RELATIVE (`\Users\name`) and `%HOMEDRIVE%` is
 * the drive-only (`C:`) — the split matches how cmd.exe defines them,
 * so `%HOMEDRIVE%%HOMEPATH%` composes to the full home path.
 */
function expandWindowsEnvRefs(p) {
    const home = (0,os__WEBPACK_IMPORTED_MODULE_0__.homedir)();
    const drive = /^[A-Za-z]:/.test(home) ? home.slice(0, 2) : '';
    const homePath = drive ? home.slice(2) : home;
    return p
        .replace(/%USERPROFILE%/gi, home)
        .replace(/%HOMEDRIVE%/gi, drive)
        .replace(/%HOMEPATH%/gi, homePath);
}
/**
 * Runs of `/` collapsed to one and `/./` components dropped, leaving the rest
 * of the spelling (a trailing `/` or `/.`, a `..`) to the caller. POSIX only.
 */
function collapseInteriorSpellings(pathPattern) {
    return pathPattern.replace(/\/{2,}/g, '/').replace(/\/\.(?=\/)/g, '');
}
/**
 * Says so when a `..` reaches a backend unfolded — realpath could not resolve
 * the path (absent, or unreadable), and folding `..` lexically here could aim
 * the rule past a symlink at a file the kernel would never reach. Debug-only
 * (`SRT_DEBUG`), so a rule that matches nothing is silent by default. Called
 * at every return of {@link normalizePathForSandbox} that can carry one, glob
 * spellings included.
 */
function warnIfParentRefUnfolded(normalizedPath) {
    if ((0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() !== 'windows' &&
        /(?:^|\/)\.\.(?:\/|$)/.test(normalizedPath)) {
        (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] "${normalizedPath}" could not be resolved and still contains ` +
            `a ".." component, so a rule spelled this way may not match.`, { level: 'warn' });
    }
    return normalizedPath;
}
/**
 * Normalize a path for use in sandbox configurations
 * Handles:
 * - Tilde (~) expansion for home directory
 * - Relative paths (./foo, ../foo, etc.) converted to absolute
 * - POSIX: '//' runs, '/./' components and a trailing '/' or '/.' collapsed
 * - Symlinks are resolved to their real paths for non-glob patterns
 * - Glob patterns preserve wildcards after path normalization
 *
 * Returns the absolute path with symlinks resolved (or normalized glob pattern)
 *
 * `opts.literal` marks a path that names one file or directory rather
 * than matching several: one the library computed itself, one the caller
 * marked literal, a caller spelling that carried no glob character —
 * resolving such a spelling can splice in a cwd or home directory whose own
 * name does — or the name a spelling with glob characters also is (see
 * path-entries.ts). The glob branches are skipped for it, so a component
 * like `a[b` is resolved and later compiled as the name it is. Without it,
 * a spelling with `*`, `?` or `[…]` in it keeps the character sniffing, its
 * pattern reading. The interior collapse below is not one of the glob
 * branches: `//` and `/./` are dead spellings either way.
 */
function normalizePathForSandbox(pathPattern, opts) {
    const isGlobSpelling = (p) => !opts?.literal && containsGlobCharsForPlatform(p);
    // Windows pre-processing: expand `%USERPROFILE%` / `%HOMEDRIVE%` /
    // `%HOMEPATH%`, strip the `\\?\` / `\\?\UNC\` extended prefix (its
    // `?` is a literal, not a glob char), and uppercase the drive
    // letter so `c:\…` and `C:\…` normalize identically.
    if ((0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() === 'windows') {
        pathPattern = stripExtendedPathPrefix(expandWindowsEnvRefs(pathPattern));
        if (/^[a-z]:/.test(pathPattern)) {
            pathPattern = pathPattern[0].toUpperCase() + pathPattern.slice(1);
        }
        // UNC literal: return as-is (separators normalised only) — no
        // stat/realpath. A UNC *glob* falls through to the glob walk
        // below (user-trusted share). See {@link isUncPath}.
        if (isUncPath(pathPattern) && !isGlobSpelling(pathPattern)) {
            return path__WEBPACK_IMPORTED_MODULE_1__.win32.normalize(pathPattern);
        }
    }
    // POSIX: strip trailing slashes from non-glob spellings before any
    // resolution. Consumers on the Linux and macOS paths compare spellings by
    // exact match and `path + '/'` prefixes — which a preserved slash silently
    // defeats ('<dir>//') — and the realpath-acceptance checks below treat a
    // slash-only difference as a mismatch. A Seatbelt `subpath` filter is the
    // one place the two spellings really are interchangeable: a `literal`
    // filter and a glob regex ending '/$' match nothing when the slash is
    // there, and a bwrap bind tolerates it only for a directory (a slashed
    // file path fails ENOTDIR at mount). Glob spellings are left untouched: a
    // slash after a glob segment is semantic ('/x/*/' compiles to a different
    // regex than '/x/*'). That regex matches nothing, which an allow may
    // harmlessly be — so an allow keeps the spelling, while the same spelling
    // as a deny is rejected at config validation (see sandbox-config.ts). On
    // Windows a trailing separator is the directory marker for absent deny
    // targets (srt#404) and must survive.
    if ((0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() !== 'windows' &&
        pathPattern.endsWith('/') &&
        !isGlobSpelling(pathPattern)) {
        pathPattern = pathPattern.replace(/\/+$/, '') || '/';
    }
    let normalizedPath = expandTilde(pathPattern);
    // A pattern with no tilde to expand and no root is resolved against the
    // working directory; path.resolve covers './', '../', '.' and a bare
    // relative name alike.
    if (normalizedPath === pathPattern && !path__WEBPACK_IMPORTED_MODULE_1__.isAbsolute(pathPattern)) {
        normalizedPath = path__WEBPACK_IMPORTED_MODULE_1__.resolve(process.cwd(), pathPattern);
    }
    // POSIX: collapse the interior spellings realpath would have removed, on the
    // EXPANDED path — the trailing strip above runs before expansion and only
    // ever touches a trailing run, and tilde expansion can put a run back
    // (HOME='/home/u/' turns '~/x' into '/home/u//x'). Glob spellings need it
    // for the same reason: '~/.aws//*.pem' compiles to a regex holding '//'.
    //
    // It matters on macOS: Seatbelt compares the kernel's canonical path, so a
    // filter spelled with '//' or '/./' matches nothing, silently — which for a
    // deny is exactly the absent-target case the deny exists for. bwrap
    // tolerates the spelling, and the Linux backend rebuilds its destinations
    // with path.dirname/join, so that argv was already right.
    //
    // Lexical only, and deliberately not path.normalize/path.resolve, which
    // also fold '..'. An absolute spelling's '..' is left to realPathOf below:
    // that folds it in text too, and answers only for a path that is there, so
    // one that is not keeps its '..' as written. A relative one was already
    // folded lexically by the path.resolve above (pre-existing).
    if ((0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() !== 'windows') {
        normalizedPath = collapseInteriorSpellings(normalizedPath);
    }
    // For glob patterns, resolve symlinks for the directory portion only
    if (isGlobSpelling(normalizedPath)) {
        // Extract the static directory prefix before glob characters
        // (on Windows, `[`/`]` are literal so only split on `*`/`?`).
        const splitRe = (0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() === 'windows' ? /[*?]/ : /[*?[\]]/;
        const staticPrefix = normalizedPath.split(splitRe)[0];
        if (staticPrefix && staticPrefix !== '/') {
            // Get the directory containing the glob pattern
            // If staticPrefix ends with /, remove it to get the directory
            const baseDir = staticPrefix.endsWith('/')
                ? staticPrefix.slice(0, -1)
                : path__WEBPACK_IMPORTED_MODULE_1__.dirname(staticPrefix);
            // Try to resolve symlinks for the base directory
            try {
                const resolvedBaseDir = (0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(baseDir);
                // Validate that resolution stays within expected boundaries
                if (!isSymlinkOutsideBoundary(baseDir, resolvedBaseDir)) {
                    // Reconstruct the pattern with the resolved directory
                    const patternSuffix = normalizedPath.slice(baseDir.length);
                    return warnIfParentRefUnfolded(resolvedBaseDir + patternSuffix);
                }
                // If resolution would broaden scope, keep original pattern
            }
            catch {
                // If directory doesn't exist or can't be resolved, keep the original pattern
            }
        }
        return warnIfParentRefUnfolded(normalizedPath);
    }
    // A trailing '/' or '/.' is not semantic outside a glob, and the empty
    // string is not the filesystem root: an empty HOME makes expandTilde('~')
    // empty, and '' || '/' would turn `allowWrite: ['~']` into a whole-
    // filesystem grant.
    if ((0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)() !== 'windows' && normalizedPath !== '') {
        normalizedPath =
            normalizedPath.replace(/\/\.$/, '').replace(/\/+$/, '') || '/';
    }
    // Resolve symlinks to real paths to avoid bwrap issues
    // Validate that the resolution stays within expected boundaries
    try {
        const resolvedPath = (0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(normalizedPath);
        // A symlink pointing outside the expected boundaries (e.g. to a parent
        // directory) keeps the original path.
        if (!isSymlinkOutsideBoundary(normalizedPath, resolvedPath)) {
            normalizedPath = resolvedPath;
        }
    }
    catch {
        // Absent, or unreadable: keep the normalized spelling.
    }
    return warnIfParentRefUnfolded(normalizedPath);
}
/**
 * What the sandbox itself needs writable: the child's stdio and the TMPDIR it
 * is handed (generateProxyEnvVars). Kept whatever is read-denied.
 */
const SANDBOX_OWN_WRITE_PATHS = [
    '/dev/stdout',
    '/dev/stderr',
    '/dev/null',
    '/dev/tty',
    '/dev/dtracehelper',
    '/dev/autofs_nowait',
    '/tmp/claude',
    '/private/tmp/claude',
];
/**
 * Directories under the home directory made writable as a convenience the
 * caller never asked for. Every entry is subject to the read-rule check in
 * {@link getDefaultWritePaths}.
 */
const HOME_CONVENIENCE_WRITE_DIRS = [
    '.npm/_logs',
    '.claude/debug',
];
/**
 * Get recommended system paths that should be writable for commands to work properly
 *
 * WARNING: These default paths are intentionally broad for compatibility but may
 * allow access to files from other processes. In highly security-sensitive
 * environments, you should configure more restrictive write paths.
 *
 * With no argument this is the whole list. Given the read rules of a
 * filesystem policy, a home convenience directory (~/.npm/_logs,
 * ~/.claude/debug) is left out when a `denyRead` entry names it or a
 * directory above it: kept, it would be bound back over that deny on Linux
 * (readable and writable again) and stay writable on macOS, so the explicit
 * denyRead wins over the implicit write allow. It is kept when an `allowRead`
 * entry beneath that deny re-opens it, because the caller has already made it
 * readable. A caller who wants it writable regardless lists it in
 * `allowWrite`. What the sandbox itself needs (stdio, /tmp/claude) is never
 * left out.
 *
 * Pass the entries as configured, not expanded. `dir/**` counts as `dir`,
 * and a glob covers a directory when it matches that directory or one above
 * it; nothing is listed from disk. On Linux, where the backend expands globs
 * against the disk, two things follow: a glob that matches nothing there
 * still counts (which only ever drops a convenience path), and a glob whose
 * match is a symlink to one of these directories is not seen. A glob
 * `allowRead` entry is not counted as re-opening anything.
 *
 * An entry marked `{ path, literal: true }` is a name whatever it holds. A
 * spelling is read by its characters alone: the name it also is when that
 * exists on disk is for the caller to add as a marked entry.
 */
function getDefaultWritePaths(readRules) {
    const home = (0,os__WEBPACK_IMPORTED_MODULE_0__.homedir)();
    const keptDirs = !readRules || readRules.denyRead.length === 0
        ? HOME_CONVENIENCE_WRITE_DIRS
        : homeDirsNotReadDenied(home, readRules.denyRead, readRules.allowRead);
    return [
        ...SANDBOX_OWN_WRITE_PATHS,
        ...keptDirs.map(rel => path__WEBPACK_IMPORTED_MODULE_1__.join(home, rel)),
    ];
}
/**
 * The {@link HOME_CONVENIENCE_WRITE_DIRS} no `denyRead` entry covers, or
 * that an `allowRead` entry beneath the covering deny re-opens.
 */
function homeDirsNotReadDenied(home, denyRead, allowRead = []) {
    // Rules are compared as normalizePathForSandbox spells them, and on macOS
    // that resolves /tmp and /var to /private/... for a path that exists. A
    // convenience directory may not exist yet, so its second spelling is built
    // from the home directory, which does.
    const homes = [
        ...new Set([home, normalizePathForSandbox(home, { literal: true })]),
    ];
    const denies = denyRead.map(entry => readRuleCovers(entry));
    const reopened = allowRead
        .flatMap(entry => {
        if (typeof entry !== 'string')
            return [markedLiteralPath(entry)];
        const stripped = removeTrailingGlobSuffix(entry);
        return containsGlobCharsForPlatform(stripped) ? [] : [stripped];
    })
        .map(entry => normalizePathForSandbox(entry, { literal: true }));
    return HOME_CONVENIENCE_WRITE_DIRS.filter(rel => {
        const spellings = homes.map(h => path__WEBPACK_IMPORTED_MODULE_1__.join(h, rel));
        return !denies.some(denyCovers => spellings.some(denyCovers) &&
            !reopened.some(allow => denyCovers(allow) && spellings.some(s => isAtOrUnder(s, allow))));
    });
}
/**
 * Whether a read rule covers a path: the path is the rule's own or lies
 * beneath it. `dir/**` is `dir`, and a glob covers whatever
 * {@link denyGlobRegex} matches.
 *
 * Pattern or name is decided on what the caller wrote, before the spelling
 * is resolved: `*`, `?` and `[…]` there are the syntax it asked for, while
 * resolving splices in a cwd or home directory that may carry those
 * characters in its own name. A spelling without them is normalized as the
 * name it is, and so is an entry marked literal, whatever it holds.
 */
function readRuleCovers(entry) {
    if (typeof entry !== 'string') {
        const rule = normalizePathForSandbox(markedLiteralPath(entry), {
            literal: true,
        });
        return p => isAtOrUnder(p, rule);
    }
    const stripped = removeTrailingGlobSuffix(entry);
    if (containsGlobCharsForPlatform(stripped)) {
        const regex = compiledDenyGlob(normalizePathForSandbox(stripped));
        // Too large to compile. What it covers cannot be told, so it covers.
        return regex === null ? () => true : p => regex.test(p);
    }
    const rule = normalizePathForSandbox(stripped, { literal: true });
    return p => isAtOrUnder(p, rule);
}
/**
 * {@link denyGlobRegex} compiled, or null for a pattern too large to compile.
 * Kept by the normalized pattern, which is all it depends on: these rules are
 * read for a getter that callers ask once a path. What is asked of the disk
 * on the way to the normalized pattern is asked every time.
 */
function compiledDenyGlob(normalizedGlob) {
    let regex = compiledDenyGlobs.get(normalizedGlob);
    if (regex === undefined) {
        try {
            regex = new RegExp((0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .denyGlobRegex */ .Ah)(normalizedGlob));
            // V8 finds a pattern too large only when it first runs it.
            regex.test('');
        }
        catch {
            regex = null;
        }
        compiledDenyGlobChars += normalizedGlob.length;
        if (compiledDenyGlobChars > MAX_COMPILED_DENY_GLOB_CHARS) {
            compiledDenyGlobs.clear();
            compiledDenyGlobChars = normalizedGlob.length;
        }
        compiledDenyGlobs.set(normalizedGlob, regex);
    }
    return regex;
}
const compiledDenyGlobs = new Map();
let compiledDenyGlobChars = 0;
/** Past this much pattern text all that is kept is let go, to begin again. */
const MAX_COMPILED_DENY_GLOB_CHARS = 1 << 20;
/**
 * Generate proxy environment variables for sandboxed processes
 */
/**
 * Per-tool trust-store env vars set to the TLS-termination CA cert path so
 * HTTPS clients in the sandboxed child accept proxy-minted certs.
 */
const CA_TRUST_VARS = [
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
    'CURL_CA_BUNDLE',
    'REQUESTS_CA_BUNDLE',
    'PIP_CERT',
    'GIT_SSL_CAINFO',
    'AWS_CA_BUNDLE',
    'CARGO_HTTP_CAINFO',
    'DENO_CERT',
    // gcloud ignores SSL_CERT_FILE/REQUESTS_CA_BUNDLE; this is its dedicated
    // override (maps to core/custom_ca_certs_file).
    'CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE',
    // Nix-built binaries are patched to read this instead of SSL_CERT_FILE, and
    // it's typically pre-set to the Nix system bundle in the parent env, so we
    // must override it explicitly.
    'NIX_SSL_CERT_FILE',
];
function generateProxyEnvVars(httpProxyPort, socksProxyPort, caCertPath, proxyAuthToken, skipTmpdir, encodedCommand) {
    // When the proxy requires auth, embed the credential in the URL so clients
    // send Proxy-Authorization automatically. Only the sandbox child sees this
    // env, so the token never reaches host processes.
    //
    // The username carries the per-command encodedCommand so the proxy can
    // attribute denials to a specific invocation (see
    // SandboxViolationStore). Standard base64 is percent-encoded in the URL so
    // `+/=` survive userinfo parsing; clients URL-decode before building the
    // Basic header / RFC 1929 frame, so the proxy receives the raw base64.
    const userRaw = proxyUsernameFor(encodedCommand);
    const userPct = userRaw === PROXY_AUTH_USER ? userRaw : encodeURIComponent(userRaw);
    const auth = proxyAuthToken ? `${userPct}:${proxyAuthToken}@` : '';
    const envVars = [`SANDBOX_RUNTIME=1`];
    // TMPDIR is overridden so temp-file writers land in a path the FS sandbox
    // allows (getDefaultWritePaths). When filesystem policy is disabled
    // (writeConfig === undefined → skipTmpdir), the host TMPDIR is already
    // writable and /tmp/claude may not exist, so leave it untouched.
    // CLAUDE_CODE_TMPDIR is the current name; CLAUDE_TMPDIR is kept for
    // backwards compatibility (#141).
    if (!skipTmpdir) {
        const tmpdir = process.env.CLAUDE_CODE_TMPDIR ||
            process.env.CLAUDE_TMPDIR ||
            '/tmp/claude';
        envVars.push(`TMPDIR=${tmpdir}`);
    }
    // When TLS termination is configured, the child only ever sees proxy-minted
    // certs signed by the configured CA. Point the common per-tool trust-store
    // env vars at it so HTTPS clients accept those certs.
    if (caCertPath) {
        for (const v of CA_TRUST_VARS) {
            envVars.push(`${v}=${caCertPath}`);
        }
    }
    // If no proxy ports provided, return minimal env vars
    if (!httpProxyPort && !socksProxyPort) {
        return envVars;
    }
    // Always set NO_PROXY to exclude localhost and private networks from
    // proxying. *.local is intentionally absent: under network restriction the
    // child has no usable resolver/routes (bwrap --unshare-net on Linux,
    // loopback-only under seatbelt), so a NO_PROXY match makes the client try
    // direct getaddrinfo() and fail. Routing .local hostnames through the proxy
    // lets the parent resolve them (e.g. Kubernetes *.svc.cluster.local).
    const noProxyAddresses = [
        'localhost',
        '127.0.0.1',
        '::1',
        '169.254.0.0/16', // Link-local
        '10.0.0.0/8', // Private network
        '172.16.0.0/12', // Private network
        '192.168.0.0/16', // Private network
    ].join(',');
    envVars.push(`NO_PROXY=${noProxyAddresses}`);
    envVars.push(`no_proxy=${noProxyAddresses}`);
    if (httpProxyPort) {
        envVars.push(`HTTP_PROXY=http://${auth}localhost:${httpProxyPort}`);
        envVars.push(`HTTPS_PROXY=http://${auth}localhost:${httpProxyPort}`);
        // Lowercase versions for compatibility with some tools
        envVars.push(`http_proxy=http://${auth}localhost:${httpProxyPort}`);
        envVars.push(`https_proxy=http://${auth}localhost:${httpProxyPort}`);
        if (proxyAuthToken) {
            // Pre-send Basic so git never gets a 407 and never invokes a
            // credential helper for the proxy URL (Windows GCM intercepts the
            // challenge and the URL-embedded password doesn't survive it).
            envVars.push(`GIT_CONFIG_PARAMETERS='http.proxyAuthMethod=basic'`);
        }
    }
    // The URL to advertise to clients that need a general-purpose,
    // CONNECT-capable proxy. The mux serves HTTP CONNECT and SOCKS on the same
    // advertised port, so http:// works for everyone: clients that only speak
    // CONNECT get a URL they understand, and anything that actually speaks
    // SOCKS to it still reaches the SOCKS handler. Falls back to socks5h://
    // only when no HTTP proxy port exists, which no current caller configures.
    const connectProxyUrl = httpProxyPort
        ? `http://${auth}localhost:${httpProxyPort}`
        : `socks5h://${auth}localhost:${socksProxyPort}`;
    // ALL_PROXY: prefer the HTTP proxy URL over SOCKS. httpx (and similar
    // Python clients) eagerly import `socksio` at client construction when
    // ALL_PROXY is a socks5h:// URL and crash with ImportError in envs that
    // lack the package — before any bytes hit the wire, so the mux's
    // protocol sniffing can't help.
    envVars.push(`ALL_PROXY=${connectProxyUrl}`);
    envVars.push(`all_proxy=${connectProxyUrl}`);
    // gRPC-based tools. gRPC C-core (every google-cloud-* Python client, and
    // grpc-js) only understands HTTP CONNECT proxies. Given a socks5h:// URL it
    // logs "'socks5h' scheme not supported in proxy URI", ignores the var, and
    // resolves the target directly via c-ares — which the sandbox blocks, so
    // the client dies with "address lookup failed / Could not contact DNS
    // servers" instead of falling back to https_proxy. Not gated on
    // socksProxyPort: the value no longer depends on it, and a gRPC client in
    // an HTTP-only sandbox needs this var just as much.
    envVars.push(`GRPC_PROXY=${connectProxyUrl}`);
    envVars.push(`grpc_proxy=${connectProxyUrl}`);
    if (socksProxyPort) {
        // Configure Git to use SSH through the proxy so DNS resolution happens outside the sandbox.
        // ControlMaster/ControlPath are disabled because SSH connection multiplexing breaks inside
        // the sandbox: the mux socket path from the user's ssh config (typically under ~/.ssh) is
        // not an allowed Unix socket path, and OpenSSH treats a mux listener bind failure as fatal
        // even with ControlMaster=auto — it exits right after authentication, before running the
        // git command. Command-line options take precedence over ssh_config, so this neutralizes
        // any user ControlMaster setup. ControlPath=none is needed in addition to ControlMaster=no:
        // with ControlMaster=no alone, ssh still tries to connect to an existing mux socket at the
        // configured ControlPath.
        const sshMuxOverride = '-o ControlMaster=no -o ControlPath=none';
        const platform = (0,_utils_platform_js__WEBPACK_IMPORTED_MODULE_3__/* .getPlatform */ .u)();
        if (platform === 'macos' &&
            proxyAuthToken &&
            httpProxyPort === socksProxyPort) {
            // macOS, and the SOCKS listener is the library's own, which serves both
            // protocols on one port and wants the token: BSD nc has no SOCKS
            // authentication to give it, and is refused. So an HTTP CONNECT with
            // the credential, as on Linux, from what macOS ships. The script
            // travels in a variable of its own: that keeps the token out of the
            // arguments of ssh and of what it starts, and the script out of git's
            // `sh -c`, ssh's % expansion and `$SHELL -c` (the user's shell, be it
            // fish or tcsh), which see plain and single-quoted words only.
            const basic = Buffer.from(`${userRaw}:${proxyAuthToken}`);
            envVars.push(`SRT_SSH_PROXY_COMMAND=${sshConnectScript(socksProxyPort, basic.toString('base64'))}`, `GIT_SSH_COMMAND=ssh ${sshMuxOverride} -o ProxyCommand="/bin/sh -c 'eval \\"\\\${SRT_SSH_PROXY_COMMAND:?unset, but GIT_SSH_COMMAND needs it}\\"' sh '%h' %p"`);
        }
        else if (platform === 'macos') {
            // A SOCKS listener that wants no token of ours, an external one
            // included: BSD nc's SOCKS5 support (-X 5 -x).
            envVars.push(`GIT_SSH_COMMAND=ssh ${sshMuxOverride} -o ProxyCommand='nc -X 5 -x localhost:${socksProxyPort} %h %p'`);
        }
        else if (platform === 'linux' && httpProxyPort) {
            // Linux: use socat HTTP CONNECT via the HTTP proxy bridge.
            // socat is already a required Linux sandbox dependency, and PROXY: is
            // portable across all socat versions (unlike SOCKS5-CONNECT which needs >= 1.8.0).
            const socatAuth = proxyAuthToken
                ? `,proxyauth=${userRaw}:${proxyAuthToken}`
                : '';
            envVars.push(`GIT_SSH_COMMAND=ssh ${sshMuxOverride} -o ProxyCommand='socat - PROXY:localhost:%h:%p,proxyport=${httpProxyPort}${socatAuth}'`);
        }
        // FTP proxy support (use socks5h for DNS resolution through proxy).
        // Deliberately not connectProxyUrl: given an http:// ftp_proxy, curl does
        // not CONNECT-tunnel by default, it gateways the transfer as
        // `GET ftp://host/path HTTP/1.1` to the proxy — which the mux does not
        // implement, and an env var can't ask curl for --proxytunnel. socks5h is
        // transparent at the TCP layer, so it is the value that works here.
        envVars.push(`FTP_PROXY=socks5h://${auth}localhost:${socksProxyPort}`);
        envVars.push(`ftp_proxy=socks5h://${auth}localhost:${socksProxyPort}`);
        // rsync proxy support — RSYNC_PROXY is host:port only, no userinfo. With
        // proxy auth on, rsync via this var fails at the CONNECT (407); use SSH
        // transport or wrap with proxychains instead.
        envVars.push(`RSYNC_PROXY=localhost:${socksProxyPort}`);
        // Database tools NOTE: Most database clients don't have built-in proxy support
        // You typically need to use SSH tunneling or a SOCKS wrapper like tsocks/proxychains
        // Docker CLI uses HTTP for the API
        // This makes Docker use the HTTP proxy for registry operations
        envVars.push(`DOCKER_HTTP_PROXY=http://${auth}localhost:${httpProxyPort || socksProxyPort}`);
        envVars.push(`DOCKER_HTTPS_PROXY=http://${auth}localhost:${httpProxyPort || socksProxyPort}`);
        // Google Cloud SDK - has specific proxy settings.
        // proxy/type names the protocol the *proxy* speaks, not the traffic it
        // tunnels. Our HTTP CONNECT proxy carries TLS to Google APIs, so the
        // correct value is "http" (gcloud only accepts http, http_no_tunnel,
        // socks4, socks5; "https" is rejected at startup).
        if (httpProxyPort) {
            envVars.push(`CLOUDSDK_PROXY_TYPE=http`);
            envVars.push(`CLOUDSDK_PROXY_ADDRESS=localhost`);
            envVars.push(`CLOUDSDK_PROXY_PORT=${httpProxyPort}`);
            if (proxyAuthToken) {
                envVars.push(`CLOUDSDK_PROXY_USERNAME=${userRaw}`);
                envVars.push(`CLOUDSDK_PROXY_PASSWORD=${proxyAuthToken}`);
            }
        }
        // kubectl, the AWS CLI, the Azure CLI, Terraform and gRPC read the
        // standard vars already emitted; nothing tool-specific is needed.
    }
    // Do not set HTTP_PROXY/HTTPS_PROXY to SOCKS URLs in the SOCKS-only path:
    // most HTTP clients reject socks*:// in those vars. ALL_PROXY (above)
    // already carries the route for clients that read it.
    return envVars;
}
/**
 * A POSIX sh script for an ssh ProxyCommand (`$1` host, `$2` port): an HTTP
 * CONNECT through the proxy on 127.0.0.1:`proxyPort` with the Basic
 * credential `basic`, then stdin and stdout relayed by `nc`.
 *
 * The host comes from a git URL, which a repository chooses. It is never
 * script text or printf's format, and one that could end the request line is
 * refused before anything is sent.
 *
 * The response head is read here, so a refusal is one line on stderr, with
 * the status line's own words. The pipeline runs in the background (hence
 * stdin as fd 3) so that this shell can close its own copy of stdout: held,
 * it would keep an end of file from ssh.
 *
 * `nc` is the one macOS ships, by path: it leaves when the network side
 * ends, which is how ssh learns of it. Current OpenBSD and Debian ones stay
 * until their stdin ends too, and ssh would wait.
 */
function sshConnectScript(proxyPort, basic, nc = '/usr/bin/nc') {
    return ('LC_ALL=C; no() { printf "sandbox proxy: %s\\n" "$*" >&2; exit 1; }; ' +
        'case $1 in ""|*[!A-Za-z0-9._:-]*) no bad host;; *:*) set -- "[$1]" "$2";; esac; ' +
        'case $2 in ""|*[!0-9]*) no bad port;; esac; ' +
        'exec 3<&0; ' +
        `{ printf "CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\nProxy-Authorization: Basic ${basic}\\r\\n\\r\\n" "$1:$2" "$1:$2"; exec /bin/cat <&3; } | ` +
        `${nc} 127.0.0.1 ${proxyPort} | ` +
        '{ read -r v why; while read -r v; do case $v in ""|?) break;; esac; done; ' +
        'case $why in "200 "*) exec /bin/cat;; esac; ' +
        'why=${why%?}; no "$1:$2: ${why:-no answer}"; } & ' +
        'exec >&-; wait $!');
}
/**
 * `safe.directory` entries above this count collapse to a single
 * `safe.directory=*`. Keeps `GIT_CONFIG_COUNT` (and the argv it rides
 * on) bounded when the safe-dir set is wide.
 */
const SAFE_DIRECTORY_WILDCARD_THRESHOLD = 8;
/**
 * Build the `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_<n>` /
 * `GIT_CONFIG_VALUE_<n>` env-var set for the sandboxed child.
 *
 * Emits:
 *   - `safe.directory=<dir>` for each entry in `safeDirs` (or one
 *     `safe.directory=*` when the list is long) — inside the sandbox
 *     the working tree is owned by a different user (Windows: the
 *     real user vs `srt-sandbox`; Linux: unmapped uid under
 *     `bwrap --unshare-user`), so git refuses with "detected dubious
 *     ownership" without it.
 *   - `http.schannelUseSSLCAInfo=true` and
 *     `http.schannelCheckRevoke=false` when `schannelCa` (Windows
 *     only) — makes git's schannel backend honor `GIT_SSL_CAINFO`
 *     without `-c http.sslBackend=openssl`. Revocation is disabled
 *     because CryptoAPI CRL/OCSP fetches ignore proxy env and would
 *     be WFP-fenced.
 *   - `http.sslBackend=openssl` when `opensslBackend` — for a child
 *     whose token Schannel refuses (the write-restricted token).
 *
 * Composes with an existing `GIT_CONFIG_COUNT` in `baseEnv` by
 * continuing its numbering; the returned `GIT_CONFIG_COUNT` is the
 * new total. `baseEnv` should reflect what the child will actually
 * see: on Windows the two-hop launch means the broker's own
 * `process.env` never reaches the child, so `baseEnv` is the caller
 * overlay (`WindowsSandboxParams.setEnvVars`); on Linux/macOS the
 * child inherits `process.env`, so callers use
 * {@link buildPosixGitSafeDirEnv} (which folds in `process.env`,
 * `unsetEnvVars`, and `setEnvVars`).
 *
 * Paths are emitted with forward slashes so the value survives
 * msys2's env conversion untouched and native git accepts it (a
 * no-op on POSIX paths).
 */
function buildGitConfigEnv(opts) {
    // An explicit `GIT_CONFIG_COUNT=0` in baseEnv is an opt-out ("no
    // env-level git config") — respect it rather than overwriting.
    if (opts.baseEnv?.GIT_CONFIG_COUNT === '0')
        return {};
    const parsed = Number.parseInt(opts.baseEnv?.GIT_CONFIG_COUNT ?? '', 10);
    const start = Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
    let n = start;
    const out = {};
    const emit = (key, value) => {
        out[`GIT_CONFIG_KEY_${n}`] = key;
        out[`GIT_CONFIG_VALUE_${n}`] = value;
        n++;
    };
    const dirs = [
        ...new Set(opts.safeDirs
            .filter((d) => !!d)
            .map(d => {
            const fwd = d.replace(/\\/g, '/');
            const stripped = fwd.replace(/\/+$/, '');
            // Don't strip the trailing slash off a bare root: `C:`
            // is drive-relative-cwd (git wants `C:/`), and `` is
            // git's list-reset sentinel for safe.directory (would
            // wipe preceding entries) — POSIX `/` must stay `/`.
            if (stripped === '' || /^[A-Za-z]:$/.test(stripped)) {
                return `${stripped}/`;
            }
            return stripped;
        })),
    ];
    if (dirs.length > SAFE_DIRECTORY_WILDCARD_THRESHOLD) {
        emit('safe.directory', '*');
    }
    else {
        // git matches safe.directory against the REPO TOP-LEVEL exactly,
        // so a workspace root doesn't cover a nested repo. Emit both the
        // exact path and the `<dir>/*` glob (git ≥2.46) so any repo
        // at-or-under a granted dir is trusted. Roots keep their trailing
        // `/`; don't double it in the glob (`//*` never wildmatches).
        for (const d of dirs) {
            emit('safe.directory', d);
            emit('safe.directory', d.endsWith('/') ? `${d}*` : `${d}/*`);
        }
    }
    if (opts.schannelCa) {
        emit('http.schannelUseSSLCAInfo', 'true');
        emit('http.schannelCheckRevoke', 'false');
    }
    if (opts.opensslBackend) {
        emit('http.sslBackend', 'openssl');
    }
    if (n === start)
        return {};
    out.GIT_CONFIG_COUNT = String(n);
    return out;
}
/**
 * POSIX-side wrapper over {@link buildGitConfigEnv} that constructs
 * the correct `baseEnv` for a Linux/macOS sandbox: the child inherits
 * `process.env` under bwrap/sandbox-exec, then `unsetEnvVars` are
 * dropped and `setEnvVars` overlaid — so numbering must continue from
 * whatever `GIT_CONFIG_COUNT` survives that. Shared by
 * `wrapCommandWithSandbox{Linux,MacOS}`.
 */
function buildPosixGitSafeDirEnv(opts) {
    const baseEnv = {
        GIT_CONFIG_COUNT: process.env.GIT_CONFIG_COUNT,
    };
    for (const k of opts.unsetEnvVars ?? [])
        delete baseEnv[k];
    Object.assign(baseEnv, opts.setEnvVars ?? {});
    return buildGitConfigEnv({ safeDirs: opts.safeDirs, baseEnv });
}
/**
 * How much of an attribution key rides the carriers. A key is cut to this
 * many characters before encoding, so two commands that share this much of
 * a prefix share a key.
 */
const SANDBOXED_COMMAND_KEY_LENGTH = 100;
/**
 * The attribution key for an invocation: the caller's `commandId`, or the
 * command itself when there is no usable id.
 */
function attributionKeyFor(command, commandId) {
    // Falsy, not `=== undefined`: every carrier drops an empty attribution, and
    // a JavaScript caller's `null` would throw in encodeSandboxedCommand.
    return !commandId ? command : commandId;
}
/**
 * Encode a command for sandbox monitoring
 * Truncates to SANDBOXED_COMMAND_KEY_LENGTH chars and base64 encodes to
 * avoid parsing issues
 */
function encodeSandboxedCommand(command) {
    const truncatedCommand = command.slice(0, SANDBOXED_COMMAND_KEY_LENGTH);
    return Buffer.from(truncatedCommand).toString('base64');
}
/**
 * Decode a base64-encoded command from sandbox monitoring
 */
function decodeSandboxedCommand(encodedCommand) {
    return Buffer.from(encodedCommand, 'base64').toString('utf8');
}
/** Base proxy username; the auth token is the credential, this is a label. */
const PROXY_AUTH_USER = 'srt';
/** RFC 1929 caps a SOCKS5 username at 255 bytes. */
const MAX_PROXY_USERNAME_BYTES = 255;
/**
 * The longest encodedCommand a carrier this process mints can hold: what is
 * left of the username budget after `srt.`. Every carrier is bounded far more
 * loosely than that (an HTTP proxy header budget is kilobytes), so a longer
 * attribution field was not minted here and is stored by nobody.
 */
const MAX_ENCODED_COMMAND_BYTES = MAX_PROXY_USERNAME_BYTES - Buffer.byteLength(`${PROXY_AUTH_USER}.`);
/**
 * Build the proxy username for a sandboxed command: `srt.<encodedCommand>`
 * so the proxy can attribute a denial to the invocation that triggered it,
 * or bare `srt` when there is nothing to attribute. A multibyte command whose
 * 100-code-unit truncation still base64s past the username budget would fail
 * the SOCKS handshake, so fall back to bare `srt` (attribution is lost,
 * connectivity is not).
 */
function proxyUsernameFor(encodedCommand) {
    if (!encodedCommand)
        return PROXY_AUTH_USER;
    const user = `${PROXY_AUTH_USER}.${encodedCommand}`;
    return Buffer.byteLength(user) <= MAX_PROXY_USERNAME_BYTES
        ? user
        : PROXY_AUTH_USER;
}
/**
 * Inverse of {@link proxyUsernameFor}: extract the encodedCommand suffix
 * from `srt.<encodedCommand>`, or undefined for bare `srt` / anything else.
 * The username is presented by the client inside the sandbox. A forged
 * suffix cannot authenticate (the token does that), but it decides which
 * invocation a denial is attributed to in the violation report and which
 * registered network allow list applies to the connection: see
 * `SandboxManager.registerCommandNetworkLists` for what that asks of an id. A
 * suffix past {@link MAX_ENCODED_COMMAND_BYTES} is longer than this process
 * can mint, so it is dropped rather than stored: the denial is still
 * recorded, unattributed, and no registered list applies.
 */
function encodedCommandFromProxyUser(username) {
    if (!username || !username.startsWith(`${PROXY_AUTH_USER}.`))
        return undefined;
    const suffix = username.slice(PROXY_AUTH_USER.length + 1);
    if (!suffix || Buffer.byteLength(suffix) > MAX_ENCODED_COMMAND_BYTES) {
        return undefined;
    }
    return suffix;
}
/** Runs `steps` to the end, on the spot. */
function finish(steps) {
    for (;;) {
        const step = steps.next();
        if (step.done)
            return step.value;
    }
}
/** How long {@link finishInTurns} works before it lets others have a turn. */
const TURN_MS = 10;
/**
 * Runs `steps` to the end, letting the event loop have a turn every
 * {@link TURN_MS}: a walk of a large tree takes seconds, and a caller whose
 * thread is held that long can neither draw nor hear that it should stop.
 * Rejects with `signal`'s reason once that is aborted, however far it got.
 */
async function finishInTurns(steps, signal) {
    signal?.throwIfAborted();
    let since = performance.now();
    for (;;) {
        const step = steps.next();
        if (!step.done && performance.now() - since < TURN_MS)
            continue;
        if (!step.done)
            await new Promise(resolve => setImmediate(resolve));
        signal?.throwIfAborted();
        if (step.done)
            return step.value;
        since = performance.now();
    }
}
/**
 * Expand a glob pattern into the concrete paths matching it.
 *
 * Used on Linux (where bubblewrap doesn't support glob patterns
 * natively) and Windows (point-in-time expansion before `srt-win
 * acl stamp`). A symlink is a match in its own right and is not
 * descended into; {@link walkGlobPattern} is the read-deny expansion's
 * richer view of the same walk.
 *
 * @param globPath - A path pattern containing glob characters (e.g., ~/test/*.env)
 * @returns Array of absolute paths matching the glob pattern
 */
function expandGlobPattern(globPath, opts = {}) {
    return walkGlobPattern(globPath, opts).matches;
}
function globPositions(normalizedPattern, flags) {
    const regex = new RegExp((0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .globToRegex */ .NM)(normalizedPattern), flags);
    const directoryForm = removeTrailingGlobSuffix(normalizedPattern);
    const directoryRegex = directoryForm !== normalizedPattern
        ? new RegExp((0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .globToRegex */ .NM)(directoryForm), flags)
        : undefined;
    const unsplit = {
        splits: false,
        start: [0],
        next: () => [0],
        matches: (_positions, _name, spelled) => regex.test(spelled),
        matchesDirectoryForm: (_positions, _name, spelled) => directoryRegex?.test(spelled) === true,
    };
    const states = [];
    const star = (0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .globTokenToRegex */ .ys)({ kind: _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.Star });
    /** The automaton of one pattern, as the position it starts at. */
    const build = (pieces) => {
        const sources = pieces.map(_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .globTokenToRegex */ .ys);
        const memo = new Map();
        const globstar = (then) => states.push({ then }) - 1;
        /** The position of a component that starts at `pieces[i]`, after a
         *  `[^/]*` when `lead`. */
        const componentAt = (i, lead) => {
            const key = `${i}${lead ? '*' : ''}`;
            const known = memo.get(key);
            if (known !== undefined)
                return known;
            if (!lead && pieces[i]?.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.GlobstarSlash) {
                const id = globstar(undefined);
                memo.set(key, id);
                states[id].then = componentAt(i + 1, false);
                return id;
            }
            if (!lead &&
                pieces[i]?.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.Globstar &&
                i === pieces.length - 1) {
                const id = globstar(undefined);
                memo.set(key, id);
                return id;
            }
            const component = { edges: [] };
            const id = states.push(component) - 1;
            memo.set(key, id);
            const endsWith = (source, to) => {
                component.edges.push({ regex: new RegExp(`^${source}$`, flags), to });
            };
            let source = lead ? star : '';
            for (let j = i;; j++) {
                const piece = pieces[j];
                if (piece === undefined) {
                    endsWith(source, undefined);
                    break;
                }
                if (piece.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.Separator) {
                    endsWith(source, componentAt(j + 1, false));
                    break;
                }
                if (piece.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.Globstar) {
                    // Spanning separators: `X*` / `**` / `*Y`. Or not: `X*Y`.
                    endsWith(source + star, globstar(componentAt(j + 1, true)));
                    source += star;
                }
                else if (piece.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.GlobstarSlash) {
                    // Spanning: `X*` / `**` / what follows. Or X run into it.
                    endsWith(source + star, globstar(componentAt(j + 1, false)));
                }
                else if (piece.kind === _glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .GlobTokenKind */ .Q6.Set && piece.matchesSeparator) {
                    endsWith(source, componentAt(j + 1, false));
                    source += `(?!/)${sources[j]}`;
                }
                else {
                    source += sources[j];
                }
            }
            return id;
        };
        return componentAt(0, false);
    };
    let starts;
    let firstOfDirectoryForm;
    try {
        starts = [build((0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .parseGlob */ .qF)(normalizedPattern))];
        firstOfDirectoryForm = states.length;
        if (directoryRegex)
            starts.push(build((0,_glob_pattern_js__WEBPACK_IMPORTED_MODULE_5__/* .parseGlob */ .qF)(directoryForm)));
    }
    catch {
        // More components than the build can nest.
        return unsplit;
    }
    const open = (into, position) => {
        for (let p = position; p !== undefined && !into.has(p);) {
            into.add(p);
            const state = states[p];
            p = 'then' in state ? state.then : undefined;
        }
    };
    const sorted = (positions) => [...positions].sort((x, y) => x - y);
    const endsAt = (positions, name, ofDirectoryForm) => positions.some(p => {
        if (p >= firstOfDirectoryForm !== ofDirectoryForm)
            return false;
        const state = states[p];
        return 'then' in state
            ? state.then === undefined
            : state.edges.some(e => e.to === undefined && e.regex.test(name));
    });
    const start = new Set();
    for (const p of starts)
        open(start, p);
    return {
        splits: true,
        start: sorted(start),
        next: (positions, name) => {
            const next = new Set();
            for (const p of positions) {
                const state = states[p];
                if ('then' in state)
                    open(next, p);
                else {
                    for (const edge of state.edges) {
                        if (edge.to !== undefined && edge.regex.test(name)) {
                            open(next, edge.to);
                        }
                    }
                }
            }
            return sorted(next);
        },
        matches: (positions, name) => endsAt(positions, name, false),
        matchesDirectoryForm: (positions, name) => endsAt(positions, name, true),
    };
}
/**
 * The literal directory a glob's walk starts from: the static prefix before
 * the pattern's first glob character, without its last path component when
 * that component is not a directory of its own. Split at its separators it
 * is the pattern's own leading components, the empty one of a doubled
 * separator ('C:/a//*.pem': 'C:/a/') included: the walk consumes them one by
 * one, and a base with one more or one fewer matches nothing. A drive root
 * comes back as 'C:', the root of a UNC share as '//server/share'. '/', and
 * '' for a pattern with a wildcard in its first path component, are what
 * {@link globBaseDirIsRoot} refuses.
 *
 * @param normalizedPattern - a pattern already through
 * {@link normalizePathForSandbox} (and, on Windows, {@link toForwardSlashes}),
 * or the tail of one that is walked beneath an anchor
 */
function globPatternBaseDir(normalizedPattern) {
    const staticPrefix = normalizedPattern.split(/[*?[\]]/)[0];
    if (!staticPrefix)
        return '';
    // The pattern is spelled with '/' on every host. Windows' own dirname keeps
    // the separator of a root it returns ('C:/'), which no component stands for.
    return staticPrefix.endsWith('/')
        ? staticPrefix.slice(0, -1)
        : path__WEBPACK_IMPORTED_MODULE_1__.posix.dirname(staticPrefix);
}
/**
 * Whether a base from {@link globPatternBaseDir} is one no walk starts from:
 * nothing at all, or the root, '/', from which a walk (`/**\/*.pem`) would
 * list every filesystem the machine has mounted. A drive root ('C:') and the
 * root of a UNC share ('//server/share') are bases like any other: each is
 * one volume, which the entry names itself. Refused, every such pattern
 * would go unenforced.
 */
function globBaseDirIsRoot(baseDir) {
    return baseDir === '' || baseDir === '/';
}
/**
 * Normalize to `/` separators so {@link globToRegex} (which treats `/` as the
 * segment boundary) and the static-prefix split work on Windows paths. Gated
 * to win32: `\` is a valid filename byte on POSIX, so rewriting it there
 * would change the path (e.g. a Linux directory literally named `app\creds`).
 */
function toForwardSlashes(s) {
    return process.platform === 'win32' ? s.replace(/\\/g, '/') : s;
}
/**
 * The walk behind {@link expandGlobPattern}: one listing of the pattern's
 * static prefix, filtered by `globPath` and, with `withDirectoryForm`, by
 * `globPath` without its trailing `/**`, with the symlinks seen recorded.
 * With `followSymlinkedDirectories` it also lists through a symlinked
 * directory and reports every match where it really lives.
 */
function walkGlobPattern(globPath, opts = {}) {
    return finish(walkGlobPatternSteps(globPath, opts));
}
/** {@link walkGlobPattern}, a step to a directory. */
function* walkGlobPatternSteps(globPath, opts = {}) {
    const walk = {
        baseLocation: '',
        matches: [],
        directoryMatches: [],
        symlinks: new Set(),
        uninspectableLinks: new Set(),
        unlisted: [],
        realOf: new Map(),
    };
    // Beneath an anchor the pattern is the tail alone, so no character of the
    // anchor is compiled; the walk starts at the anchor plus the tail's base.
    const anchor = opts.anchor === undefined ? undefined : toForwardSlashes(opts.anchor);
    const normalizedPattern = anchor === undefined
        ? toForwardSlashes(normalizePathForSandbox(globPath))
        : toForwardSlashes(globPath).slice(anchor.length);
    // The tail is cut by length, so a wrong anchor would walk another directory
    // and hand back its matches. Thrown, not skipped: a skipped deny is lost.
    if (anchor !== undefined &&
        (!/[^/]/.test(anchor) ||
            !toForwardSlashes(globPath).startsWith(anchor) ||
            !(anchor.endsWith('/') || /^(\/|$)/.test(normalizedPattern)))) {
        throw new TypeError(`Glob pattern ${globPath} does not lie beneath the anchor ${opts.anchor}`);
    }
    const patternBaseDir = globPatternBaseDir(normalizedPattern);
    const baseDirBelowAnchor = patternBaseDir === '/' ? '' : patternBaseDir;
    const baseDir = anchor === undefined ? patternBaseDir : anchor + baseDirBelowAnchor;
    if (globBaseDirIsRoot(baseDir)) {
        (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] Glob pattern has no literal directory below the root to start from, skipping: ${globPath}`, { level: 'warn' });
        return walk;
    }
    // `s`: a name may hold a line terminator, which `.` alone does not match.
    const flags = opts.caseInsensitive ? 'is' : 's';
    const positions = globPositions(normalizedPattern, flags);
    if (opts.followSymlinkedDirectories && !positions.splits) {
        (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] Glob pattern ${globPath} cannot be followed one path component at a time, so it is matched against real paths only and not through symlinked directories`, { level: 'warn' });
    }
    const records = new Map();
    const listings = opts.listings ?? new Map();
    const pending = [];
    const codeOf = (err) => err?.code;
    /**
     * A filesystem call on a real path and, when that fails, on a shorter name
     * for it. The real path crosses no link, so a long chain of them cannot fail
     * the call (ELOOP) and nothing can lead it elsewhere. It can still fail for
     * a reason that is not the object's: a path too long to name, a busy host,
     * a runtime whose call does not take the name. So the short name is asked
     * after every failure. But it crosses links a sandboxed command can repoint,
     * at an empty directory or at nothing, so what it says is only ever ADDED to
     * what the real path said:
     * - a real path that failed with anything but `absent` or ENAMETOOLONG says
     *   that something is there and was not read. `unread` is called, and the
     *   caller covers that whole whatever the short name answers;
     * - of two failures the one thrown is the one that is not `absent`, so
     *   "could not be read" never comes out as "is not there".
     */
    const onRealPath = (real, short, call, absent, unread) => {
        try {
            return call(real);
        }
        catch (first) {
            if (short === real)
                throw first;
            let answer;
            try {
                answer = call(short);
            }
            catch (second) {
                throw absent(first) && !absent(second) ? second : first;
            }
            if (!absent(first) && codeOf(first) !== 'ENAMETOOLONG') {
                (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] ${real} could not be read for glob pattern ${globPath}, so it is covered whole, whatever ${short} leads to: ${first}`, { level: 'warn' });
                unread();
            }
            return answer;
        }
    };
    const linkTargets = new Map();
    const linkTargetOf = (linkPath, realLinkPath) => {
        const cached = linkTargets.get(realLinkPath);
        if (cached !== undefined)
            return cached;
        let target;
        try {
            let unread = false;
            const found = onRealPath(realLinkPath, linkPath, p => ({
                isDirectory: fs__WEBPACK_IMPORTED_MODULE_2__.statSync(p).isDirectory(),
                real: (0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(p),
            }), isAbsenceErrno, () => (unread = true));
            target = { ...found, unread };
        }
        catch (err) {
            target = isAbsenceErrno(err) ? 'absent' : 'uninspectable';
        }
        linkTargets.set(realLinkPath, target);
        return target;
    };
    /** An entry of the directory `real`, listed under the name `listedAs`, with
     *  its type. Some file systems list names without one (some NFS and FUSE
     *  mounts, XFS with ftype=0). Every `is…()` of such an entry answers false,
     *  and taken at its word a directory would be passed over with all the
     *  pattern matches beneath it. So it is asked for, at the cost of one call;
     *  an entry that was listed with a type costs none. */
    const withType = (entry, listedAs, real) => {
        if (entry.isFile() ||
            entry.isDirectory() ||
            entry.isSymbolicLink() ||
            entry.isFIFO() ||
            entry.isSocket() ||
            entry.isCharacterDevice() ||
            entry.isBlockDevice()) {
            return entry;
        }
        const { name } = entry;
        const spelled = path__WEBPACK_IMPORTED_MODULE_1__.join(listedAs, name);
        let type = 'other';
        try {
            const stats = fs__WEBPACK_IMPORTED_MODULE_2__.lstatSync(spelled);
            if (stats.isDirectory())
                type = 'directory';
            else if (stats.isSymbolicLink())
                type = 'link';
        }
        catch {
            try {
                // Where it leads can still tell: only a link leads away from its place.
                const isDirectory = fs__WEBPACK_IMPORTED_MODULE_2__.statSync(spelled).isDirectory();
                if ((0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(spelled) !== path__WEBPACK_IMPORTED_MODULE_1__.join(real, name))
                    type = 'link';
                else if (isDirectory)
                    type = 'directory';
            }
            catch (err) {
                // Only links make a circle. One that is not there is gone since it was
                // listed, which leaves its name to be matched: kept, that denies no
                // less than a listing made a moment later. Any other may be a
                // directory, and is taken for one whose listing has failed: it is not
                // gone into, and is denied whole where the pattern reaches beneath it.
                const code = err?.code;
                if (code === 'ELOOP')
                    type = 'link';
                else if (code !== 'ENOENT') {
                    type = 'directory';
                    listings.set(path__WEBPACK_IMPORTED_MODULE_1__.join(real, name), err instanceof Error ? err : new Error(String(err)));
                }
            }
        }
        return {
            name,
            isDirectory: () => type === 'directory',
            isSymbolicLink: () => type === 'link',
        };
    };
    // The base as the filesystem is asked about it: a drive root gets back its
    // separator, since 'C:' on its own names the drive's current directory.
    // The positions are still reached from the base without one.
    const baseSpelling = /^[A-Za-z]:$/.test(baseDir) ? `${baseDir}/` : baseDir;
    let baseReal = baseSpelling;
    try {
        baseReal = (0,_utils_real_path_js__WEBPACK_IMPORTED_MODULE_4__/* .realPathOf */ .d)(baseSpelling);
    }
    catch {
        // Not there, or a component of it cannot be resolved: list the spelling.
    }
    walk.baseLocation = baseReal;
    pending.push({
        dir: baseSpelling,
        real: baseReal,
        short: baseSpelling.length < baseReal.length ? baseSpelling : baseReal,
        positions: (anchor === undefined ? baseDir : baseDirBelowAnchor)
            .split('/')
            .reduce(positions.next, positions.start),
    });
    for (let frame = pending.pop(); frame !== undefined; frame = pending.pop()) {
        const { dir, real } = frame;
        const record = records.get(real) ?? {
            listedFor: new Set(),
        };
        records.set(real, record);
        // What a position finds beneath a directory does not depend on the
        // others it came with, so only the ones new to this directory are taken.
        const fresh = frame.positions.filter(p => !record.listedFor.has(p));
        if (fresh.length === 0)
            continue;
        yield;
        // Once. What one pattern denies is denied for the whole configuration, so
        // what the short name listed is kept for the next pattern like any other.
        const denyWhole = () => {
            if (record.unlisted)
                return;
            record.unlisted = true;
            walk.unlisted.push(dir);
            if (real !== dir)
                walk.realOf.set(dir, real);
        };
        let entries;
        try {
            const known = listings.get(real);
            if (known instanceof Error)
                throw known;
            entries =
                known ??
                    onRealPath(real, frame.short, p => fs__WEBPACK_IMPORTED_MODULE_2__.readdirSync(p, { withFileTypes: true })
                        .map(entry => withType(entry, p, real)), err => codeOf(err) === 'ENOENT', denyWhole);
            listings.set(real, entries);
        }
        catch (err) {
            const errorCode = codeOf(err);
            (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] Error listing ${dir} for glob pattern ${globPath}: ${err}`, { level: errorCode === 'ENOENT' ? 'info' : 'warn' });
            if (errorCode !== 'ENOENT') {
                // Kept, or every pattern would try the directory again: one that
                // would have cleared meanwhile hides more. An absence is not kept. It
                // is the one answer that denies nothing, so each pattern asks, under
                // each name. Nor is anything kept in a walk's own map: there a second
                // name for the directory still gets its try (see `listedFor`).
                if (opts.listings !== undefined) {
                    listings.set(real, err instanceof Error ? err : new Error(String(err)));
                }
                denyWhole();
            }
            continue;
        }
        for (const p of fresh)
            record.listedFor.add(p);
        for (const entry of entries) {
            // Nearly every entry of a large tree: a plain file the pattern does not
            // match, which nothing below records. A pattern that splits is matched
            // by name, so no path need be spelled to find that out.
            if (positions.splits &&
                !entry.isDirectory() &&
                !entry.isSymbolicLink() &&
                !positions.matches(fresh, entry.name, '')) {
                continue;
            }
            const fullPath = path__WEBPACK_IMPORTED_MODULE_1__.join(dir, entry.name);
            const realPath = path__WEBPACK_IMPORTED_MODULE_1__.join(real, entry.name);
            // A pattern that does not split is matched by its whole spelling, and
            // beneath an anchor that is the spelling from the anchor on. It is never
            // listed through a link, so every path it sees starts with the anchor.
            const spelled = toForwardSlashes(fullPath);
            const candidate = anchor !== undefined && spelled.startsWith(anchor)
                ? spelled.slice(anchor.length)
                : spelled;
            const isMatch = positions.matches(fresh, entry.name, candidate);
            if (isMatch)
                walk.matches.push(fullPath);
            if (entry.isDirectory()) {
                const beneath = positions.next(fresh, entry.name);
                const isDirectoryMatch = opts.withDirectoryForm === true &&
                    positions.matchesDirectoryForm(fresh, entry.name, candidate);
                if (isDirectoryMatch)
                    walk.directoryMatches.push(fullPath);
                if ((isMatch || isDirectoryMatch) && realPath !== fullPath) {
                    walk.realOf.set(fullPath, realPath);
                }
                if (beneath.length > 0) {
                    pending.push({
                        dir: fullPath,
                        real: realPath,
                        short: path__WEBPACK_IMPORTED_MODULE_1__.join(frame.short, entry.name),
                        positions: beneath,
                    });
                }
                continue;
            }
            if (!entry.isSymbolicLink()) {
                if (isMatch && realPath !== fullPath) {
                    walk.realOf.set(fullPath, realPath);
                }
                continue;
            }
            walk.symlinks.add(fullPath);
            // Only the read-deny expansion lists through a symlinked directory: it
            // has to cover what the pattern reaches by every name. The allowRead
            // expansion and the Windows ACL stamp take the link itself and stop
            // there, as the allow bind and the ACL they feed do — Windows does not
            // follow reparse points at all.
            if (!opts.followSymlinkedDirectories)
                continue;
            const isDirectoryFormCandidate = opts.withDirectoryForm === true &&
                positions.matchesDirectoryForm(fresh, entry.name, candidate);
            // A pattern that does not split is not listed through a link: no two
            // names for a directory can be told apart, so none but its own is
            // listed. A link that is itself a match still denies what it leads to.
            const beneath = positions.splits ? positions.next(fresh, entry.name) : [];
            if (!isMatch && !isDirectoryFormCandidate && beneath.length === 0) {
                continue;
            }
            const shortPath = path__WEBPACK_IMPORTED_MODULE_1__.join(frame.short, entry.name);
            const target = linkTargetOf(shortPath, realPath);
            if (target === 'absent')
                continue;
            const unread = target === 'uninspectable' || target.unread;
            if (unread) {
                // Where it leads is unknown, or known from the short name alone, so it
                // gets no real location — but it is still a match, and a deny
                // expansion covers it under its own spelling.
                walk.uninspectableLinks.add(fullPath);
                if (isDirectoryFormCandidate)
                    walk.directoryMatches.push(fullPath);
            }
            // Nothing is listed through a link that leads nobody knows where.
            if (target === 'uninspectable')
                continue;
            // Where the short name alone says it leads is denied besides: for the
            // root, as for any link to it, the directory that holds the link.
            if (unread &&
                (isMatch || (isDirectoryFormCandidate && target.isDirectory))) {
                walk.matches.push(target.real === '/' ? real : target.real);
            }
            if (isMatch && !unread)
                walk.realOf.set(fullPath, target.real);
            if (!target.isDirectory)
                continue;
            if (isDirectoryFormCandidate && !unread) {
                walk.directoryMatches.push(fullPath);
                walk.realOf.set(fullPath, target.real);
            }
            if (beneath.length === 0)
                continue;
            // A link that leads up — to this directory or above it, or to the
            // walk's base or above it — is not listed through: beneath it is a tree
            // the pattern was never aimed at (`/`, a home directory).
            if (isAtOrUnder(real, target.real) ||
                isAtOrUnder(baseReal, target.real)) {
                (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] Not following symlink ${fullPath} -> ${target.real} for glob pattern ${globPath}: it leads back up the tree`);
                continue;
            }
            // The one line that names the link: matches are reported by real path.
            (0,_utils_debug_js__WEBPACK_IMPORTED_MODULE_6__/* .logForDebugging */ .o)(`[Sandbox] Following symlink ${fullPath} -> ${target.real} for glob pattern ${globPath}`);
            pending.push({
                dir: target.real,
                real: target.real,
                short: shortPath.length < target.real.length ? shortPath : target.real,
                positions: beneath,
            });
        }
    }
    return walk;
}
//# sourceMappingURL=sandbox-utils.js.map

/***/ }),

/***/ 7459:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   o: () => (/* binding */ logForDebugging)
/* harmony export */ });
/**
 * Simple debug logging for standalone sandbox
 */
function logForDebugging(message, options) {
    // Only log if SRT_DEBUG environment variable is set
    // Using SRT_DEBUG instead of DEBUG to avoid conflicts with other tools
    // (DEBUG is commonly used by Node.js debug libraries and VS Code)
    if (!process.env.SRT_DEBUG) {
        return;
    }
    const level = options?.level || 'info';
    const prefix = '[SandboxDebug]';
    // Always use stderr to avoid corrupting stdout JSON streams
    switch (level) {
        case 'error':
            console.error(`${prefix} ${message}`);
            break;
        case 'warn':
            console.warn(`${prefix} ${message}`);
            break;
        default:
            console.error(`${prefix} ${message}`);
    }
}
//# sourceMappingURL=debug.js.map

/***/ }),

/***/ 2353:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   p: () => (/* binding */ getWslVersion),
/* harmony export */   u: () => (/* binding */ getPlatform)
/* harmony export */ });
/* harmony import */ var fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(9896);
/**
 * Platform detection utilities
 */

/**
 * Get the WSL version (1 or 2+) if running in WSL.
 * Returns undefined if not running in WSL.
 */
function getWslVersion() {
    if (process.platform !== 'linux') {
        return undefined;
    }
    try {
        const procVersion = fs__WEBPACK_IMPORTED_MODULE_0__.readFileSync('/proc/version', { encoding: 'utf8' });
        // Check for explicit WSL version markers (e.g., "WSL2", "WSL3", etc.)
        const wslVersionMatch = procVersion.match(/WSL(\d+)/i);
        if (wslVersionMatch && wslVersionMatch[1]) {
            return wslVersionMatch[1];
        }
        // If no explicit WSL version but contains Microsoft, assume WSL1
        // This handles the original WSL1 format: "4.4.0-19041-Microsoft"
        if (procVersion.toLowerCase().includes('microsoft')) {
            return '1';
        }
        return undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Detect the current platform.
 * Note: All Linux including WSL returns 'linux'. Use getWslVersion() to detect WSL1 (unsupported).
 */
function getPlatform() {
    switch (process.platform) {
        case 'darwin':
            return 'macos';
        case 'linux':
            // WSL2+ is treated as Linux (same sandboxing)
            // WSL1 is also returned as 'linux' but will fail isSupportedPlatform check
            return 'linux';
        case 'win32':
            return 'windows';
        default:
            return 'unknown';
    }
}
//# sourceMappingURL=platform.js.map

/***/ }),

/***/ 2560:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   b: () => (/* binding */ wayTo),
/* harmony export */   d: () => (/* binding */ realPathOf)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6760);


/** As many links as the kernel follows on the way to one path. */
const MAX_LINKS = 40;
/**
 * What `ask` says of `at`. U+FFFD in it stands for itself, or for bytes that
 * are no text: the string made of those names another file or none, so it is
 * refused.
 */
function textOf(ask, at) {
    const text = ask(at);
    if (text.includes('\uFFFD') && !ask(at, 'buffer').equals(Buffer.from(text))) {
        throw Object.assign(new Error(`EILSEQ: illegal byte sequence, '${at}'`), {
            code: 'EILSEQ',
        });
    }
    return text;
}
/**
 * `p` with every symbolic link on the way to it resolved. The real path is
 * the kernel's on every runtime, whatever characters its names hold.
 *
 * Off Windows a backslash is a character of a name like any other, and
 * runtimes differ in what `realpathSync` does with one. So the real path of a
 * name is asked of the file system component by component, split at `/`
 * alone, where the name holds a backslash. Every other name is asked of
 * `realpathSync.native`, since runtimes differ in how they read a link's
 * target too. On Windows `realpathSync` is asked, of `p` as it is.
 *
 * A `.`, `..` or `//` in `p` itself, and a `/` at its end, is folded in text
 * before anything is looked at: `link/..` is the directory that holds the
 * link. In a link's target they are read as the kernel reads them, `..` being
 * the parent of the real directory reached.
 *
 * An error carries the `code` the kernel gave the call that failed, ELOOP
 * past the number of links the kernel follows, and EILSEQ where the way leads
 * through a name that is no text.
 */
function realPathOf(p) {
    if (process.platform === 'win32')
        return node_fs__WEBPACK_IMPORTED_MODULE_0__.realpathSync(p);
    // What a relative `p` is resolved against is part of the name.
    const from = node_path__WEBPACK_IMPORTED_MODULE_1__.isAbsolute(p) ? '' : process.cwd();
    const folded = node_path__WEBPACK_IMPORTED_MODULE_1__.resolve(from, p);
    if (!(from + p).includes('\\'))
        return textOf(node_fs__WEBPACK_IMPORTED_MODULE_0__.realpathSync.native, folded);
    const { real, notThere } = wayTo(folded);
    if (notThere !== undefined)
        throw notThere;
    return real || '/';
}
/**
 * The kernel's way to `folded`, an absolute path with no `.`, `..` or `//` of
 * its own: name by name, split at `/` alone, every link followed. `real` is
 * as far as it leads, '' being the root. `rest` is what it has not come to:
 * nothing, or first the name that is not there, or that `real` lets nobody
 * look for (EACCES), with what the kernel said of it. Whatever else stops the
 * way is thrown. POSIX only.
 */
function wayTo(folded) {
    let real = '';
    let links = 0;
    const rest = folded.split('/');
    for (let name = rest.shift(); name !== undefined; name = rest.shift()) {
        if (name === '' || name === '.' || name === '..') {
            // Only a directory that can be searched has them: ENOTDIR, EACCES.
            try {
                node_fs__WEBPACK_IMPORTED_MODULE_0__.lstatSync(`${real}/.`);
            }
            catch (notThere) {
                if (notThere.code !== 'EACCES') {
                    throw notThere;
                }
                return { real, rest: [name, ...rest], notThere };
            }
            if (name === '..')
                real = real.slice(0, real.lastIndexOf('/'));
            continue;
        }
        const next = `${real}/${name}`;
        let isLink;
        try {
            isLink = node_fs__WEBPACK_IMPORTED_MODULE_0__.lstatSync(next).isSymbolicLink();
        }
        catch (notThere) {
            const { code } = notThere;
            if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') {
                throw notThere;
            }
            return { real, rest: [name, ...rest], notThere };
        }
        if (!isLink) {
            real = next;
            continue;
        }
        if (++links > MAX_LINKS) {
            throw Object.assign(new Error(`ELOOP: too many symbolic links encountered, realpath '${folded}'`), { code: 'ELOOP', syscall: 'realpath', path: folded });
        }
        const target = textOf(node_fs__WEBPACK_IMPORTED_MODULE_0__.readlinkSync, next);
        if (target.startsWith('/'))
            real = '';
        rest.unshift(...target.split('/'));
    }
    return { real, rest };
}
//# sourceMappingURL=real-path.js.map

/***/ })

};
