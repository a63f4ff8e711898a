#!/usr/bin/env bash
# npm run setup (and .ci/run): what a fresh clone needs to develop and test agent-worktree. The Debian
# packages the tests use, as GitHub's images have them: git-lfs for the LFS tests; bubblewrap, socat and
# ripgrep for Codex's and Claude Code's real sandboxes. Without them those tests are skipped, and say so.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
git lfs version >/dev/null 2>&1 || missing+=(git-lfs)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  if command -v apt-get >/dev/null 2>&1; then
    { "${sudo[@]}" apt-get update -q && "${sudo[@]}" apt-get install -y -q "${missing[@]}"; } >/dev/null 2>&1 ||
      echo "${missing[*]} could not be installed: the tests that need them will be skipped." >&2
  else
    echo "No apt here: install ${missing[*]} yourself, or the tests that need them will be skipped." >&2
  fi
fi

npm ci --no-audit --no-fund
