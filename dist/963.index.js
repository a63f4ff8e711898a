export const id = 963;
export const ids = [963,923];
export const modules = {

/***/ 4732:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  findRescue: () => (/* binding */ findRescue),
  a: () => (/* binding */ lastWords),
  U: () => (/* binding */ lfsEntries)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./src/git/git-command-manager.ts + 1 modules
var git_command_manager = __webpack_require__(60696);
// EXTERNAL MODULE: ./src/record/names.ts
var names = __webpack_require__(11945);
// EXTERNAL MODULE: ./src/record/settings.ts
var settings = __webpack_require__(2172);
// EXTERNAL MODULE: ./src/rescue/names.ts
var rescue_names = __webpack_require__(81345);
// EXTERNAL MODULE: ./src/rescue/rescue.ts
var rescue = __webpack_require__(76288);
// EXTERNAL MODULE: ./src/git/sealed-git.ts
var sealed_git = __webpack_require__(8079);
// EXTERNAL MODULE: external "node:stream"
var external_node_stream_ = __webpack_require__(57075);
// EXTERNAL MODULE: external "node:stream/promises"
var promises_ = __webpack_require__(46466);
// EXTERNAL MODULE: external "node:zlib"
var external_node_zlib_ = __webpack_require__(38522);
// EXTERNAL MODULE: ./src/os/quote.ts
var quote = __webpack_require__(47722);
;// CONCATENATED MODULE: ./src/rescue/artifact-zip.ts
// A rescue artifact's zip, read by the restore itself and within bounds: the artifact client would unpack whatever
// a zip holds (a megabyte that inflates to a gigabyte) into the runner's temp folder before the restore could look.
// Only the central directory is believed for sizes, and no entry writes more than it says.





const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record and the longest comment a zip may have after it. */
const TAIL_BYTES = 22 + 0xffff;
/** The entries of the zip's central directory; undefined when the file is not a zip this reads (zip64, split, cut short). */
function zipEntries(file) {
    const fd = external_node_fs_.openSync(file, 'r');
    try {
        const { size } = external_node_fs_.fstatSync(fd);
        const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
        external_node_fs_.readSync(fd, tail, 0, tail.length, size - tail.length);
        let end = tail.length - 22;
        while (end >= 0 && tail.readUInt32LE(end) !== END_OF_DIRECTORY)
            end--;
        if (end < 0)
            return undefined;
        const [count, dirSize, dirOffset] = [tail.readUInt16LE(end + 10), tail.readUInt32LE(end + 12), tail.readUInt32LE(end + 16)];
        if (dirOffset + dirSize > size)
            return undefined;
        const dir = Buffer.alloc(dirSize);
        external_node_fs_.readSync(fd, dir, 0, dirSize, dirOffset);
        const entries = [];
        for (let at = 0, i = 0; i < count; i++) {
            if (at + 46 > dir.length || dir.readUInt32LE(at) !== DIRECTORY_ENTRY)
                return undefined;
            const [nameLength, extra, comment] = [dir.readUInt16LE(at + 28), dir.readUInt16LE(at + 30), dir.readUInt16LE(at + 32)];
            const entry = {
                name: dir.toString('utf8', at + 46, at + 46 + nameLength),
                method: dir.readUInt16LE(at + 10),
                compressed: dir.readUInt32LE(at + 20),
                size: dir.readUInt32LE(at + 24),
                offset: dir.readUInt32LE(at + 42)
            };
            // Zip64 keeps the real values elsewhere: a rescue of that size is past any rescue-max-size anyway.
            if ([entry.compressed, entry.size, entry.offset].includes(0xffffffff))
                return undefined;
            entries.push(entry);
            at += 46 + nameLength + extra + comment;
        }
        return entries;
    }
    finally {
        external_node_fs_.closeSync(fd);
    }
}
/** Writes one entry's bytes to a new file `to`, and never more than the central directory says it holds. */
async function extractEntry(file, entry, to) {
    const header = Buffer.alloc(30);
    const fd = external_node_fs_.openSync(file, 'r');
    try {
        external_node_fs_.readSync(fd, header, 0, 30, entry.offset);
    }
    finally {
        external_node_fs_.closeSync(fd);
    }
    if (header.readUInt32LE(0) !== LOCAL_HEADER)
        throw new Error(`${(0,quote/* quoted */.TL)(entry.name)} is not where its zip says`);
    if (entry.method !== 0 && entry.method !== 8)
        throw new Error(`${(0,quote/* quoted */.TL)(entry.name)} is compressed by method ${entry.method}, which no rescue uses`);
    // The local header's name and extra fields may differ in length from the central directory's.
    const start = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    let written = 0;
    const bounded = new external_node_stream_.Transform({
        transform(chunk, _encoding, done) {
            written += chunk.length;
            done(written > entry.size ? new Error(`${(0,quote/* quoted */.TL)(entry.name)} holds more than the ${entry.size} bytes its zip says`) : null, chunk);
        }
    });
    const out = external_node_fs_.createWriteStream(to, { flags: 'wx', mode: 0o600 });
    if (!entry.compressed)
        return void (await (0,promises_.pipeline)(bounded.end(), out));
    const source = external_node_fs_.createReadStream(file, { start, end: start + entry.compressed - 1 });
    await (entry.method === 8 ? (0,promises_.pipeline)(source, external_node_zlib_.createInflateRaw(), bounded, out) : (0,promises_.pipeline)(source, bounded, out));
}

// EXTERNAL MODULE: ./src/rescue/snapshot-message.ts
var snapshot_message = __webpack_require__(24667);
// EXTERNAL MODULE: ./src/rescue/snapshot.ts
var snapshot = __webpack_require__(46213);
// EXTERNAL MODULE: ./src/os/untrusted-files.ts
var untrusted_files = __webpack_require__(17238);
// EXTERNAL MODULE: ./src/git/worktree-refs.ts
var worktree_refs = __webpack_require__(17998);
// EXTERNAL MODULE: ./src/remote/lfs.ts
var lfs = __webpack_require__(4653);
;// CONCATENATED MODULE: ./src/rescue/find-rescue.ts
// Finding a rescue to restore: the one named, or the one the previous attempt of this step left, fetched into a
// ref of this step's own and checked to be a snapshot commit, before anything is created. A rescue is agent-made
// data: git fetches and checks it, and every refusal is an input error that names the fix.















/** How long the artifact service may take to list and hand over a rescue. */
const RESTORE_TIME_LIMIT_MS = 5 * 60_000;
const FIX = 'Restore a rescue that exists: the rescue-ref or rescue-artifact output of the exit that kept the work, as its message names it.';
/** Finds the rescue, fetches it into a ref of this step's own and checks it: every refusal is an input error. */
async function findRescue(repo, request, context) {
    const { ref } = context;
    const dispose = () => (0,snapshot/* dropKeptRef */.XJ)(repo.git, repo.commonDir, ref);
    try {
        const chosen = request === 'auto' ? await previousRescue(repo, context) : request;
        if ('attempt' in chosen)
            return { nothing: chosen, dispose };
        const input = request === 'auto' ? 'restore (auto)' : 'restore';
        if (chosen.kind === 'branch')
            await fetchBranch(repo, chosen.name, ref, context.push, input);
        else
            await fetchArtifact(repo, chosen.name, ref, context, input);
        const snapshot = await readSnapshot(repo.git, ref);
        if (!snapshot)
            throw new settings/* InputError */.d(input, chosen.name, `it is not a rescue: its commit is not a snapshot agent-worktree made (no ${snapshot_message/* TRAILERS */.jl.head} trailers)`, FIX);
        return { found: { ...chosen, snapshot }, dispose };
    }
    catch (error) {
        await dispose();
        throw error;
    }
}
function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
/**
 * The rescue the same step (its name, or a generated one of that attempt), leg and job left in the previous
 * attempt of this run, restored only where it is proven this step's. The proof is the artifact service: it holds
 * the artifacts of this run alone, and only a step holding the job's runtime token (never a `run:` step, never an
 * agent) uploads there. A branch anyone who may push could have made (a forged `-take9`), and two artifacts of one
 * name (a reusable workflow called twice in one job, a worktree entered again) cannot be told apart: they are named
 * and left, for a restore by name.
 */
async function previousRescue(repo, context) {
    const env = context.env ?? process.env;
    const attempt = Number(env.GITHUB_RUN_ATTEMPT) || 1;
    if (!env.GITHUB_RUN_ID || attempt < 2)
        return { attempt: 1, looked: [], left: [] };
    const previous = attempt - 1;
    const label = context.name === undefined ? (0,names/* generatedNames */.gU)(env, previous) : escapeRegExp((0,rescue_names/* rescueLabel */.Ct)({ name: context.name }));
    const tail = escapeRegExp((0,rescue_names/* rescueTail */.Cf)({ job: env.GITHUB_JOB ?? '', run: `${env.GITHUB_RUN_ID}-${previous}`, since: '' }, context.leg));
    const looked = ['branch', 'artifact'].filter(kind => context.rescue.includes(kind));
    const named = (kind, names) => {
        const separator = kind === 'branch' ? '/' : '-';
        const pattern = (0,rescue_names/* rescueNames */.UH)(separator, label, tail);
        return names.filter(name => pattern.test(name)).sort();
    };
    const artifacts = looked.includes('artifact') ? named('artifact', await artifactNames().catch(noService)) : [];
    if (artifacts.length === 1)
        return { kind: 'artifact', name: artifacts[0] };
    const branches = looked.includes('branch') ? named('branch', await rescueBranches(repo, context.push)) : [];
    const left = [...artifacts.map(name => ({ kind: 'artifact', name })), ...branches.map(name => ({ kind: 'branch', name }))];
    return { attempt, looked, left };
}
/** No artifact service here (act, GHES): no artifact of this run to find. Any other refusal fails the step, as it did. */
function noService(error) {
    if (/There is no artifact service here|has no artifact service/.test(error.message))
        return [];
    throw error;
}
/** The rescue branches on the remote of enter, listed from a view: no setting of the repository's takes part. */
async function rescueBranches(repo, push) {
    if (!push)
        return [];
    const view = (0,sealed_git/* openView */.e8)({ objects: external_node_path_.join(repo.commonDir, 'objects') });
    const listed = await view.git
        .run(['ls-remote', '--refs', '--end-of-options', push.url, `refs/heads/${rescue_names/* RESCUE_PREFIX */.jf}/*`], {
        stallMs: git_command_manager/* STALL_MS */.Gn,
        interruptible: true,
        remote: true,
        env: { GIT_ALLOW_PROTOCOL: sealed_git/* REMOTE_PROTOCOLS */.Rq }
    })
        .finally(() => view.dispose());
    if (listed.exitCode !== 0) {
        (0,git_command_manager/* throwIfCancelled */.dZ)();
        throw new Error(`git ls-remote ${(0,quote/* quoted */.TL)(push.remote)} failed: ${lastWords(listed.stderr)}. Check that the remote answers and that the job may read it.`);
    }
    return listed.stdout
        .split('\n')
        .map(line => line.slice(line.indexOf('\t') + 1))
        .filter(ref => ref.startsWith('refs/heads/'))
        .map(ref => ref.slice('refs/heads/'.length));
}
/** Git's last words, on one line. */
function lastWords(stderr) {
    return stderr.trim().split('\n').slice(-2).join(' ');
}
/** Fetches one branch of the remote of enter into `ref`: no tags, no submodules, watched for a stall. */
async function fetchBranch(repo, name, ref, push, input) {
    if (!push)
        throw new settings/* InputError */.d(input, name, 'the repository had no remote when the step entered, and a branch rescue is fetched from it', 'Check out the repository with its remote, or restore an artifact.');
    const valid = await repo.git.run(['check-ref-format', `refs/heads/${name}`]);
    if (valid.exitCode !== 0)
        throw new settings/* InputError */.d(input, name, 'git refuses it as the name of a branch', FIX);
    const fetched = await fetchFrom(repo, push, [`+refs/heads/${name}:${ref}`]);
    if (fetched.exitCode === 0)
        return;
    (0,git_command_manager/* throwIfCancelled */.dZ)();
    if (/couldn't find remote ref/i.test(fetched.stderr))
        throw new settings/* InputError */.d(input, name, `${(0,quote/* quoted */.TL)(push.remote)} has no such branch`, FIX);
    throw new Error(`git fetch ${(0,quote/* quoted */.TL)(push.remote)} ${(0,quote/* quoted */.TL)(name)} failed: ${lastWords(fetched.stderr)}. Check that the remote answers and that the job may read it.`);
}
/**
 * A fetch of `what` from the remote of enter, through a view (fetchThroughView), telling it the commits this clone
 * has: no tags, no submodules, no FETCH_HEAD, watched for a stall. The refs it fetched into are set here.
 */
async function fetchFrom(repo, push, what, options = []) {
    const haves = (await repo.git.exec(['for-each-ref', '--format=%(objectname)', 'refs/remotes/'])).split('\n').filter(Boolean);
    const head = await repo.git.resolveCommit('HEAD');
    const { result, refs } = await (0,sealed_git/* fetchThroughView */.z$)(repo.commonDir, { haves: head ? [head, ...haves] : haves }, [...options, '--end-of-options', push.url, ...what], {
        stallMs: git_command_manager/* STALL_MS */.Gn,
        env: { GIT_ALLOW_PROTOCOL: sealed_git/* REMOTE_PROTOCOLS */.Rq }
    });
    for (const [ref, id] of refs)
        await (0,worktree_refs/* writeRef */.Ln)(repo.git, ref, id, { log: repo.commonDir, required: true });
    return result;
}
// Loaded only when a restore reads artifacts: the client is most of a bundle's size.
async function artifactClient() {
    const { DefaultArtifactClient } = await Promise.all(/* import() */[__webpack_require__.e(351), __webpack_require__.e(15)]).then(__webpack_require__.bind(__webpack_require__, 13015));
    return new DefaultArtifactClient();
}
/** What the artifact service answers, within the time limit; its refusal as an error that says what to do. */
async function service(call, name, input) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`it did not answer within ${RESTORE_TIME_LIMIT_MS / 1000} s`)), RESTORE_TIME_LIMIT_MS);
    });
    try {
        return await Promise.race([artifactClient().then(call), timeout]);
    }
    catch (error) {
        const said = error.message;
        if (error.name === 'ArtifactNotFoundError')
            throw new settings/* InputError */.d(input, name, 'this run has no artifact of that name', FIX);
        const hint = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(said)
            ? ' There is no artifact service here (not on a GitHub runner): restore a branch.'
            : /GHES|not currently supported/.test(said)
                ? ' GitHub Enterprise Server has no artifact service for this client: restore a branch.'
                : ' An artifact of an earlier attempt may not be readable there: rescue to a branch too (rescue: artifact,branch).';
        throw new Error(`The artifact service could not hand over ${(0,quote/* quoted */.TL)(name)}: ${said.split('\n')[0]}.${hint}`, { cause: error });
    }
    finally {
        clearTimeout(timer);
    }
}
async function artifactNames() {
    const { artifacts } = await service(client => client.listArtifacts({ latest: true }), 'the list of artifacts', 'restore (auto)');
    return artifacts.map(artifact => artifact.name);
}
/**
 * Downloads the artifact into a folder of this step's own, checks that it holds a bundle of one ref, fetches
 * from the remote what that bundle builds on and this clone lacks (a depth-1 checkout, a pull request's merge
 * commit), then that one ref into `ref`.
 */
