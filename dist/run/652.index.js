export const id = 652;
export const ids = [652];
export const modules = {

/***/ 1652:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   core: () => (/* binding */ core),
/* harmony export */   runnerProtocol: () => (/* binding */ runnerProtocol),
/* harmony export */   speakThrough: () => (/* binding */ speakThrough)
/* harmony export */ });
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_os__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(8161);
/* harmony import */ var node_os__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_os__WEBPACK_IMPORTED_MODULE_2__);
// What the stages say to the runner: log lines, annotations, outputs, state, exported variables and the job
// summary, written exactly as @actions/core 3 writes them (workflow commands on stdout, file commands appended to the
// GITHUB_* files). @actions/core itself loads its OIDC client, and with it an HTTP client, whenever it is imported:
// most of a stage's start-up, for a token no stage asks for. __tests__/runner/toolkit.test.ts holds the two side by side.
// @github/local-action stands in for @actions/core and keeps the state between main and post itself: its entries
// (src/local-action/) hand the stages @actions/core through speakThrough().



function commandValue(input) {
    if (input === null || input === undefined)
        return '';
    if (typeof input === 'string' || input instanceof String)
        return input;
    return JSON.stringify(input);
}
const escapeData = (s) => commandValue(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
/** `::command key=value,...::message`, a property without a value left out. */
function issueCommand(command, properties, message) {
    const listed = Object.entries(properties)
        .filter(([, value]) => value)
        .map(([key, value]) => `${key}=${escapeProperty(value)}`);
    const head = Object.keys(properties).length ? ` ${listed.join(',')}` : '';
    process.stdout.write(`::${command}${head}::${escapeData(message)}${node_os__WEBPACK_IMPORTED_MODULE_2__.EOL}`);
}
/** Appends NAME<<DELIMITER, the value, DELIMITER to the file GITHUB_<command> names; the delimiter is new each time. */
function issueFileCommand(command, name, value) {
    const delimiter = `ghadelimiter_${(0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.randomUUID)()}`;
    const converted = commandValue(value);
    if (name.includes(delimiter))
        throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
    if (converted.includes(delimiter))
        throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
    const file = process.env[`GITHUB_${command}`];
    if (!file)
        throw new Error(`Unable to find environment variable for file command ${command}`);
    if (!node_fs__WEBPACK_IMPORTED_MODULE_1__.existsSync(file))
        throw new Error(`Missing file at path: ${file}`);
    node_fs__WEBPACK_IMPORTED_MODULE_1__.appendFileSync(file, `${name}<<${delimiter}${node_os__WEBPACK_IMPORTED_MODULE_2__.EOL}${converted}${node_os__WEBPACK_IMPORTED_MODULE_2__.EOL}${delimiter}${node_os__WEBPACK_IMPORTED_MODULE_2__.EOL}`, { encoding: 'utf8' });
}
function info(message) {
    process.stdout.write(message + node_os__WEBPACK_IMPORTED_MODULE_2__.EOL);
}
function debug(message) {
    issueCommand('debug', {}, message);
}
function warning(message, properties = {}) {
    issueCommand('warning', { ...properties }, message instanceof Error ? message.toString() : message);
}
function error(message, properties = {}) {
    issueCommand('error', { ...properties }, message instanceof Error ? message.toString() : message);
}
function setFailed(message) {
    process.exitCode = 1;
    error(message);
}
function setSecret(secret) {
    issueCommand('add-mask', {}, secret);
}
function setOutput(name, value) {
    if (process.env.GITHUB_OUTPUT)
        return issueFileCommand('OUTPUT', name, value);
    process.stdout.write(node_os__WEBPACK_IMPORTED_MODULE_2__.EOL);
    issueCommand('set-output', { name }, commandValue(value));
}
function exportVariable(name, value) {
    const converted = commandValue(value);
    process.env[name] = converted;
    if (process.env.GITHUB_ENV)
        return issueFileCommand('ENV', name, value);
    issueCommand('set-env', { name }, converted);
}
function saveState(name, value) {
    if (process.env.GITHUB_STATE)
        return issueFileCommand('STATE', name, value);
    issueCommand('save-state', { name }, commandValue(value));
}
function getState(name) {
    return process.env[`STATE_${name}`] || '';
}
/** The job summary: HTML built up, then appended to the file GITHUB_STEP_SUMMARY names. */
class Summary {
    #buffer = '';
    #wrap(tag, content, attrs = {}) {
        const html = Object.entries(attrs)
            .map(([key, value]) => ` ${key}="${value}"`)
            .join('');
        return content ? `<${tag}${html}>${content}</${tag}>` : `<${tag}${html}>`;
    }
    addRaw(text, addEOL = false) {
        this.#buffer += text;
        return addEOL ? this.addRaw(node_os__WEBPACK_IMPORTED_MODULE_2__.EOL) : this;
    }
    addHeading(text, level = 1) {
        const tag = `h${level}`;
        return this.addRaw(this.#wrap(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].includes(tag) ? tag : 'h1', text), true);
    }
    addTable(rows) {
        const body = rows
            .map(row => this.#wrap('tr', row
            .map(cell => {
            if (typeof cell === 'string')
                return this.#wrap('td', cell);
            const attrs = { ...(cell.colspan && { colspan: cell.colspan }), ...(cell.rowspan && { rowspan: cell.rowspan }) };
            return this.#wrap(cell.header ? 'th' : 'td', cell.data, attrs);
        })
            .join('')))
            .join('');
        return this.addRaw(this.#wrap('table', body), true);
    }
    emptyBuffer() {
        this.#buffer = '';
        return this;
    }
    async write() {
        const file = process.env.GITHUB_STEP_SUMMARY;
        if (!file)
            throw new Error('Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.');
        try {
            await node_fs__WEBPACK_IMPORTED_MODULE_1__.promises.access(file, node_fs__WEBPACK_IMPORTED_MODULE_1__.constants.R_OK | node_fs__WEBPACK_IMPORTED_MODULE_1__.constants.W_OK);
        }
        catch {
            throw new Error(`Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`);
        }
        await node_fs__WEBPACK_IMPORTED_MODULE_1__.promises.appendFile(file, this.#buffer, { encoding: 'utf8' });
        return this.emptyBuffer();
    }
}
/** The runner's protocol, written here. */
const runnerProtocol = {
    info,
    debug,
    warning,
    error,
    setFailed,
    setSecret,
    setOutput,
    exportVariable,
    saveState,
    getState,
    summary: new Summary()
};
/** What every stage speaks through. */
let core = runnerProtocol;
/** Speak through another toolkit from now on: @actions/core, where local-action stands in for it. */
function speakThrough(toolkit) {
    core = toolkit;
}


/***/ })

};
