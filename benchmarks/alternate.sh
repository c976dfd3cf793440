#!/usr/bin/env bash
# Run one benchmark on two checkouts in turn, old then new, PAIRS times, in one window, so the
# machine's load falls on both ("Comparing two commits" in docs/benchmarks.md).
#
#   benchmarks/alternate.sh OLD_TREE NEW_TREE PAIRS MODULE [ARGS...]
#   benchmarks/alternate.sh /tmp/old . 2 benchmarks.rank_day
#   benchmarks/alternate.sh /tmp/old . 1 "$PWD/benchmarks/import_embeddings.py"
#
# MODULE is a module name, or a script's path (a script the old tree lacks, run on its code).
# Each run imports the tree it measures (PYTHONPATH, ahead of the editable install) with this
# checkout's virtual environment, from inside that tree, so relative paths and the data beside
# it resolve there (link ../shared next to an old tree made elsewhere). Output goes to stdout,
# each run under a "== old|new, pair N" heading.
set -euo pipefail
if [ "$#" -lt 4 ]; then
  sed -n '2,14p' "$0"
  exit 2
fi
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
pairs=$3
module=$4
shift 4
python=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python

for pair in $(seq 1 "$pairs"); do
  for side in old new; do
    tree=$old
    [ "$side" = new ] && tree=$new
    echo "== $side ($(git -C "$tree" rev-parse --short HEAD)), pair $pair: $module $*"
    if [[ "$module" == *.py ]]; then
      (cd "$tree" && PYTHONPATH="$tree" "$python" "$module" "$@")
    else
      (cd "$tree" && PYTHONPATH="$tree" "$python" -m "$module" "$@")
    fi
  done
done
