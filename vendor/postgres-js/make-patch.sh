#!/bin/sh
# Prints the diff between the published postgres@3.4.9 (from Deno's npm cache) and this directory.
# Usage: sh vendor/postgres-js/make-patch.sh > vendor/postgres-js/PATCH.diff
set -e
here=$(cd "$(dirname "$0")" && pwd)
(cd "$(mktemp -d)" && deno cache --no-config --no-lock "npm:postgres@3.4.9" >/dev/null 2>&1) || true
npm_cache=$(deno info --json | sed -n 's/.*"npmCache": *"\([^"]*\)".*/\1/p')
pkg="$npm_cache/registry.npmjs.org/postgres/3.4.9"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"
cp "$pkg"/src/*.js "$tmp/a/"
cp "$pkg/types/index.d.ts" "$tmp/a/"
cp "$here"/*.js "$here/index.d.ts" "$tmp/b/"
cd "$tmp"
diff -ruN a b | sed -E 's/^(---|\+\+\+) ([^\t]+)\t.*/\1 \2/' || true
