#!/usr/bin/env bash
# `npm test`: formatting, package boundaries, examples, the indexes of the decisions and the type
# tests (packages/*/typetests), then every package's build, types, lint and tests. Turbo shows the
# output of a task only when it fails; a line says when each suite has finished, and the last line
# totals the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
rm -rf packages/*/.vitest examples/.vitest
npx biome check . &&
  npm run --silent check:boundaries &&
  npm run --silent check:examples &&
  npm run --silent check:decisions &&
  npm run --silent test:types &&
  npm run --silent check:since &&
  node scripts/testRun.mjs
