#!/usr/bin/env bash
# Packs a package, installs the tarball into a new project, and type-checks and runs the first
# TypeScript example of its README there, as a user would after `npm install`.
# Usage: scripts/try-packed.sh packages/core [extra packages to install...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=$(cd "$1" && pwd)
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(cd "$pkg" && npm pack --silent --pack-destination "$work")
echo "packed $tarball: $(du -k "$work/$tarball" | cut -f1) KiB"
cd "$work"
npm init -y >/dev/null
npm pkg set type=module
npm install --silent --prefer-offline --no-audit --no-fund "./$tarball" effect@4.1.0 typescript@5.9.3 @types/node@20.19.43 "$@"
awk '/^```ts$/{if(done)exit; f=1; next} /^```$/{if(f)done=1; f=0} f' "$pkg/README.md" > example.ts
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "exactOptionalPropertyTypes": true, "skipLibCheck": true, "outDir": "out", "types": ["node"] }, "files": ["example.ts"] }
JSON
npx tsc -p tsconfig.json
node out/example.js
echo "README example type-checked and ran"