async function fetchArtifact(repo, name, ref, { push, maxBytes }, input) {
    const dir = (0,sealed_git/* privateTemp */.Ag)('agent-worktree-restore-');
    try {
        const { artifact } = await service(client => client.getArtifact(name), name, input);
        // Told before the download: a name that is not a rescue's may be a build's gigabytes. A megabyte for the README and the zip.
        if (artifact.size > maxBytes + 1024 * 1024)
            throw new settings/* InputError */.d(input, name, `its artifact is ${(artifact.size / 1024 / 1024).toFixed(1)} MB, more than a rescue within this step's rescue-max-size holds`, "Set rescue-max-size here as large as the rescuing step's, or restore its branch.");
        await unpack(await service(() => downloadZip(artifact.id, dir), name, input), dir, maxBytes, name, input);
        const bundle = external_node_path_.join(dir, 'rescue.bundle');
        const header = bundleHeader(bundle);
        if (!header)
            throw new settings/* InputError */.d(input, name, 'it is not a rescue: it holds no git bundle rescue.bundle', FIX);
        if (header.refs.length !== 1)
            throw new settings/* InputError */.d(input, name, `it is not a rescue: its bundle holds ${header.refs.length} refs, a rescue one`, FIX);
        await fetchMissing(repo, name, push, header.prerequisites, input);
        const verified = await repo.git.run(['bundle', 'verify', '--quiet', bundle]);
        if (verified.exitCode !== 0)
            throw new settings/* InputError */.d(input, name, `git cannot take its bundle: ${lastWords(verified.stderr)}`, FIX);
        (0,worktree_refs/* unlinkRefLinks */.k7)(repo.commonDir, ref);
        const fetch = () => repo.git.run(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--end-of-options', bundle, `+${header.refs[0]}:${ref}`], {
            env: { GIT_ALLOW_PROTOCOL: 'file' },
            interruptible: true
        });
        let fetched = await fetch();
        // A shallow commit in the bundle (a pull request's merge commit this clone lacks) needs the parents its README names.
        const needs = fetched.exitCode === 0 ? [] : (0,rescue/* neededCommits */.Ug)((0,untrusted_files/* readSmall */.o5)(external_node_path_.join(dir, 'README.txt')) ?? '');
        if (needs.length && (await fetchMissing(repo, name, push, needs, input)))
            fetched = await fetch();
        if (fetched.exitCode !== 0) {
            (0,git_command_manager/* throwIfCancelled */.dZ)();
            throw new settings/* InputError */.d(input, name, `git cannot take its bundle: ${lastWords(fetched.stderr)}`, FIX);
        }
        (0,lfs/* storeObjects */.KN)(external_node_path_.join(dir, 'lfs', 'objects'), repo.commonDir, lfsEntries(dir));
    }
    finally {
        external_node_fs_.rmSync(dir, { recursive: true, force: true });
    }
}
/** The artifact's zip as it is, in a folder of its own under `dir`: the client unpacks nothing. */
async function downloadZip(id, dir) {
    const folder = external_node_path_.join(dir, 'zip');
    external_node_fs_.mkdirSync(folder);
    await (await artifactClient()).downloadArtifact(id, { path: folder, skipDecompress: true });
    const [file] = external_node_fs_.readdirSync(folder);
    if (!file)
        throw new Error('the service handed over nothing');
    return external_node_path_.join(folder, file);
}
/**
 * Unpacks what a restore reads of a rescue's zip (its bundle and README) into `dir`, and only when what the zip
 * says it holds fits in what a rescue within this step's rescue-max-size holds (a megabyte more for the README).
 */
