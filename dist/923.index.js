export const id = 923;
export const ids = [923];
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


/***/ })

};
