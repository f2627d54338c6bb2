#!/usr/bin/env bash
# Runs the five timing-fragile tests of issue 36 N times each (default 20), one Jest process per run,
# and prints passes/failures per test; writes tmp/flake-check.json and keeps each failing run's log
# in tmp/flake-check/. Not part of test-all: it is the "20 times in a row beside a full test:all" check.
#   bash scripts/flake-check.sh [N]
# The integration tests need the local services (eval "$(bash scripts/services.sh up)" first, as for
# test:all). Exit status 1 when any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

N="${1:-20}"
if ! [[ "$N" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: bash scripts/flake-check.sh [N]   (N = runs per test, a positive integer; got '$N')" >&2
  exit 2
fi

# path:project — the Jest project each file belongs to (the path goes first: --selectProjects takes every later argument).
TESTS=(
  "libs/dispatcher-core/test/resilience.test.ts:unit"
  "libs/cache/test/redis.resilience.int.test.ts:integration"
  "libs/store/test/kill.int.test.ts:integration"
  "test/e2e/failover.int.test.ts:integration"
  "test/e2e/redis-down.int.test.ts:integration"
)

mkdir -p tmp/flake-check
rm -f tmp/flake-check/*.log
results=()
failed_any=0
for entry in "${TESTS[@]}"; do
  path="${entry%%:*}"
  project="${entry##*:}"
  name="$(basename "$path" .ts)"
  passes=0
  failures=0
  failed_runs=()
  total_s=0
  for ((i = 1; i <= N; i++)); do
    log="tmp/flake-check/${name}-${i}.log"
    start=$(date +%s)
    if npx jest "$path" --runInBand --selectProjects "$project" >"$log" 2>&1; then
      passes=$((passes + 1))
      rm -f "$log"
    else
      failures=$((failures + 1))
      failed_runs+=("$i")
      failed_any=1
    fi
    total_s=$((total_s + $(date +%s) - start))
    printf '%s run %d/%d: %s\n' "$name" "$i" "$N" "$([[ -f "$log" ]] && echo "FAIL (log: $log)" || echo pass)"
  done
  runs_json="$(IFS=,; echo "${failed_runs[*]:-}")"
  results+=("{\"test\":\"$path\",\"project\":\"$project\",\"runs\":$N,\"passes\":$passes,\"failures\":$failures,\"failedRuns\":[${runs_json}],\"meanSeconds\":$((total_s / N))}")
done

json="{\"runsPerTest\":$N,\"finishedAt\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"results\":[$(IFS=,; echo "${results[*]}")]}"
printf '%s\n' "$json" >tmp/flake-check.json

echo
node -e '
const r = JSON.parse(require("fs").readFileSync("tmp/flake-check.json", "utf8"));
const rows = r.results.map((t) => [t.test, `${t.passes}/${t.runs}`, String(t.failures), t.failedRuns.join(" ") || "-", `${t.meanSeconds} s`]);
const head = ["test", "passes", "failures", "failed runs", "mean"];
const w = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (c) => c.map((x, i) => x.padEnd(w[i])).join("  ");
console.log(line(head));
for (const row of rows) console.log(line(row));
console.log("\nwritten: tmp/flake-check.json" + (r.results.some((t) => t.failures) ? "; failing runs logged in tmp/flake-check/" : ""));
'
exit "$failed_any"
