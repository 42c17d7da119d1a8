#!/usr/bin/env bash
# What an install weighs on disk: svir's packages as the README installs them (packed from this
# repository, with effect), against openai, and against ai with its OpenAI-compatible provider and
# zod, at the versions in peers/package.json, each in a new project. Packages come from npm's cache
# where they are in it; no lockfile is written.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && npm run --silent pack >/dev/null)
peer() { node -p "require('$root/peers/package.json').dependencies['$1']"; }
installed() { node -p "require('$root/node_modules/$1/package.json').version"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
weigh() {
  local name=$1
  shift
  mkdir "$work/$name"
  (cd "$work/$name" && npm init -y >/dev/null &&
    npm install --silent --prefer-offline --no-audit --no-fund --no-package-lock "$@")
  local all
  all=$(du -sk "$work/$name/node_modules" | cut -f1)
  printf '  %-8s %6s MB' "$name" "$(mb "$all")"
}
echo "Install weight: node_modules of a new project, on disk"
weigh svir "$root"/packs/svir-{core,registry,openai-codec,client,loop}.tgz "effect@$(installed effect)"
own=$(du -sk "$work/svir/node_modules/@svir" | cut -f1)
sources=$(du -sck "$work"/svir/node_modules/@svir/*/src | tail -1 | cut -f1)
printf ' (effect %s MB, svir %s MB of which sources %s MB)\n' \
  "$(mb "$(du -sk "$work/svir/node_modules/effect" | cut -f1)")" "$(mb "$own")" "$(mb "$sources")"
weigh openai "openai@$(peer openai)"
echo
weigh ai "ai@$(peer ai)" "@ai-sdk/openai-compatible@$(peer @ai-sdk/openai-compatible)" "zod@$(installed zod)"
echo
