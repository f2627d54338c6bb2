#!/usr/bin/env node
// Rules over every manifest scripts/chart-check.sh rendered (tmp/helm/<chart>--<values>--<kube>.yaml),
// beyond what the Kubernetes schemas say:
//   - a PodDisruptionBudget only where at least 2 replicas run (replicas, or the HPA's minimum):
//     over one replica it would block every node drain;
//   - NATS credentials never in NATS_URL; NATS_PASSWORD only from a Secret;
//   - every app container has a preStop hook, and the grace period covers it plus the app's delay;
//   - the PrometheusRule alerts use only metrics the apps export (names in libs/ops/src and apps);
//   - the dashboard ConfigMap is deploy/grafana/toolhub.json, byte for byte.
// Usage: node scripts/chart-rules.mjs [dir]   exit 1 with one line per broken rule.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const dir = process.argv[2] ?? 'tmp/helm';
const files = readdirSync(dir).filter((f) => /--.*--.*\.yaml$/.test(f));
const problems = [];
const fail = (file, text) => problems.push(`${file}: ${text}`);

// Metric names the apps register: 'toolhub_…' string literals in libs and apps sources.
const exported = new Set();
const walk = (d) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'test' || e.name === 'gen') continue;
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/'(toolhub_[a-z0-9_]+)'/g)) exported.add(m[1]);
  }
};
walk('libs');
walk('apps');
const dashboard = readFileSync('deploy/grafana/toolhub.json', 'utf8');

for (const file of files) {
  const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => d.toJS()).filter(Boolean);
  const deployments = docs.filter((d) => d.kind === 'Deployment');
  for (const pdb of docs.filter((d) => d.kind === 'PodDisruptionBudget')) {
    const selector = JSON.stringify(pdb.spec.selector.matchLabels);
    const dep = deployments.find((d) => JSON.stringify(d.spec.selector.matchLabels) === selector);
    const hpa = docs.find((d) => d.kind === 'HorizontalPodAutoscaler' && d.spec.scaleTargetRef.name === dep?.metadata.name);
    const min = hpa ? hpa.spec.minReplicas : (dep?.spec.replicas ?? 1);
    if (min < 2) fail(file, `PodDisruptionBudget ${pdb.metadata.name} over ${min} replica(s) would block node drains`);
  }
  for (const dep of deployments) {
    const pod = dep.spec.template.spec;
    const app = pod.containers[0];
    const env = Object.fromEntries(app.env.map((e) => [e.name, e]));
    if (/@/.test(env.NATS_URL?.value ?? '')) fail(file, `${dep.metadata.name}: credentials inside NATS_URL`);
    if (env.NATS_PASSWORD && !env.NATS_PASSWORD.valueFrom?.secretKeyRef) fail(file, `${dep.metadata.name}: NATS_PASSWORD not from a Secret`);
    const preStop = app.lifecycle?.preStop;
    if (!preStop) fail(file, `${dep.metadata.name}: no preStop hook`);
    const sleep = Number(preStop?.exec?.command?.[1] ?? preStop?.sleep?.seconds ?? 0);
    const delay = Number(env.TOOLHUB_SHUTDOWN_DELAY_MS?.value ?? 0) / 1000;
    if (!(pod.terminationGracePeriodSeconds > sleep + delay)) fail(file, `${dep.metadata.name}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} does not cover preStop ${sleep}s + app delay ${delay}s + a drain`);
  }
  for (const rule of docs.filter((d) => d.kind === 'PrometheusRule')) {
    for (const r of rule.spec.groups.flatMap((g) => g.rules)) {
      for (const [name] of r.expr.matchAll(/toolhub_[a-z0-9_]+/g)) {
        const base = name.replace(/_(count|bucket|sum)$/, '');
        if (!exported.has(base)) fail(file, `alert ${r.alert} uses ${name}, which no app exports`);
      }
    }
  }
  for (const cm of docs.filter((d) => d.kind === 'ConfigMap' && d.data?.['toolhub.json'] !== undefined)) {
    if (cm.data['toolhub.json'].trim() !== dashboard.trim()) fail(file, `${cm.metadata.name} differs from deploy/grafana/toolhub.json (copy it to deploy/helm/dispatcher/files/grafana-dashboard.json)`);
  }
}
if (problems.length) {
  for (const p of problems) console.error(`chart-rules: FAIL: ${p}`);
  process.exit(1);
}
console.error(`chart-rules: ${files.length} rendered manifests follow the rules (PDB, NATS credentials, preStop/grace, alert metrics, dashboard)`);