async function unpack(zip, dir, maxBytes, name, input) {
    const entries = zipEntries(zip);
    if (!entries)
        throw new settings/* InputError */.d(input, name, 'it is not a rescue: its artifact is not a zip a rescue makes', FIX);
    const held = entries.reduce((sum, entry) => sum + entry.size, 0);
    if (held > maxBytes + 1024 * 1024)
        throw new settings/* InputError */.d(input, name, `its artifact unpacks to ${(held / 1024 / 1024).toFixed(1)} MB, more than a rescue within this step's rescue-max-size holds`, "Set rescue-max-size here as large as the rescuing step's, or restore its branch.");
    for (const entry of entries.filter(e => e.name === 'rescue.bundle' || e.name === 'README.txt' || LFS_ENTRY.test(e.name))) {
        if (LFS_ENTRY.test(entry.name))
            external_node_fs_.mkdirSync(external_node_path_.join(dir, external_node_path_.dirname(entry.name)), { recursive: true });
        await extractEntry(zip, entry, external_node_path_.join(dir, entry.name));
    }
    external_node_fs_.rmSync(zip);
}
/** A Git LFS object in a rescue's zip: lfs/objects/xx/yy/<oid>, its folders the oid's first four digits. */
const LFS_ENTRY = /^lfs\/objects\/([0-9a-f]{2})\/([0-9a-f]{2})\/(\1\2[0-9a-f]{60})$/;
/** The oids of the LFS objects unpacked into `dir`. */
function lfsEntries(dir) {
    const store = external_node_path_.join(dir, 'lfs', 'objects');
    if ((0,untrusted_files/* kindOf */.I)(store) !== 'directory')
        return [];
    return external_node_fs_.readdirSync(store, { recursive: true, encoding: 'utf8' })
        .flatMap(file => LFS_ENTRY.exec(`lfs/objects/${file.split(external_node_path_.sep).join('/')}`)?.[3] ?? []);
}
/** The refs and prerequisites a git bundle names in its header; undefined when the file is not one. */
function bundleHeader(file) {
    const fd = (0,untrusted_files/* openRegular */.lf)(file);
    if (fd === undefined)
        return undefined;
    try {
        const buffer = Buffer.alloc(64 * 1024);
        const text = buffer.subarray(0, external_node_fs_.readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
        const lines = text.slice(0, Math.max(0, text.indexOf('\n\n'))).split('\n');
        if (!/^# v[23] git bundle$/.test(lines[0]))
            return undefined;
        const header = { refs: [], prerequisites: [] };
        for (const line of lines.slice(1).filter(l => !l.startsWith('@'))) {
            const match = /^(-?)([0-9a-f]{40}(?:[0-9a-f]{24})?)(?: (.*))?$/.exec(line);
            if (!match || (!match[1] && !/^refs\/[^\s:]+$/.test(match[3] ?? '')))
                return undefined;
            if (match[1])
                header.prerequisites.push(match[2]);
            else
                header.refs.push(match[3]);
        }
        return header;
    }
    finally {
        external_node_fs_.closeSync(fd);
    }
}
/** Fetches from the remote of enter the commits of `ids` this clone lacks (a shallow clone at depth 1); whether it fetched any. */
async function fetchMissing(repo, name, push, ids, input) {
    if (!ids.length)
        return false;
    const checked = (await repo.git.exec(['cat-file', '--batch-check'], { input: `${ids.join('\n')}\n` })).split('\n');
    const missing = ids.filter((_, i) => checked[i]?.endsWith(' missing'));
    if (!missing.length)
        return false;
    const shown = missing.map(id => id.slice(0, 12)).join(', ');
    if (!push)
        throw new settings/* InputError */.d(input, name, `it builds on commits this clone lacks (${shown}), and the repository has no remote to fetch them from`, FIX);
    const shallow = external_node_fs_.existsSync(external_node_path_.join(repo.commonDir, 'shallow'));
    const fetched = await fetchFrom(repo, push, missing, shallow ? ['--depth=1'] : []);
    if (fetched.exitCode === 0)
        return true;
    (0,git_command_manager/* throwIfCancelled */.dZ)();
    throw new settings/* InputError */.d(input, name, `it builds on commits ${(0,quote/* quoted */.TL)(push.remote)} does not have (${shown}: ${lastWords(fetched.stderr)}), so it is not a rescue of this repository`, FIX);
}
/** Every path of an index tree is one git would check out: no "..", "." or empty segment, and no .git one. */
async function plainPaths(git, tree) {
    const listed = await git.run(['ls-tree', '-r', '-z', '--name-only', '--full-tree', tree], { encoding: 'latin1' });
    return listed.exitCode === 0 && listed.stdout.split('\0').filter(Boolean).every(untrusted_files/* plainPath */.s1);
}
/** The snapshot commit at `ref`, when it is one: a rescue's subject, its trailers, HEAD its first parent, an index tree. */
async function readSnapshot(git, ref) {
    const read = await git.run(['cat-file', 'commit', ref]);
    const split = read.stdout.indexOf('\n\n');
    if (read.exitCode !== 0 || split < 0)
        return undefined;
    const headers = read.stdout.slice(0, split).split('\n');
    const tree = headers.find(h => h.startsWith('tree '))?.slice(5) ?? '';
    const parents = headers.filter(h => h.startsWith('parent ')).map(h => h.slice(7));
    const trailers = (0,snapshot_message/* parseSnapshotMessage */.tp)(read.stdout.slice(split + 2));
    if (!trailers || (trailers.head !== undefined && trailers.head !== parents[0]))
        return undefined;
    const { head, branch, index, base } = trailers;
    if ((await git.run(['cat-file', '-t', index])).stdout.trim() !== 'tree' || !(await plainPaths(git, index)))
        return undefined;
    const rest = head === undefined ? parents : parents.slice(1);
    // The index parent is made for the rescue: the index itself holds what it holds.
    const described = rest.length ? (await git.exec(['log', '--no-walk=unsorted', '--format=%H %T %s', ...rest, '--'])).split('\n') : [];
    const others = rest.filter((_, i) => described[i] !== `${rest[i]} ${index} ${snapshot_message/* INDEX_SUBJECT */.GA}`);
    return {
        commit: (await git.exec(['rev-parse', '--verify', `${ref}^{commit}`])).trim(),
        tree,
        head,
        branch,
        index,
        base,
        others
    };
}


/***/ }),

