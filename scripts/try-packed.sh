#!/usr/bin/env bash
# Packs every svir package, then, for each package named (all of them when none is), installs its
# tarball into a new project, as a user would after `npm install`, and type-checks and runs the
# first TypeScript example of its README that imports no file of the repository (an example that
# needs vitest is type-checked only). Sibling svir packages come from their tarballs; everything
# else from npm's cache (`--prefer-offline`), at the version the workspace has installed.
# Usage: scripts/try-packed.sh [packages/core ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tarballs"
for dir in "$root"/packages/*/; do
  (cd "$dir" && npm pack --silent --pack-destination "$work/tarballs" >/dev/null)
done

try_one() {
  local pkg project name example runner
  pkg=$(cd "$1" && pwd)
  name=$(node -p 'require(process.argv[1]).name' "$pkg/package.json")
  project="$work/${name#@svir/}"
  mkdir "$project"
  cd "$project"
  node "$root/scripts/try-packed-example.mjs" "$pkg/README.md" > example.ts
  # What to install: the package, and every package the example imports, svir ones from their
  # tarballs, the others at the workspace's version.
  mapfile -t installs < <(node "$root/scripts/try-packed-example.mjs" --installs "$name" example.ts "$work/tarballs" "$root")
  npm init -y >/dev/null
  npm pkg set type=module
  # No lockfile: nothing written here names a registry.
  npm install --silent --prefer-offline --no-audit --no-fund --no-package-lock \
    --omit-lockfile-registry-resolved \
    "${installs[@]}" typescript@5.9.3 @types/node@20.19.43
  cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "exactOptionalPropertyTypes": true, "skipLibCheck": true, "outDir": "out", "types": ["node"] }, "files": ["example.ts"] }
JSON
  npx tsc -p tsconfig.json
  if grep -q 'vitest' example.ts; then
    runner="type-checked (it runs under vitest)"
  else
    node out/example.js >/dev/null
    runner="type-checked and ran"
  fi
  echo "$name: $(du -k "$work/tarballs/$(ls "$work/tarballs" | grep "^svir-${name#@svir/}-[0-9]")" | cut -f1) KiB packed, README example $runner"
}

if [ "$#" -eq 0 ]; then
  set -- "$root"/packages/*/
fi
for pkg in "$@"; do (try_one "$pkg"); done
