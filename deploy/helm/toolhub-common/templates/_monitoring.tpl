{{/*
Alerts and the Grafana dashboard, shipped by the dispatcher chart (monitoring.*). The alerts use
the metrics the apps export (libs/ops: dispatcher-metrics.ts, registry-metrics.ts) for the
failure modes the chaos suite knows: the registry's consumer lagging or stopped, calls shed by
the dispatcher's admission/limits, an adapter with no replica, the event outbox growing.
*/}}
{{- define "toolhub.monitoring" -}}
{{- $m := .Values.monitoring }}
{{- if $m.prometheusRule.enabled }}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "toolhub.fullname" . }}-alerts
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
    {{- with $m.prometheusRule.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  groups:
    - name: toolhub
      rules:
        - alert: ToolHubRegistryConsumerLag
          expr: max(toolhub_registry_consumer_lag_events) > {{ $m.thresholds.consumerLagEvents }}
          for: {{ $m.thresholds.for }}
          labels: { severity: warning }
          annotations:
            summary: "The registry is {{ "{{" }} $value {{ "}}" }} tool.called events behind"
            description: "Statistics lag the calls. Check the registry's MongoDB and CPU, or add registry replicas (they share the durable consumer)."
        - alert: ToolHubRegistryConsumerStopped
          expr: min(toolhub_registry_consumer_running) == 0
          for: {{ $m.thresholds.for }}
          labels: { severity: critical }
          annotations:
            summary: "A registry's tool.called consumer is not running"
            description: "No statistics are counted by that replica; its readiness is off. Check NATS (JetStream) and the registry's logs."
        - alert: ToolHubCallsShed
          expr: sum(rate(toolhub_runtool_duration_seconds_count{status="rate_limited"}[5m])) > {{ $m.thresholds.shedCallsPerSecond }}
          for: {{ $m.thresholds.for }}
          labels: { severity: warning }
          annotations:
            summary: "The dispatcher refuses {{ "{{" }} $value {{ "}}" }} calls/s (rate_limited: shed or over a caller's limit)"
            description: "Raise TOOLHUB_MAX_CONCURRENT_RUNS / TOOLHUB_MAX_QUEUED_RUNS or the HPA's maximum, or find the caller over TOOLHUB_MAX_CONCURRENT_PER_CALLER."
        - alert: ToolHubAdapterDown
          expr: max by (provider) (toolhub_provider_replicas) == 0 or min by (provider) (toolhub_provider_healthy) == 0
          for: {{ $m.thresholds.for }}
          labels: { severity: critical }
          annotations:
            summary: "Provider {{ "{{" }} $labels.provider {{ "}}" }} has no healthy adapter replica"
            description: "Calls to its tools fail with unavailable. Check the adapter's pods and its NATS user."
        - alert: ToolHubEventOutboxGrowing
          expr: sum(toolhub_event_outbox_depth) > {{ $m.thresholds.outboxDepth }} and sum(delta(toolhub_event_outbox_depth[10m])) > 0
          for: {{ $m.thresholds.for }}
          labels: { severity: warning }
          annotations:
            summary: "{{ "{{" }} $value {{ "}}" }} tool.called events wait in the dispatchers' outboxes"
            description: "JetStream does not acknowledge the events (NATS down or the stream full); they are kept on disk and published when it answers. Check NATS."
        - alert: ToolHubEventsDropped
          expr: sum(rate(toolhub_events_dropped_total[5m])) > 0
          for: {{ $m.thresholds.for }}
          labels: { severity: critical }
          annotations:
            summary: "The dispatcher drops tool.called events"
            description: "Statistics lose calls. Check NATS and the outbox volume (TOOLHUB_OUTBOX_DIR)."
{{- end }}
{{- if $m.dashboard.enabled }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "toolhub.fullname" . }}-dashboard
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
    # Picked up by the Grafana sidecar (kube-prometheus-stack: sidecar.dashboards.label).
    {{ $m.dashboard.label }}: {{ $m.dashboard.labelValue | quote }}
  {{- with $m.dashboard.folder }}
  annotations:
    grafana_folder: {{ . | quote }}
  {{- end }}
data:
  toolhub.json: |-
    {{- required "files/grafana-dashboard.json is missing from this chart" (.Files.Get "files/grafana-dashboard.json") | nindent 4 }}
{{- end }}
{{- end -}}
