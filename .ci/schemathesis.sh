#!/usr/bin/env bash
# Fuzz every operation of the JSON API (/api/openapi.json) against a real server: uvicorn on a
# SQLite database holding the bundled sample ranked into three days of editions. Fails on any
# server error (5xx) and on any answer the document does not describe: an undocumented status
# code, content type or header, or a body that breaks its schema; and when invalid input is
# accepted. Bounded to about three minutes.
# Usage: .ci/schemathesis.sh [extra schemathesis options, e.g. --seed N to replay a run]
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

export PAPERBOY_DATA_DIR="$work/data"
export PAPERBOY_API_RATE_LIMIT_PER_MINUTE=0
port=${SCHEMATHESIS_PORT:-8765}
examples=${SCHEMATHESIS_EXAMPLES:-100}
budget=${SCHEMATHESIS_SECONDS:-150}  # fuzzing and stateful phases repeat until it is spent
checks=${SCHEMATHESIS_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection}

echo "-- a ranked database from the bundled sample, with its Hugging Face signals"
paperboy=".venv/bin/python -m app.cli.main"  # this tree's code, whatever the venv was installed from
$paperboy migrate > /dev/null
$paperboy import app/sample/arxiv_listings_sample.jsonl.gz --quiet
$paperboy import-embeddings --matrix app/sample/sample_embeddings.f16.npy \
  --ids app/sample/sample_embeddings.ids.json --quiet
# Real Hugging Face signals of the sample's papers, so HF's optional keys appear in answers.
$paperboy import-hf-signals app/sample/hf_daily_sample.jsonl > /dev/null
for day in 2025-12-17 2025-12-18 2025-12-19; do
  $paperboy rank --date "$day" > /dev/null
  $paperboy publish --date "$day" > /dev/null
done

echo "-- the server on 127.0.0.1:$port"
.venv/bin/uvicorn app.web.app:create_app --factory --host 127.0.0.1 --port "$port" \
  --log-level warning > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 60); do
  .venv/bin/python -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
    "http://127.0.0.1:$port/healthz" 2> /dev/null && break
  if ! kill -0 "$server" 2> /dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 1
done

# Values at and past the ends of what a URL may name (tests/extremes.py), drawn for every
# string parameter now and then and for a parameter of their kind (an identifier, a day, a
# week, a month) often: nothing the schema generates on its own reaches a version longer than
# int() reads or the last week of 9999. Those the schema allows come as valid input, the
# others as invalid input the server must refuse.
.venv/bin/python -m tests.extremes "$work"  # writes $work/schemathesis.toml

echo "-- schemathesis: every operation, up to $examples examples each per phase for ${budget}s,"
echo "   checks: $checks"
status=0
timeout 240 .venv/bin/schemathesis --config-file "$work/schemathesis.toml" \
  run "http://127.0.0.1:$port/api/openapi.json" \
  --checks "$checks" --max-examples "$examples" \
  --max-time "$budget" \
  --generation-database none --no-color --workers 1 --request-timeout 30 "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "-- server log (last 60 lines)"
  tail -n 60 "$work/server.log"
fi
exit "$status"