/***/ 7963:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   restoreInto: () => (/* binding */ restoreInto)
/* harmony export */ });
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(73024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(76760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(60696);
/* harmony import */ var _git_repository_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(35986);
/* harmony import */ var _git_sealed_git_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8079);
/* harmony import */ var _record_refs_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(22763);
/* harmony import */ var _os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(17238);
/* harmony import */ var _git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_7__ = __webpack_require__(17998);
/* harmony import */ var _os_quote_js__WEBPACK_IMPORTED_MODULE_8__ = __webpack_require__(47722);
/* harmony import */ var _remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__ = __webpack_require__(4653);
/* harmony import */ var _find_rescue_js__WEBPACK_IMPORTED_MODULE_10__ = __webpack_require__(4732);
// Restore: a new worktree picks up where a rescue left off. Once the worktree is checked out at its base, the
// rescue findRescue found is put back as the snapshot records it: HEAD where the agent had it, the index as it was
// staged, the files as they were left, and every other unsaved commit kept by a ref of the worktree. The files it
// holds are written as bytes, and no program sees them but the filters the repository had at enter.











/**
 * Puts the new worktree, checked out at its base, back as the snapshot records it. Each step leaves what a
 * post can judge: restored files and commits are unsaved work until the agent saves them.
 */
async function restoreInto(found, record, gitDir, commonDir, env) {
    const { snapshot } = found;
    const git = (0,_git_repository_js__WEBPACK_IMPORTED_MODULE_3__/* .worktreeGit */ .Oi)(gitDir, record.path);
    // The index as staged, checked out with no filter program at all: the rescued .gitattributes are anyone's, and
    // would pick any driver of the configuration (one an earlier agent planted; git-lfs told by a rescued
    // .lfsconfig where to send the repository's credentials)...
    const quiet = (await filterDrivers(git)).flatMap((name) => [
        [`filter.${name}.smudge`, ''],
        [`filter.${name}.process`, ''],
        [`filter.${name}.required`, 'false']
    ]);
    await git.exec(['read-tree', '-m', '-u', record.baseSha, snapshot.index], {
        env: { ...env, GIT_LFS_SKIP_SMUDGE: '1' },
        config: quiet,
        interruptible: true,
        remote: true
    });
    // ...LFS files as their objects' bytes, where the store has them (a checkout of the workflow's would smudge them)...
    const pointers = await smudgeLfs(git, record, commonDir, snapshot.index);
    // ...then every file that differs from it, as the bytes the agent left.
    const { notRestored, untracked } = await writeAsLeft(git, record.path, snapshot);
    notRestored.push(...pointers);
    const message = `agent-worktree: restored ${found.name}`;
    const branch = `refs/heads/${record.branch}`;
    const change = { log: commonDir, head: gitDir, message, required: true };
    if (!snapshot.head)
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_7__/* .deleteRef */ .jq)(git, branch, { ...change, from: record.baseSha });
    else if (!snapshot.branch)
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_7__/* .writeRef */ .Ln)(git, 'HEAD', snapshot.head, { log: gitDir, message, noDeref: true, required: true });
    else
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_7__/* .writeRef */ .Ln)(git, branch, snapshot.head, { ...change, from: record.baseSha });
    const kept = [];
    for (const tip of snapshot.others) {
        kept.push((0,_record_refs_js__WEBPACK_IMPORTED_MODULE_5__/* .restoredRef */ .WG)(kept.length + 1));
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_7__/* .writeRef */ .Ln)(git, kept.at(-1), tip, { log: commonDir, message, required: true });
    }
    return {
        kind: found.kind,
        name: found.name,
        head: snapshot.head,
        onBranch: !snapshot.head || !!snapshot.branch,
        wasOn: snapshot.branch?.slice('refs/heads/'.length),
        kept,
        otherBase: snapshot.base && snapshot.base !== record.baseSha ? snapshot.base : undefined,
        notRestored,
        untracked
    };
}
/**
 * The files of the index that differ from the base and hold an LFS pointer, in a repository whose filters of enter
 * include git-lfs, where the attributes name git-lfs's driver for them: written as the object's bytes, as the
 * workflow's checkout writes them. The objects come from the repository's LFS store (an artifact's were put there,
 * checked by their names), else from the LFS server of enter (a branch's went there). No program of the rescue's
 * runs: its attributes only say which pointers a checkout would smudge. Returns the files left as pointers, and why.
 */
