#!/usr/bin/env bash
# The pinned tree-sitter grammars (grammars/package-lock.json) into grammars/node_modules,
# with npm ci; again only when the lockfile changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=grammars/node_modules/.wafer-lock
if [ ! -f "$stamp" ] || ! cmp -s grammars/package-lock.json "$stamp"; then
  echo "setup: fetching tree-sitter grammars (npm ci)"
  (cd grammars && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp grammars/package-lock.json "$stamp"
fi
