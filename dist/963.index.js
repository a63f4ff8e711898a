export const id = 963;
export const ids = [963];
export const modules = {

/***/ 7963:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   findRescue: () => (/* binding */ findRescue),
/* harmony export */   restoreInto: () => (/* binding */ restoreInto)
/* harmony export */ });
/* harmony import */ var _actions_core__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(77094);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(77598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(73024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(76760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_3___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_3__);
/* harmony import */ var _git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(1386);
/* harmony import */ var _record_names_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(11945);
/* harmony import */ var _record_settings_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(2172);
/* harmony import */ var _git_repository_js__WEBPACK_IMPORTED_MODULE_7__ = __webpack_require__(35986);
/* harmony import */ var _names_js__WEBPACK_IMPORTED_MODULE_16__ = __webpack_require__(81345);
/* harmony import */ var _rescue_js__WEBPACK_IMPORTED_MODULE_8__ = __webpack_require__(76288);
/* harmony import */ var _git_sealed_git_js__WEBPACK_IMPORTED_MODULE_9__ = __webpack_require__(8079);
/* harmony import */ var _snapshot_message_js__WEBPACK_IMPORTED_MODULE_10__ = __webpack_require__(24667);
/* harmony import */ var _snapshot_js__WEBPACK_IMPORTED_MODULE_11__ = __webpack_require__(46213);
/* harmony import */ var _record_refs_js__WEBPACK_IMPORTED_MODULE_12__ = __webpack_require__(22763);
/* harmony import */ var _record_state_helper_js__WEBPACK_IMPORTED_MODULE_13__ = __webpack_require__(21217);
/* harmony import */ var _os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__ = __webpack_require__(17238);
/* harmony import */ var _git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_15__ = __webpack_require__(17998);
// Restore: a new worktree picks up where a rescue left off. The rescue (one named, or the one the previous
// attempt of this step left) is fetched into a ref of this step's own and checked to be a snapshot commit,
// before anything is created; once the worktree is checked out at its base, it is put back as the snapshot
// records it: HEAD where the agent had it, the index as it was staged, the files as they were left, and every
// other unsaved commit kept by a ref of the worktree. A rescue is agent-made data: git fetches and checks it,
// the files it holds are written as bytes, and no program sees them but the filters the repository had at enter.

















/** How long the artifact service may take to list and hand over a rescue. */
const RESTORE_TIME_LIMIT_MS = 5 * 60_000;
const FIX = 'Restore a rescue that exists: the rescue-ref or rescue-artifact output of the exit that kept the work, as its message names it.';
/** Finds the rescue, fetches it into a ref of this step's own and checks it: every refusal is an input error. */
async function findRescue(repo, request, context) {
    const ref = (0,_record_refs_js__WEBPACK_IMPORTED_MODULE_12__/* .restoreRef */ .QS)((0,node_crypto__WEBPACK_IMPORTED_MODULE_1__.randomBytes)(6).toString('hex'));
    // Saved before the fetch: the post deletes what a main step cut short left.
    _actions_core__WEBPACK_IMPORTED_MODULE_0__/* .saveState */ .LZ(_record_state_helper_js__WEBPACK_IMPORTED_MODULE_13__/* .STATE_RESTORE_REF */ .Dr, ref);
    const dispose = () => (0,_snapshot_js__WEBPACK_IMPORTED_MODULE_11__/* .dropKeptRef */ .XJ)(repo.git, repo.commonDir, ref);
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
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, chosen.name, `it is not a rescue: its commit is not a snapshot agent-worktree made (no ${_snapshot_message_js__WEBPACK_IMPORTED_MODULE_10__/* .TRAILERS */ .jl.head} trailers)`, FIX);
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
 * attempt of this run, in the places this step rescues to. A branch is looked for first: git reads it whatever
 * the attempt, where the artifact service may hand an earlier attempt's artifacts out less reliably.
 */
async function previousRescue(repo, context) {
    const env = context.env ?? process.env;
    const attempt = Number(env.GITHUB_RUN_ATTEMPT) || 1;
    if (!env.GITHUB_RUN_ID || attempt < 2)
        return { attempt: 1, looked: [] };
    const previous = attempt - 1;
    const label = context.name === undefined ? (0,_record_names_js__WEBPACK_IMPORTED_MODULE_5__/* .generatedNames */ .gU)(env, previous) : escapeRegExp((0,_names_js__WEBPACK_IMPORTED_MODULE_16__/* .rescueLabel */ .Ct)({ name: context.name }));
    const tail = escapeRegExp((0,_names_js__WEBPACK_IMPORTED_MODULE_16__/* .rescueTail */ .Cf)({ job: env.GITHUB_JOB ?? '', run: `${env.GITHUB_RUN_ID}-${previous}`, since: '' }, context.leg));
    const looked = ['branch', 'artifact'].filter(kind => context.rescue.includes(kind));
    for (const kind of looked) {
        const separator = kind === 'branch' ? '/' : '-';
        // A step that rescued twice in that attempt (a worktree entered again) left takes: the last one is where it stopped.
        const pattern = (0,_names_js__WEBPACK_IMPORTED_MODULE_16__/* .rescueNames */ .UH)(separator, label, tail);
        const names = lastTakes((kind === 'branch' ? await rescueBranches(repo, context.push) : await artifactNames()).filter(name => pattern.test(name)), pattern);
        if (names.length > 1)
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d('restore', 'auto', `attempt ${previous} left ${names.length} rescues this step could have made (${names.join(', ')})`, 'Give each agent-worktree step of the job a name of its own, or restore one rescue by name.');
        if (names.length)
            return { kind, name: names[0] };
    }
    return { attempt, looked };
}
/** Of the names that differ only in their take, the last take of each. */
function lastTakes(names, pattern) {
    const last = new Map();
    for (const name of names) {
        const take = Number(pattern.exec(name)?.[1] ?? 1);
        const stem = name.replace(/-take\d+$/, '');
        if ((last.get(stem)?.take ?? 0) < take)
            last.set(stem, { name, take });
    }
    return [...last.values()].map(l => l.name);
}
/** The rescue branches on the remote of enter. */
async function rescueBranches(repo, push) {
    if (!push)
        return [];
    const listed = await repo.git.run(['ls-remote', '--refs', '--end-of-options', push.url, `refs/heads/${_names_js__WEBPACK_IMPORTED_MODULE_16__/* .RESCUE_PREFIX */ .jf}/*`], {
        stallMs: _rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .STALL_MS */ .Gn,
        interruptible: true,
        remote: true,
        env: { GIT_ALLOW_PROTOCOL: _rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .REMOTE_PROTOCOLS */ .Rq }
    });
    if (listed.exitCode !== 0) {
        (0,_git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_4__/* .throwIfCancelled */ .dZ)();
        throw new Error(`git ls-remote ${push.remote} failed: ${lastWords(listed.stderr)}. Check that the remote answers and that the job may read it.`);
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
        throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, 'the repository had no remote when the step entered, and a branch rescue is fetched from it', 'Check out the repository with its remote, or restore an artifact.');
    const valid = await repo.git.run(['check-ref-format', `refs/heads/${name}`]);
    if (valid.exitCode !== 0)
        throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, 'git refuses it as the name of a branch', FIX);
    const fetched = await fetchFrom(repo, push, [`+refs/heads/${name}:${ref}`]);
    if (fetched.exitCode === 0)
        return;
    (0,_git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_4__/* .throwIfCancelled */ .dZ)();
    if (/couldn't find remote ref/i.test(fetched.stderr))
        throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `${push.remote} has no such branch`, FIX);
    throw new Error(`git fetch ${push.remote} ${name} failed: ${lastWords(fetched.stderr)}. Check that the remote answers and that the job may read it.`);
}
/** A fetch of `what` from the remote of enter: no tags, no submodules, no FETCH_HEAD, watched for a stall. */
function fetchFrom(repo, push, what, options = []) {
    return repo.git.run(['fetch', '--quiet', '--progress', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', ...options, '--end-of-options', push.url, ...what], { stallMs: _rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .STALL_MS */ .Gn, interruptible: true, remote: true, env: { GIT_ALLOW_PROTOCOL: _rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .REMOTE_PROTOCOLS */ .Rq } });
}
// Loaded only when a restore reads artifacts: the client is most of a bundle's size.
async function artifactClient() {
    const { DefaultArtifactClient } = await __webpack_require__.e(/* import() */ 380).then(__webpack_require__.bind(__webpack_require__, 23380));
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
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, 'this run has no artifact of that name', FIX);
        const hint = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(said)
            ? ' There is no artifact service here (not on a GitHub runner): restore a branch.'
            : /GHES|not currently supported/.test(said)
                ? ' GitHub Enterprise Server has no artifact service for this client: restore a branch.'
                : ' An artifact of an earlier attempt may not be readable there: rescue to a branch too (rescue: artifact,branch).';
        throw new Error(`The artifact service could not hand over ${name}: ${said.split('\n')[0]}.${hint}`, { cause: error });
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
    const dir = (0,_git_sealed_git_js__WEBPACK_IMPORTED_MODULE_9__/* .privateTemp */ .A)('agent-worktree-restore-');
    try {
        const { artifact } = await service(client => client.getArtifact(name), name, input);
        // Told before the download: a name that is not a rescue's may be a build's gigabytes. A megabyte for the README and the zip.
        if (artifact.size > maxBytes + 1024 * 1024)
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `its artifact is ${(artifact.size / 1024 / 1024).toFixed(1)} MB, more than a rescue within this step's rescue-max-size holds`, "Set rescue-max-size here as large as the rescuing step's, or restore its branch.");
        await service(client => client.downloadArtifact(artifact.id, { path: dir }), name, input);
        const bundle = node_path__WEBPACK_IMPORTED_MODULE_3__.join(dir, 'rescue.bundle');
        const header = bundleHeader(bundle);
        if (!header)
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, 'it is not a rescue: it holds no git bundle rescue.bundle', FIX);
        if (header.refs.length !== 1)
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `it is not a rescue: its bundle holds ${header.refs.length} refs, a rescue one`, FIX);
        await fetchMissing(repo, name, push, header.prerequisites, input);
        const verified = await repo.git.run(['bundle', 'verify', '--quiet', bundle]);
        if (verified.exitCode !== 0)
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `git cannot take its bundle: ${lastWords(verified.stderr)}`, FIX);
        const fetch = () => repo.git.run(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--end-of-options', bundle, `+${header.refs[0]}:${ref}`], {
            env: { GIT_ALLOW_PROTOCOL: 'file' },
            interruptible: true
        });
        let fetched = await fetch();
        // A shallow commit in the bundle (a pull request's merge commit this clone lacks) needs the parents its README names.
        const needs = fetched.exitCode === 0 ? [] : (0,_rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .neededCommits */ .Ug)((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .readSmall */ .o5)(node_path__WEBPACK_IMPORTED_MODULE_3__.join(dir, 'README.txt')) ?? '');
        if (needs.length && (await fetchMissing(repo, name, push, needs, input)))
            fetched = await fetch();
        if (fetched.exitCode !== 0) {
            (0,_git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_4__/* .throwIfCancelled */ .dZ)();
            throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `git cannot take its bundle: ${lastWords(fetched.stderr)}`, FIX);
        }
    }
    finally {
        node_fs__WEBPACK_IMPORTED_MODULE_2__.rmSync(dir, { recursive: true, force: true });
    }
}
/** The refs and prerequisites a git bundle names in its header; undefined when the file is not one. */
function bundleHeader(file) {
    const fd = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .openRegular */ .lf)(file);
    if (fd === undefined)
        return undefined;
    try {
        const buffer = Buffer.alloc(64 * 1024);
        const text = buffer.subarray(0, node_fs__WEBPACK_IMPORTED_MODULE_2__.readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
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
        node_fs__WEBPACK_IMPORTED_MODULE_2__.closeSync(fd);
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
        throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `it builds on commits this clone lacks (${shown}), and the repository has no remote to fetch them from`, FIX);
    const shallow = node_fs__WEBPACK_IMPORTED_MODULE_2__.existsSync(node_path__WEBPACK_IMPORTED_MODULE_3__.join(repo.commonDir, 'shallow'));
    const fetched = await fetchFrom(repo, push, missing, shallow ? ['--depth=1'] : []);
    if (fetched.exitCode === 0)
        return true;
    (0,_git_git_command_manager_js__WEBPACK_IMPORTED_MODULE_4__/* .throwIfCancelled */ .dZ)();
    throw new _record_settings_js__WEBPACK_IMPORTED_MODULE_6__/* .InputError */ .d(input, name, `it builds on commits ${push.remote} does not have (${shown}: ${lastWords(fetched.stderr)}), so it is not a rescue of this repository`, FIX);
}
/** The snapshot commit at `ref`, when it is one: a rescue's subject, its trailers, HEAD its first parent, an index tree. */
/** Every path of an index tree is one git would check out: no "..", "." or empty segment, and no .git one. */
async function plainPaths(git, tree) {
    const listed = await git.run(['ls-tree', '-r', '-z', '--name-only', '--full-tree', tree], { encoding: 'latin1' });
    return listed.exitCode === 0 && listed.stdout.split('\0').filter(Boolean).every(_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .plainPath */ .s1);
}
async function readSnapshot(git, ref) {
    const read = await git.run(['cat-file', 'commit', ref]);
    const split = read.stdout.indexOf('\n\n');
    if (read.exitCode !== 0 || split < 0)
        return undefined;
    const headers = read.stdout.slice(0, split).split('\n');
    const tree = headers.find(h => h.startsWith('tree '))?.slice(5) ?? '';
    const parents = headers.filter(h => h.startsWith('parent ')).map(h => h.slice(7));
    const trailers = (0,_snapshot_message_js__WEBPACK_IMPORTED_MODULE_10__/* .parseSnapshotMessage */ .tp)(read.stdout.slice(split + 2));
    if (!trailers || (trailers.head !== undefined && trailers.head !== parents[0]))
        return undefined;
    const { head, branch, index, base } = trailers;
    if ((await git.run(['cat-file', '-t', index])).stdout.trim() !== 'tree' || !(await plainPaths(git, index)))
        return undefined;
    const rest = head === undefined ? parents : parents.slice(1);
    // The index parent is made for the rescue: the index itself holds what it holds.
    const described = rest.length ? (await git.exec(['log', '--no-walk=unsorted', '--format=%H %T %s', ...rest, '--'])).split('\n') : [];
    const others = rest.filter((_, i) => described[i] !== `${rest[i]} ${index} ${_snapshot_message_js__WEBPACK_IMPORTED_MODULE_10__/* .INDEX_SUBJECT */ .GA}`);
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
/**
 * Puts the new worktree, checked out at its base, back as the snapshot records it. Each step leaves what a
 * post can judge: restored files and commits are unsaved work until the agent saves them.
 */
async function restoreInto(found, record, gitDir, commonDir, env) {
    const { snapshot } = found;
    const git = (0,_git_repository_js__WEBPACK_IMPORTED_MODULE_7__/* .worktreeGit */ .Oi)(gitDir, record.path);
    // The index as staged, checked out with no filter program at all: the rescued .gitattributes are anyone's, and
    // would pick any driver of the configuration (one an earlier agent planted; git-lfs told by a rescued
    // .lfsconfig where to send the repository's credentials)...
    const quiet = (await filterDrivers(git)).flatMap((name) => [
        [`filter.${name}.smudge`, ''],
        [`filter.${name}.process`, ''],
        [`filter.${name}.required`, 'false']
    ]);
    await git.exec(['read-tree', '-m', '-u', record.baseSha, snapshot.index], {
        env: { ...env, ...(0,_rescue_js__WEBPACK_IMPORTED_MODULE_8__/* .configEnvironment */ .kj)(quiet), GIT_LFS_SKIP_SMUDGE: '1' },
        interruptible: true,
        remote: true
    });
    // ...then every file that differs from it, as the bytes the agent left.
    const { notRestored, untracked } = await writeAsLeft(git, record.path, snapshot);
    const message = `agent-worktree: restored ${found.name}`;
    const branch = `refs/heads/${record.branch}`;
    const change = { log: commonDir, head: gitDir, message, required: true };
    if (!snapshot.head)
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_15__/* .deleteRef */ .jq)(git, branch, { ...change, from: record.baseSha });
    else if (!snapshot.branch)
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_15__/* .writeRef */ .Ln)(git, 'HEAD', snapshot.head, { log: gitDir, message, noDeref: true, required: true });
    else
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_15__/* .writeRef */ .Ln)(git, branch, snapshot.head, { ...change, from: record.baseSha });
    const kept = [];
    for (const tip of snapshot.others) {
        kept.push((0,_record_refs_js__WEBPACK_IMPORTED_MODULE_12__/* .restoredRef */ .WG)(kept.length + 1));
        await (0,_git_worktree_refs_js__WEBPACK_IMPORTED_MODULE_15__/* .writeRef */ .Ln)(git, kept.at(-1), tip, { log: commonDir, message, required: true });
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
            if ((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .reachedWithoutLinks */ .An)(folder, file, 'latin1') && (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .kindOf */ .I)((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .inside */ .nx)(folder, file, 'latin1')) !== 'directory')
                node_fs__WEBPACK_IMPORTED_MODULE_2__.rmSync((0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .inside */ .nx)(folder, file, 'latin1'), { force: true });
        }
        catch (error) {
            notRestored.push({ file: Buffer.from(file, 'latin1').toString('utf8'), why: error.code ?? 'it could not be deleted' });
        }
    }
    for (const batch of await batches(git, written)) {
        const contents = await blobs(git, batch.map(entry => entry.blob));
        batch.forEach((entry, i) => {
            const why = writeEntry(folder, entry, contents[i]);
            if (why)
                notRestored.push({ file: Buffer.from(entry.file, 'latin1').toString('utf8'), why });
        });
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
        if (bytes + (sizes[i] || 0) > BATCH_BYTES && groups[groups.length - 1].length) {
            groups.push([]);
            bytes = 0;
        }
        groups[groups.length - 1].push(entry);
        bytes += sizes[i] || 0;
    });
    return groups;
}
/** The bytes of each blob, in one git call. */
async function blobs(git, ids) {
    if (!ids.length)
        return [];
    const out = Buffer.from(await git.exec(['cat-file', '--batch'], { input: `${ids.join('\n')}\n`, encoding: 'latin1' }), 'latin1');
    const found = [];
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
        const end = out.indexOf(10, at);
        // "<id> blob <size>", the bytes, a newline
        const size = Number(/ blob (\d+)$/.exec(out.subarray(at, end).toString('latin1'))?.[1] ?? -1);
        found.push(size < 0 ? Buffer.alloc(0) : out.subarray(end + 1, end + 1 + size));
        at = size < 0 ? end + 1 : end + 2 + size;
    }
    return found;
}
/** Writes one file of the snapshot where it was, replacing what the checkout put there; why not, when it cannot. */
function writeEntry(folder, entry, content) {
    try {
        const blocked = makeParents(folder, entry.file);
        if (blocked)
            return blocked;
        const full = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .inside */ .nx)(folder, entry.file, 'latin1');
        const kind = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .kindOf */ .I)(full);
        // A folder the checkout left where a file goes is empty, or the file is not written.
        if (kind === 'directory')
            node_fs__WEBPACK_IMPORTED_MODULE_2__.rmdirSync(full);
        else if (kind !== 'missing')
            node_fs__WEBPACK_IMPORTED_MODULE_2__.rmSync(full);
        if (entry.mode === '120000')
            node_fs__WEBPACK_IMPORTED_MODULE_2__.symlinkSync(content, full);
        else
            node_fs__WEBPACK_IMPORTED_MODULE_2__.writeFileSync(full, content, { mode: entry.mode === '100755' ? 0o777 : 0o666, flag: 'wx' });
        return undefined;
    }
    catch (error) {
        return error.code ?? 'it could not be written';
    }
}
/** Makes the folders above `file`, refusing one on the way that is not a plain folder (a link, a file). */
function makeParents(folder, file) {
    if (!(0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .plainPath */ .s1)(file))
        return 'it is not a plain path';
    const segments = file.split('/');
    for (let i = 1; i < segments.length; i++) {
        const dir = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .inside */ .nx)(folder, segments.slice(0, i).join('/'), 'latin1');
        const kind = (0,_os_untrusted_files_js__WEBPACK_IMPORTED_MODULE_14__/* .kindOf */ .I)(dir);
        if (kind === 'missing')
            node_fs__WEBPACK_IMPORTED_MODULE_2__.mkdirSync(dir);
        else if (kind !== 'directory')
            return 'a folder on its way is a link or a file';
    }
    return undefined;
}


/***/ })

};