async function smudgeLfs(git, record, commonDir, index) {
    const driver = Object.entries(record.filters ?? {}).find(([, d]) => /\bgit[- ]lfs\b/.test(`${d.process ?? ''} ${d.smudge ?? ''}`))?.[0];
    if (!driver)
        return [];
    const fields = (await git.exec(['diff-tree', '-r', '-z', '--no-renames', '--diff-filter=AM', record.baseSha, index], { encoding: 'latin1' })).split('\0');
    const entries = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
        const [, mode, , blob] = fields[i].split(' ');
        if (/^(100644|100755)$/.test(mode))
            entries.push({ mode, blob, file: fields[i + 1] });
    }
    if (!entries.length)
        return [];
    const sizes = (await git.exec(['cat-file', '--batch-check=%(objectsize)'], { input: `${entries.map(e => e.blob).join('\n')}\n` })).split('\n').map(Number);
    const found = await (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .pointersAmong */ .V6)(git, entries.map((e, i) => ({ blob: e.blob, size: sizes[i] })));
    const pointers = entries.flatMap(e => (found.has(e.blob) ? [{ ...e, object: found.get(e.blob) }] : []));
    if (!pointers.length)
        return [];
    const input = Buffer.from(pointers.map(p => `${p.file}\0`).join(''), 'latin1');
    const attrs = (await git.exec(['check-attr', '-z', '--cached', '--stdin', 'filter'], { input, encoding: 'latin1' })).split('\0');
    const smudged = new Set();
    for (let i = 0; i + 2 < attrs.length; i += 3)
        if (attrs[i + 2] === driver)
            smudged.add(attrs[i]);
    const store = (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .lfsStore */ .Xj)(commonDir);
    const lfsFiles = pointers.filter(p => smudged.has(p.file));
    // A clone's store: an artifact's objects went into the original's.
    if (commonDir !== record.commonDir)
        (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .storeObjects */ .KN)((0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .lfsStore */ .Xj)(record.commonDir), commonDir, lfsFiles.filter(p => !(0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .inStore */ .jw)(store, p.object)).map(p => p.object.oid));
    const missing = lfsFiles.filter(p => !(0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .inStore */ .jw)(store, p.object));
    const unfetched = missing.length ? await fetchObjects(commonDir, record, missing) : undefined;
    const written = lfsFiles.filter(p => (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .inStore */ .jw)(store, p.object) && writeObject(record.path, p, store));
    // The index's entries again, without the sizes of the pointers the checkout wrote: git compares the files through
    // the filter then, instead of calling a file of another size changed.
    if (written.length)
        await git.exec(['update-index', '-z', '--index-info'], {
            input: Buffer.concat(written.map(e => Buffer.concat([Buffer.from(`${e.mode} ${e.blob}\t`), Buffer.from(e.file, 'latin1'), Buffer.from('\0')])))
        });
    return lfsFiles
        .filter(p => !written.includes(p))
        .map(p => ({
        file: Buffer.from(p.file, 'latin1').toString('utf8'),
        why: `its Git LFS object ${p.object.oid.slice(0, 12)} is not here${unfetched ? ` (${unfetched})` : ''}: the file holds its pointer`
    }));
}
/**
 * Fetches the objects of `pointers` from the LFS server of enter into a view's own store, then those that hash to
 * their names into the repository's. Why it could not, when it could not.
 */
