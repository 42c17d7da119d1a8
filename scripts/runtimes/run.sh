#!/usr/bin/env bash
# `npm run test:runtimes` (root DECISIONS.md 5): the four portable packages' suites on Bun and
# Deno, the built client under Deno with no --allow-env, then the smoke test of the built packages
# in headless Chromium and workerd. Needs `npm run build` first, and Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/runtimes/suites.mjs "$@"
node scripts/runtimes/run-smoke.mjs
