// Covers: src/os/quote.ts.
// The one rule for names in our words: a name shows as one code span that nothing in it closes, every character
// that would end a line, hide or reorder text shows as an escape, and a line of ours starts no workflow command.
import { describe, expect, it } from 'vitest'
import { escaped, oneLine, quoted } from '../../src/os/quote.js'
import { parseAnnotations } from '../../scripts/runner.mjs'

/** What CommonMark makes of a code span: the text between its fences, one space dropped at each end when both have one. */
function spanText(span: string): string {
  const fence = /^`+/.exec(span)![0]
  expect(span.endsWith(fence)).toBe(true)
  const inner = span.slice(fence.length, -fence.length)
  // No run of backticks inside as long as the fence: the span ends only where it ends.
  expect([...inner.matchAll(/`+/g)].every(run => run[0].length !== fence.length)).toBe(true)
  return inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() ? inner.slice(1, -1) : inner
}

/** The name back from its escapes, as a reader decodes them. */
function unescape(text: string): string {
  return text.replace(/\\(u\{[0-9a-f]+\}|u[0-9a-f]{4}|[\\nrt])/g, (_, e: string) =>
    e === '\\' ? '\\' : e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16))
  )
}

const HOSTILE = [
  'notes\n\n## Nothing unsaved: removed\n\n**all clean**',
  'x\n::error::forged',
  'a::warning title=x::b',
  '%0A::error::encoded',
  '##[error]legacy',
  '##[stop-commands]token',
  '</details></code></pre><script>x</script>',
  '[click](https://example.com)',
  '| a | b |',
  '*bold* _em_ ~~gone~~',
  '`tick',
  'tick`',
  'two``ticks```three',
  '``',
  ' spaced ',
  '\u001b[31mred\u001b[0m',
  'report\u202etxt.exe',
  'rtl\u2067isolate\u2069',
  'zero\u200bwidth\ufeff',
  'line\u2028sep\u2029para',
  'c1\u0085\u009bcsi',
  'tag\u{e0041}chars',
  'lone\ud800surrogate',
  'back\\slash\\nnot a newline',
  'C:\\agents\\wt',
  'trailing\\',
  '\\u0041',
  ''
]

describe('a name, quoted', () => {
  it.each(HOSTILE.map(name => [JSON.stringify(name), name]))('%s: one span, one line, nothing hidden, and the name back from it', (_, name) => {
    const span = quoted(name)
    expect(span).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u)
    expect(unescape(spanText(span))).toBe(name)
  })

  it('reads as typed where nothing needs an escape', () => {
    expect(quoted('src/a: b.txt')).toBe('`src/a: b.txt`')
    expect(quoted('C:\\agents\\wt')).toBe('`C:\\agents\\wt`')
    expect(quoted('a"b')).toBe('`a"b`')
  })

  it('escapes what would end a line or hide text, and doubles a backslash only where it would read as an escape', () => {
    expect(quoted('a\nb')).toBe('`a\\nb`')
    expect(quoted('a\\nb')).toBe('`a\\\\nb`')
    expect(quoted('a\\\nb')).toBe('`a\\\\\\nb`')
    expect(quoted('C:\\new')).toBe('`C:\\\\new`')
    expect(quoted('report\u202etxt.exe')).toBe('`report\\u202etxt.exe`')
    expect(quoted('\u001b[31m')).toBe('`\\u001b[31m`')
    expect(quoted('tag\u{e0041}')).toBe('`tag\\u{e0041}`')
    expect(escaped('plain')).toBe('plain')
  })

  it('takes a fence longer than any run of backticks in the name, and pads a name that starts or ends with one', () => {
    expect(quoted('a`b')).toBe('``a`b``')
    expect(quoted('`a')).toBe('`` `a ``')
    expect(quoted('two``ticks')).toBe('```two``ticks```')
    expect(quoted(' a ')).toBe('`  a  `')
    expect(quoted(' a')).toBe('` a`')
  })
})

describe('a line of ours', () => {
  it('starts no workflow command of either syntax, whatever a name or git’s words in it hold', () => {
    for (const name of HOSTILE) {
      const line = oneLine(`Took ${quoted(name)} from the pool; git said: ${name}.`)
      expect(line).not.toMatch(/[\n\r]/)
      expect(parseAnnotations(line)).toEqual([])
      expect(line).not.toContain('##[')
    }
  })
})