async function fetchObjects(commonDir, record, pointers) {
    if (!record.push)
        return 'the repository had no remote when the step entered';
    const view = (0,_git_sealed_git_js__WEBPACK_IMPORTED_MODULE_4__/* .openView */ .e8)({ objects: node_path__WEBPACK_IMPORTED_MODULE_1__.join(commonDir, 'objects') });
    try {
        const endpoint = await (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .lfsEndpoint */ .dU)(view.git, record.push, record.baseSha, 'download');
        if (typeof endpoint === 'object')
            return endpoint.unpinned;
        const fetched = await (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .downloadObjects */ .Xs)(view, { url: record.push.url, endpoint }, pointers.map(p => p.blob), { env: { GIT_ALLOW_PROTOCOL: _git_sealed_git_js__WEBPACK_IMPORTED_MODULE_4__/* .REMOTE_PROTOCOLS */ .Rq }, stallMs: _git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_2__/* .STALL_MS */ .Gn });
        (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .storeObjects */ .KN)((0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .lfsStore */ .Xj)(view.dir), commonDir, (0,_find_rescue_js__WEBPACK_IMPORTED_MODULE_10__/* .lfsEntries */ .U)(view.dir));
        return fetched.exitCode === 0 ? undefined : `git lfs fetch ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_8__/* .quoted */ .TL)(record.push.remote)} failed: ${(0,_find_rescue_js__WEBPACK_IMPORTED_MODULE_10__/* .lastWords */ .a)(fetched.stderr)}`;
    }
    finally {
        view.dispose();
    }
}
/**
 * Replaces the pointer a checkout wrote with the object's bytes, copied from the store (without following a link)
 * and checked against its name on the way; whether it did.
 */
