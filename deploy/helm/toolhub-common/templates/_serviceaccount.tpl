{{- define "toolhub.serviceaccount" -}}
{{- if .Values.serviceAccount.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "toolhub.serviceAccountName" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# ToolHub apps never call the Kubernetes API.
automountServiceAccountToken: false
{{- end }}
{{- end -}}
