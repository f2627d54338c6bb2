#!/usr/bin/env bash
# Checks the Helm charts offline, as CI runs them: for every chart (each component alone and the
# umbrella) and every values set (defaults, deploy/helm/ci/*.yaml): `helm lint --strict`,
# `helm template`, and strict validation of every rendered manifest against the Kubernetes JSON
# schemas of several minor versions (kubernetes-validate; unknown fields are errors). Installs its
# tools first (scripts/k8s-tools.sh) and fails loudly when it cannot.
# Output: tmp/helm/<chart>--<values>.yaml (the probe test, test/helm, starts what they declare).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(bash scripts/k8s-tools.sh install)" || { echo "chart-check: ERROR: the chart tools could not be installed" >&2; exit 1; }
eval "$tools"

CHARTS=(dispatcher registry adapter-local adapter-mcp adapter-cloud toolhub)
VALUES=(default deploy/helm/ci/production.yaml deploy/helm/ci/minimal.yaml)
# Oldest and newest minor versions the chart supports (kubeVersion >=1.27: native gRPC probes are GA).
KUBE_VERSIONS=(${CHART_KUBE_VERSIONS:-1.28.0 1.33.0 1.37.0})
OUT=tmp/helm
rm -rf "$OUT" && mkdir -p "$OUT"
failures=0
fail() {
  echo "chart-check: FAIL: $*" >&2
  failures=$((failures + 1))
}

# Sub-charts come from file:// repositories: no network needed.
for chart in "${CHARTS[@]}"; do
  "$HELM" dependency build "deploy/helm/$chart" >/dev/null || fail "helm dependency build $chart"
done

for chart in "${CHARTS[@]}"; do
  for values in "${VALUES[@]}"; do
    args=()
    name=default
    if [ "$values" != default ]; then
      name="$(basename "$values" .yaml)"
      if [ "$chart" = toolhub ]; then
        # The umbrella takes each component's values under its key.
        for c in dispatcher registry adapter-local adapter-mcp adapter-cloud; do
          sed "s/^/  /" "$values" | { echo "$c:"; cat; } >>"$OUT/umbrella-$name.yaml"
        done
        args=(-f "$OUT/umbrella-$name.yaml")
      else
        args=(-f "$values")
      fi
    fi
    "$HELM" lint --strict --quiet --kube-version "${KUBE_VERSIONS[-1]}" "deploy/helm/$chart" "${args[@]}" >/dev/null || fail "helm lint $chart ($name)"
    for kube in "${KUBE_VERSIONS[@]}"; do
      rendered="$OUT/$chart--$name--$kube.yaml"
      if ! "$HELM" template "$chart" "deploy/helm/$chart" --kube-version "$kube" "${args[@]}" >"$rendered"; then
        fail "helm template $chart ($name, Kubernetes $kube)"
        continue
      fi
      report="$("$KUBERNETES_VALIDATE" --strict --quiet -k "$kube" "$rendered" 2>&1)" || fail "kubernetes-validate $chart ($name) against $kube: $report"
      # Only CRDs have no bundled schema (Prometheus Operator's ServiceMonitor and PrometheusRule,
      # Gateway API's GRPCRoute); anything else without one is a typo in apiVersion/kind.
      unknown="$(grep -vE "kind (ServiceMonitor|PrometheusRule) with api version monitoring.coreos.com/v1|kind GRPCRoute with api version gateway.networking.k8s.io/v1" <<<"$report" | grep -i "couldn't find schema" || true)"
      [ -z "$unknown" ] || fail "no schema for a kind in $chart ($name, $kube): $unknown"
    done
    cp "$OUT/$chart--$name--${KUBE_VERSIONS[-1]}.yaml" "$OUT/$chart--$name.yaml" 2>/dev/null || true
  done
done

# One values schema for every component chart (unknown keys fail), kept as identical copies; the
# dashboard the dispatcher chart ships is deploy/grafana/toolhub.json.
for chart in "${CHARTS[@]}"; do
  [ "$chart" = toolhub ] && continue
  cmp -s deploy/helm/dispatcher/values.schema.json "deploy/helm/$chart/values.schema.json" ||
    fail "deploy/helm/$chart/values.schema.json differs from deploy/helm/dispatcher/values.schema.json (copy it)"
done
cmp -s deploy/grafana/toolhub.json deploy/helm/dispatcher/files/grafana-dashboard.json ||
  fail "deploy/helm/dispatcher/files/grafana-dashboard.json differs from deploy/grafana/toolhub.json (copy it)"
# The schema catches what a reader would get wrong: a misspelt key, credentials inside nats.url.
for bad in "replicaCout=3" "nats.url=nats://user:secret@nats:4222" "shutdown.preStopSeconds=soon"; do
  if "$HELM" lint --strict --quiet --kube-version "${KUBE_VERSIONS[-1]}" deploy/helm/dispatcher --set "$bad" >/dev/null 2>&1; then
    fail "helm lint --strict accepted --set $bad (values.schema.json should refuse it)"
  fi
done
node scripts/chart-rules.mjs "$OUT" || fail "chart rules (scripts/chart-rules.mjs)"

count=$(ls "$OUT"/*--*--*.yaml 2>/dev/null | wc -l)
if [ "$failures" -gt 0 ]; then
  echo "chart-check: $failures failure(s) over $count rendered manifests" >&2
  exit 1
fi
echo "chart-check: ${#CHARTS[@]} charts x ${#VALUES[@]} values sets linted, rendered and validated strictly against Kubernetes ${KUBE_VERSIONS[*]} ($count manifests)" >&2