function writeObject(folder, entry, store) {
    const full = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, entry.file, 'latin1');
    if (!(0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .reachedWithoutLinks */ .An)(folder, entry.file, 'latin1') || (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .kindOf */ .I)(full) !== 'file')
        return false;
    const copy = Buffer.concat([full, Buffer.from('.agent-worktree-lfs')]);
    try {
        if (!(0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .copyObject */ .JH)(store, entry.object, copy))
            return false;
        node_fs__WEBPACK_IMPORTED_MODULE_0__.chmodSync(copy, (entry.mode === '100755' ? 0o777 : 0o666) & ~process.umask());
        node_fs__WEBPACK_IMPORTED_MODULE_0__.renameSync(copy, full);
        return true;
    }
    catch {
        node_fs__WEBPACK_IMPORTED_MODULE_0__.rmSync(copy, { force: true });
        return false;
    }
}
/** The filter drivers any configuration git reads names. */
async function filterDrivers(git) {
    const listed = await git.run(['config', '-z', '--name-only', '--get-regexp', '^filter\\..*\\.(clean|smudge|process|required)$']);
    const names = listed.stdout.split('\0').map(key => /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1]);
    return [...new Set(names.filter((name) => !!name))];
}
/**
 * Writes each file of the snapshot's tree that differs from its index tree as its blob's bytes: no filter,
 * attribute or line-ending rule changes one (the rescue took them from disk as they were). Deletions go first,
 * so that no folder on the way is a link; a file whose path leads through a link or a file is not written.
 */
