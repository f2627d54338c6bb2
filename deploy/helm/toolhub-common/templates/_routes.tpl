{{/*
Ingress and Gateway API GRPCRoute for the component's API port (dispatcher: agents; registry:
admin). gRPC needs HTTP/2 end to end: for ingress-nginx set the annotation
nginx.ingress.kubernetes.io/backend-protocol: GRPC (the default annotations do); other
controllers have their own. ingress.servicePort picks another named port (http-mcp, http-console).
*/}}
{{- define "toolhub.ingress" -}}
{{- if and .Values.ingress.enabled .Values.ports.api }}
{{- $port := .Values.ingress.servicePort | default "grpc-api" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
  {{- with .Values.ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .Values.ingress.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with .Values.ingress.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- range .Values.ingress.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
          {{- range (.paths | default (list (dict "path" "/" "pathType" "Prefix"))) }}
          - path: {{ .path }}
            pathType: {{ .pathType | default "Prefix" }}
            backend:
              service:
                name: {{ include "toolhub.fullname" $ }}
                port: { name: {{ $port }} }
          {{- end }}
    {{- end }}
{{- end }}
{{- end -}}

{{- define "toolhub.grpcroute" -}}
{{- if and .Values.grpcRoute.enabled .Values.ports.api }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
  {{- with .Values.grpcRoute.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  parentRefs:
    {{- required "grpcRoute.parentRefs: name the Gateway (e.g. [{name: my-gateway, namespace: gateways}])" .Values.grpcRoute.parentRefs | toYaml | nindent 4 }}
  {{- with .Values.grpcRoute.hostnames }}
  hostnames:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    - backendRefs:
        - name: {{ include "toolhub.fullname" . }}
          port: {{ .Values.service.apiPort | default .Values.ports.api }}
{{- end }}
{{- end -}}

{{/* `helm test <release>`: a pod of the component's own image asks its Service for /readyz. */}}
{{- define "toolhub.test" -}}
---
apiVersion: v1
kind: Pod
metadata:
  name: {{ include "toolhub.fullname" . }}-test
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/component: helm-test
    app.kubernetes.io/part-of: toolhub
  annotations:
    helm.sh/hook: test
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  containers:
    - name: ready
      image: {{ include "toolhub.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      command:
        - node
        - -e
        - >-
          const url = process.argv[1];
          require('http').get(url, (r) => { console.log(url, r.statusCode); process.exit(r.statusCode === 200 ? 0 : 1); })
          .on('error', (e) => { console.error(url, e.message); process.exit(1); });
        - {{ printf "http://%s:%v/readyz" (include "toolhub.fullname" .) .Values.ports.metrics | quote }}
      resources:
        requests: { cpu: 10m, memory: 32Mi }
        limits: { memory: 128Mi }
      securityContext:
        {{- toYaml .Values.containerSecurityContext | nindent 8 }}
{{- end -}}

{{- define "toolhub.notes" -}}
ToolHub {{ .Values.component }} {{ .Values.image.tag | default .Chart.AppVersion }} is installed as {{ include "toolhub.fullname" . }} in namespace {{ .Release.Namespace }}.

Check it:
  kubectl -n {{ .Release.Namespace }} rollout status deployment/{{ include "toolhub.fullname" . }}
  helm test {{ .Release.Name }} -n {{ .Release.Namespace }}     # a pod asks /readyz on the metrics port
{{- if .Values.ports.api }}

API (gRPC, port {{ .Values.service.apiPort | default .Values.ports.api }}){{ if .Values.auth.allowUnauthenticated }}: NO AUTHENTICATION (only behind a proxy that authenticates){{ else }}: API keys from Secret {{ include "toolhub.authSecretName" . }}{{ end }}
  kubectl -n {{ .Release.Namespace }} port-forward svc/{{ include "toolhub.fullname" . }} {{ .Values.ports.api }}
  grpcurl -plaintext -H "x-api-key: $KEY" 127.0.0.1:{{ .Values.ports.api }} list
{{- if and .Values.ingress.enabled .Values.ports.api }}
  Ingress: {{ range .Values.ingress.hosts }}{{ .host }} {{ end }}
{{- end }}
{{- if and .Values.grpcRoute.enabled .Values.ports.api }}
  GRPCRoute: {{ join ", " (.Values.grpcRoute.hostnames | default (list "(the Gateway's)")) }}
{{- end }}
{{- end }}
{{- if .Values.ports.mcp }}
MCP (Streamable HTTP): port {{ .Values.ports.mcp }}, path /mcp
{{- end }}
{{- if .Values.ports.console }}
Console: port {{ .Values.ports.console }}
{{- end }}

NATS: {{ .Values.nats.url }}{{ if .Values.nats.auth.enabled }} as user {{ .Values.nats.auth.user }} (password from Secret {{ include "toolhub.natsAuthSecretName" . }}){{ else }} WITHOUT a NATS user: set nats.auth for per-service users and permissions (deploy/nats/toolhub-auth.conf){{ end }}
{{- if .Values.persistence.mountPath }}
{{ .Values.persistence.mountPath }}: {{ if .Values.persistence.enabled }}PersistentVolumeClaim {{ .Values.persistence.existingClaim | default (printf "%s-data" (include "toolhub.fullname" .)) }}{{ else }}emptyDir — survives container restarts, NOT rescheduling (persistence.enabled for a PVC){{ end }}
{{- end }}
{{- if and .Values.podDisruptionBudget.enabled (le (int (include "toolhub.minReplicas" .)) 1) }}
PodDisruptionBudget: not created (one replica; a budget would block node drains)
{{- end }}
Metrics: :{{ .Values.ports.metrics }}/metrics{{ if .Values.serviceMonitor.enabled }} (ServiceMonitor on){{ end }}
{{- end -}}
