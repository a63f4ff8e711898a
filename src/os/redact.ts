// A credential in a URL (https://x-access-token:<token>@host/…) never reaches the log, an annotation or an output:
// git's, git-lfs's and a remote's own words may name a URL as it was given, userinfo and all, and a token minted in
// a run: step is masked nowhere unless that step masked it.

/** A URL's scheme and `//`, then its userinfo up to the `@` (no `/`, white space or quote inside). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"`]+@/gi

/** The text with every URL's userinfo taken out, as git itself shows a URL it anonymizes. */
export function withoutUserinfo(text: string): string {
  return text.replace(USERINFO, '$1')
}
