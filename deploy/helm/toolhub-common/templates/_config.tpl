{{- define "toolhub.configmap" -}}
{{- if .Values.configFiles }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
data:
  {{- range $name, $content := .Values.configFiles }}
  {{ $name }}: |
    {{- $content | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}

{{- define "toolhub.secret" -}}
{{- if and .Values.secret.values (not .Values.secret.existingSecret) }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
type: Opaque
stringData:
  {{- range $key, $value := .Values.secret.values }}
  {{ $key }}: {{ $value | quote }}
  {{- end }}
{{- end }}
{{- end -}}
