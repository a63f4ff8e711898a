// How a name (a file, a path, a branch, a ref, a commit's subject, a remote) is shown in our words: written once
// here, for the log, annotations, the job summary, the message output and errors. The repository and the agent
// choose names; a name holds any character, and none of them may end a line, a block or a workflow command of
// ours, form Markdown or HTML where the text is rendered, or hide or reorder what a person reads.

/** Control, format (bidirectional overrides, zero-width), line and paragraph separator characters, lone surrogates. */
const HIDDEN = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}]'
const HIDDEN_ONE = new RegExp(HIDDEN, 'gu')
const HIDDEN_RUN = new RegExp(`${HIDDEN}+`, 'gu')
/** A backslash that would read as the start of an escape: before another, before n, r, t or u, or before a hidden character. */
const ESCAPE_LIKE = new RegExp(`\\\\(?=[\\\\nrtu]|${HIDDEN})`, 'gu')
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * Every hidden character as an escape (\n, \t, \u001b, \u202e, \u{e0041}); a backslash is doubled only where it
 * would read as one of those escapes, so that a Windows path keeps its single backslashes.
 */
export function escaped(text: string): string {
  return text.replace(ESCAPE_LIKE, '\\\\').replace(HIDDEN_ONE, c => {
    const code = c.codePointAt(0) ?? 0
    return SHORT[c] ?? (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`)
  })
}

/**
 * A name as our sentences show it: escaped, in a code span that nothing in it can close (the fence is longer
 * than any run of backticks in it), so that it reads as one name in plain text and forms no Markdown where the
 * text is rendered.
 */
export function quoted(name: string): string {
  const text = escaped(name)
  const fence = '`'.repeat(Math.max(0, ...[...text.matchAll(/`+/g)].map(run => run[0].length)) + 1)
  // Markdown drops one space at each end of a span that starts and ends with one; a backtick at an end would join the fence.
  const pad = /^`|`$/.test(text) || (/^ /.test(text) && / $/.test(text)) ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/**
 * A line of the log, an annotation or an output, from text that is not all ours (git's words, an error's): its
 * hidden characters become a space, so that it starts no line of its own; and `##[`, which the runner reads
 * anywhere in a line as a command of its older syntax (`##[error]`, `##[stop-commands]`), is broken up.
 */
export function oneLine(text: string): string {
  return text.replace(HIDDEN_RUN, ' ').replace(/##\[/g, '##\\u005b')
}