async function writeAsLeft(git, folder, snapshot) {
    const fields = (await git.exec(['diff-tree', '-r', '-z', '--no-renames', snapshot.index, snapshot.tree], { encoding: 'latin1' })).split('\0');
    const gone = [];
    const written = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
        // ":<old mode> <new mode> <old id> <new id> <status>", then the path
        const [, mode, , blob, status] = fields[i].split(' ');
        if (status === 'D')
            gone.push(fields[i + 1]);
        else if (/^(100644|100755|120000)$/.test(mode))
            written.push({ mode, blob, file: fields[i + 1], added: status === 'A' });
    }
    const notRestored = [];
    for (const file of gone) {
        try {
            if ((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .reachedWithoutLinks */ .An)(folder, file, 'latin1') && (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .kindOf */ .I)((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, file, 'latin1')) !== 'directory')
                node_fs__WEBPACK_IMPORTED_MODULE_0__.rmSync((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, file, 'latin1'), { force: true });
        }
        catch (error) {
            notRestored.push({ file: Buffer.from(file, 'latin1').toString('utf8'), why: error.code ?? 'it could not be deleted' });
        }
    }
    for (const batch of await batches(git, written)) {
        // A blob larger than a batch is more than one string can hold: git writes it into its file itself.
        const contents = batch.length === 1 && batch[0].size > BATCH_BYTES
            ? undefined
            : await (0,_remote_lfs_js__WEBPACK_IMPORTED_MODULE_9__/* .blobContents */ .sL)(git, batch.map(entry => entry.blob));
        for (const [i, entry] of batch.entries()) {
            const why = contents ? writeEntry(folder, entry, contents[i]) : await writeLarge(git, folder, entry);
            if (why)
                notRestored.push({ file: Buffer.from(entry.file, 'latin1').toString('utf8'), why });
        }
    }
    const untracked = written
        .filter(entry => entry.added && !notRestored.some(n => n.file === Buffer.from(entry.file, 'latin1').toString('utf8')))
        .map(e => e.file);
    return { notRestored, untracked };
}
/** What one git call reads at most: a string of git's output cannot be larger than some 512 MB. */
const BATCH_BYTES = 64 * 1024 * 1024;
/** The entries in groups whose blobs together are at most BATCH_BYTES (or one larger blob alone). */
async function batches(git, entries) {
    if (!entries.length)
        return [];
    const sizes = (await git.exec(['cat-file', '--batch-check=%(objectsize)'], { input: `${entries.map(e => e.blob).join('\n')}\n` })).split('\n').map(Number);
    const groups = [[]];
    let bytes = 0;
    entries.forEach((entry, i) => {
        const size = sizes[i] || 0;
        if (bytes + size > BATCH_BYTES && groups[groups.length - 1].length) {
            groups.push([]);
            bytes = 0;
        }
        groups[groups.length - 1].push({ ...entry, size });
        bytes += size;
    });
    return groups;
}
/** Writes one file of the snapshot where it was, replacing what the checkout put there; why not, when it cannot. */
function writeEntry(folder, entry, content) {
    try {
        const blocked = makeParents(folder, entry.file);
        if (blocked)
            return blocked;
        const full = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, entry.file, 'latin1');
        const kind = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .kindOf */ .I)(full);
        // A folder the checkout left where a file goes is empty, or the file is not written.
        if (kind === 'directory')
            node_fs__WEBPACK_IMPORTED_MODULE_0__.rmdirSync(full);
        else if (kind !== 'missing')
            node_fs__WEBPACK_IMPORTED_MODULE_0__.rmSync(full);
        if (entry.mode === '120000')
            node_fs__WEBPACK_IMPORTED_MODULE_0__.symlinkSync(content, full);
        else
            node_fs__WEBPACK_IMPORTED_MODULE_0__.writeFileSync(full, content, { mode: entry.mode === '100755' ? 0o777 : 0o666, flag: 'wx' });
        return undefined;
    }
    catch (error) {
        return error.code ?? 'it could not be written';
    }
}
/** Writes one file larger than a batch, as writeEntry does, with git writing the blob's bytes into it. */
async function writeLarge(git, folder, entry) {
    let fd;
    try {
        const written = writeEntry(folder, entry, Buffer.alloc(0));
        if (written)
            return written;
        fd = node_fs__WEBPACK_IMPORTED_MODULE_0__.openSync((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, entry.file, 'latin1'), node_fs__WEBPACK_IMPORTED_MODULE_0__.constants.O_WRONLY | node_fs__WEBPACK_IMPORTED_MODULE_0__.constants.O_TRUNC | node_fs__WEBPACK_IMPORTED_MODULE_0__.constants.O_NOFOLLOW);
        await git.exec(['cat-file', 'blob', entry.blob], { stdout: fd, interruptible: true });
        return undefined;
    }
    catch (error) {
        return error.code ?? 'it could not be written';
    }
    finally {
        if (fd !== undefined)
            node_fs__WEBPACK_IMPORTED_MODULE_0__.closeSync(fd);
    }
}
/** Makes the folders above `file`, refusing one on the way that is not a plain folder (a link, a file). */
function makeParents(folder, file) {
    if (!(0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .plainPath */ .s1)(file))
        return 'it is not a plain path';
    const segments = file.split('/');
    for (let i = 1; i < segments.length; i++) {
        const dir = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .inside */ .nx)(folder, segments.slice(0, i).join('/'), 'latin1');
        const kind = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_6__/* .kindOf */ .I)(dir);
        if (kind === 'missing')
            node_fs__WEBPACK_IMPORTED_MODULE_0__.mkdirSync(dir);
        else if (kind !== 'directory')
            return 'a folder on its way is a link or a file';
    }
    return undefined;
}


/***/ })

};
