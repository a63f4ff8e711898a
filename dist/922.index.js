export const id = 922;
export const ids = [922];
export const modules = {

/***/ 73959:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   openPullRequest: () => (/* binding */ openPullRequest)
/* harmony export */ });
/* harmony import */ var _os_quote_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(47722);
// A pull request of the branch the exit pushed, through GitHub's REST API: the open one that already has that head,
// or a new one; and, when GitHub refuses, what to do about it. This module and @actions/github are loaded only when
// a pull request is asked for: no other step waits for them.

/** The requests of one pull request together may take this long: a post after a cancel has little time, and no answer may hold the step. */
const TIME_LIMIT_MS = 30_000;
/** Takes the open pull request of `head`, or opens one. Never throws: a refusal comes back as what to do. */
async function openPullRequest(call) {
    const { owner, repo } = call.repository;
    const { head } = call;
    let base = call.base;
    try {
        const github = await __webpack_require__.e(/* import() */ 351).then(__webpack_require__.bind(__webpack_require__, 61351));
        const octokit = github.getOctokit(call.token);
        const request = { signal: AbortSignal.timeout(TIME_LIMIT_MS) };
        const fromEvent = github.context.payload.repository;
        base ??=
            fromEvent?.full_name?.toLowerCase() === `${owner}/${repo}`.toLowerCase() && typeof fromEvent.default_branch === 'string'
                ? fromEvent.default_branch
                : (await octokit.rest.repos.get({ owner, repo, request })).data.default_branch;
        const [open] = (await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, state: 'open', per_page: 1, request })).data;
        if (open)
            return { head, base: open.base.ref, number: open.number, url: open.html_url, draft: open.draft === true, existed: true };
        const { title, body } = call.text(base);
        const { data } = await octokit.rest.pulls.create({ owner, repo, head, base, title, body, draft: call.draft, request });
        return { head, base, number: data.number, url: data.html_url, draft: data.draft === true, existed: false };
    }
    catch (error) {
        return refused(error, call, base);
    }
}
/** GitHub's refusal, in its words, and what to do about it. */
function refused(error, call, base) {
    const { head } = call;
    const repository = (0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(`${call.repository.owner}/${call.repository.repo}`);
    const answer = error;
    const data = answer.response?.data;
    if (!answer.response) {
        const api = process.env.GITHUB_API_URL || 'https://api.github.com';
        return { head, base, failed: `GitHub's API at ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(api)} did not answer (${answer.message ?? String(error)}); open it by hand, or re-run the job` };
    }
    const errors = (data?.errors ?? []).map(e => (typeof e === 'string' ? { message: e } : e));
    const said = [data?.message, ...errors.map(e => e.message ?? [e.field, e.code].filter(Boolean).join(' '))].filter(Boolean).join(': ');
    const answered = `GitHub answered ${answer.status} ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(said || 'nothing more')}`;
    const invalid = (field) => errors.some(e => e.field === field && e.code === 'invalid');
    if (answer.status === 422 && base && /no commits between/i.test(said))
        return { head, base, nothing: `${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(head)} has no commits that ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(base)} lacks` };
    const failed = accessProblem(answer.status, said, answered, repository) ?? requestProblem(answer.status, said, answered, { head, base, repository, invalid });
    return { head, base, failed: failed ?? answered };
}
/** What a refusal for the token or the repository's settings asks of the workflow; undefined: not one of those. */
function accessProblem(status, said, answered, repository) {
    if (status === 403 && /not permitted to create or approve pull requests/i.test(said))
        return `GitHub Actions may not create pull requests in ${repository} (${answered}): turn on "Allow GitHub Actions to create and approve pull requests" in the repository's Settings, Actions, General, Workflow permissions (where the organization's setting is off, there first), or give github-token a GitHub App's token or a personal access token`;
    if (status === 403 && /resource not accessible/i.test(said))
        return `the token may not open pull requests in ${repository} (${answered}): give the job \`pull-requests: write\` in its permissions, beside \`contents: write\` (a token given as github-token needs the same: a GitHub App's or a fine-grained token's "Pull requests: Read and write")`;
    if (status === 401)
        return `GitHub refused the token (${answered}): give github-token a valid token, or leave it out for the job's GITHUB_TOKEN`;
    if (status === 404)
        return `GitHub shows this token no repository ${repository} (${answered}): check that the remote of enter is that repository, and that the token may read it`;
    return undefined;
}
/** What a refusal of the request itself (its base, its head, a draft) asks of the workflow; undefined: not one of those. */
function requestProblem(status, said, answered, context) {
    if (status === 422 && context.invalid('base'))
        return `the base branch ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(context.base ?? '')} does not exist in ${context.repository} (${answered}): set base-ref to a branch the remote has (origin/<branch>), or push that branch first`;
    if (status === 422 && context.invalid('head'))
        return `GitHub does not take the pushed branch ${(0,_os_quote_js__WEBPACK_IMPORTED_MODULE_0__/* .quoted */ .TL)(context.head)} of ${context.repository} as a head (${answered}): the remote of enter must be ${context.repository} itself, and the push must have reached it`;
    if (status === 422 && /draft/i.test(said))
        return `GitHub takes no draft pull request in ${context.repository} (${answered}): use pull-request: true`;
    return undefined;
}


/***/ })

};
