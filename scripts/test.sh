#!/usr/bin/env bash
# `npm test`: formatting, package boundaries, examples and the indexes of the decisions, then every
# package's build, types, lint and tests. Turbo shows the output of a task only when it fails; the
# last line totals the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
rm -rf packages/*/.vitest examples/.vitest
npx biome check . &&
  npm run --silent check:boundaries &&
  npm run --silent check:examples &&
  npm run --silent check:decisions &&
  npx turbo run build typecheck lint test --concurrency=2 --output-logs=errors-only
status=$?
node scripts/testTotal.mjs
exit "$status"
