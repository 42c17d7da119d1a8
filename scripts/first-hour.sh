#!/usr/bin/env bash
# Follows the root README's "Use it in your project" as a new user would, running its marked
# blocks as written: installs, builds and packs in the clone, makes a project beside the clone in an empty folder,
# pastes the agent, type-checks and runs it against the scripted model, then points it at a
# server that is not there and expects one line and exit code 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
block() { node "$root/scripts/readme-block.mjs" "$1"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/pack.log"
(cd "$root" && bash -euo pipefail -c "$(block pack)") > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
ln -s "$root" "$work/svir"
cd "$work"
bash -euo pipefail -c "$(block project)" > project.log 2>&1 || { cat project.log >&2; exit 1; }
cd my-agent
block agent.ts > agent.ts
answer=$(bash -euo pipefail -c "$(block run)")
if [ "$answer" != "2 + 3 = 5" ]; then
  echo "the README's agent printed: $answer" >&2
  exit 1
fi
set +e
failure=$(MODEL_URL=http://127.0.0.1:9/v1 npx tsx agent.ts 2>&1)
code=$?
set -e
if [ "$code" -ne 1 ] || [ "$(printf '%s\n' "$failure" | wc -l)" -ne 1 ] ||
  [[ "$failure" != "the agent failed: could not reach http://127.0.0.1:9/v1/chat/completions"* ]]; then
  echo "with no server, the README's agent exited $code and printed:" >&2
  echo "$failure" >&2
  exit 1
fi
echo "README: its recipe followed as written; the agent printed \"$answer\", and without a server \"$failure\""
