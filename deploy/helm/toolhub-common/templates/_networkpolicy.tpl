{{/*
Default deny, then: the API port only from .networkPolicy.apiClients (dispatcher: agents; registry:
admin clients; adapters have no API port), metrics only from .networkPolicy.metricsClients, and
egress only to NATS (every component), DNS, and .networkPolicy.extraEgress (dispatcher: Redis;
registry: MongoDB; an adapter: the APIs it calls). Components talk to each other only through NATS.
Kubelet probes come from the node and are not subject to NetworkPolicy in the common CNIs.
*/}}
{{- define "toolhub.networkpolicy" -}}
{{- if .Values.networkPolicy.enabled }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "toolhub.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if and .Values.ports.api .Values.networkPolicy.apiClients }}
    - from:
        {{- toYaml .Values.networkPolicy.apiClients | nindent 8 }}
      ports:
        - { port: {{ .Values.ports.api }}, protocol: TCP }
    {{- end }}
    {{- if .Values.ports.mcp }}
    - from:
        {{- toYaml (.Values.networkPolicy.mcpClients | default .Values.networkPolicy.apiClients) | nindent 8 }}
      ports:
        - { port: {{ .Values.ports.mcp }}, protocol: TCP }
    {{- end }}
    {{- if and .Values.ports.console .Values.networkPolicy.apiClients }}
    - from:
        {{- toYaml .Values.networkPolicy.apiClients | nindent 8 }}
      ports:
        - { port: {{ .Values.ports.console }}, protocol: TCP }
    {{- end }}
    # `helm test` checks readiness on the metrics port from a pod of this release.
    - from:
        - podSelector:
            matchLabels: { app.kubernetes.io/instance: {{ .Release.Name }}, app.kubernetes.io/component: helm-test }
      ports:
        - { port: {{ .Values.ports.metrics }}, protocol: TCP }
    {{- if .Values.networkPolicy.metricsClients }}
    - from:
        {{- toYaml .Values.networkPolicy.metricsClients | nindent 8 }}
      ports:
        - { port: {{ .Values.ports.metrics }}, protocol: TCP }
    {{- end }}
  egress:
    - to:
        {{- toYaml .Values.nats.networkPeers | nindent 8 }}
      ports:
        - { port: {{ .Values.nats.port }}, protocol: TCP }
    {{- if .Values.networkPolicy.dns }}
    - to:
        - namespaceSelector: {}
          podSelector:
            matchLabels: { k8s-app: kube-dns }
      ports:
        - { port: 53, protocol: UDP }
        - { port: 53, protocol: TCP }
    {{- end }}
    {{- with .Values.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}
{{- end -}}
