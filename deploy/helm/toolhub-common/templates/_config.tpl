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

{{/* API keys of an API-serving component (dispatcher, registry): a Secret mounted as a directory. */}}
{{- define "toolhub.authSecretName" -}}
{{- default (printf "%s-api-keys" (include "toolhub.fullname" .)) .Values.auth.existingSecret -}}
{{- end -}}

{{- define "toolhub.authSecret" -}}
{{- if and .Values.ports.api .Values.auth.apiKeys (not .Values.auth.existingSecret) }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "toolhub.authSecretName" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
type: Opaque
stringData:
  api-keys.json: {{ .Values.auth.apiKeys | quote }}
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
