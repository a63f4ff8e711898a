// Covers: src/os/redact.ts.
import { describe, expect, it } from 'vitest'
import { withoutUserinfo } from '../../src/os/redact.js'

describe('withoutUserinfo', () => {
  it("takes a URL's userinfo out wherever it stands in a text, and nothing else", () => {
    expect(withoutUserinfo("fatal: unable to access 'https://x-access-token:ghs_abc@github.com/o/r.git/': 403")).toBe(
      "fatal: unable to access 'https://github.com/o/r.git/': 403"
    )
    expect(withoutUserinfo('To https://ghp_token@github.com/o/r and ssh://git@host:22/r.git, git+https://u:p@h/x')).toBe(
      'To https://github.com/o/r and ssh://host:22/r.git, git+https://h/x'
    )
    // No scheme, no URL: an e-mail address, scp-like syntax and a path stay as they are.
    expect(withoutUserinfo('author a@example.com; git@github.com:o/r.git; /srv/a@b')).toBe('author a@example.com; git@github.com:o/r.git; /srv/a@b')
  })
})
