{{- define "toolhub.service" -}}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  selector:
    {{- include "toolhub.selectorLabels" . | nindent 4 }}
  ports:
    {{- if .Values.ports.api }}
    - { name: grpc-api, port: {{ .Values.service.apiPort | default .Values.ports.api }}, targetPort: grpc-api, protocol: TCP, appProtocol: grpc }
    {{- end }}
    {{- if .Values.ports.mcp }}
    - { name: http-mcp, port: {{ .Values.ports.mcp }}, targetPort: http-mcp, protocol: TCP, appProtocol: http }
    {{- end }}
    {{- if .Values.ports.console }}
    - { name: http-console, port: {{ .Values.ports.console }}, targetPort: http-console, protocol: TCP, appProtocol: http }
    {{- end }}
    - { name: http-metrics, port: {{ .Values.ports.metrics }}, targetPort: http-metrics, protocol: TCP }
{{- end -}}

{{- define "toolhub.hpa" -}}
{{- if .Values.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "toolhub.fullname" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: { type: Utilization, averageUtilization: {{ .Values.autoscaling.targetCPUUtilizationPercentage }} }
    {{- with .Values.autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target: { type: Utilization, averageUtilization: {{ . }} }
    {{- end }}
{{- end }}
{{- end -}}

{{/* Only where replicas allow: a budget over one replica would block every node drain. */}}
{{- define "toolhub.pdb" -}}
{{- if and .Values.podDisruptionBudget.enabled (gt (int (include "toolhub.minReplicas" .)) 1) }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
spec:
  {{- if .Values.podDisruptionBudget.maxUnavailable }}
  maxUnavailable: {{ .Values.podDisruptionBudget.maxUnavailable }}
  {{- else }}
  minAvailable: {{ .Values.podDisruptionBudget.minAvailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "toolhub.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{- define "toolhub.servicemonitor" -}}
{{- if .Values.serviceMonitor.enabled }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
    {{- with .Values.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "toolhub.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: http-metrics
      path: /metrics
      interval: {{ .Values.serviceMonitor.interval }}
{{- end }}
{{- end -}}
