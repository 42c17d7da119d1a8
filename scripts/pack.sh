#!/usr/bin/env bash
# Packs every svir package into packs/ as the registry would ship it, named without its version
# (packs/svir-core.tgz), so the README's install line does not change with each release.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf packs && mkdir packs
for dir in packages/*/; do
  file=$(cd "$dir" && npm pack --silent --pack-destination ../../packs)
  mv "packs/$file" "packs/${file%-[0-9]*.tgz}.tgz"
done
ls packs
