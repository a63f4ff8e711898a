#!/bin/sh
# npm run setup: what a fresh clone needs to develop and test agent-worktree. The sandbox tests need
# bubblewrap, socat and ripgrep (what @anthropic-ai/sandbox-runtime runs on Linux), the LFS tests git-lfs:
# installed by apt where there is apt (as root, or through sudo); elsewhere, install them yourself.
set -eu
cd "$(dirname "$0")/.."
PACKAGES="bubblewrap socat ripgrep git-lfs"
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q $PACKAGES
else
  echo "No apt here: install $PACKAGES yourself; the tests that need them are skipped, and say so." >&2
fi
npm ci --no-audit --no-fund
