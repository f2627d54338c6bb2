{{/* Name of a component's objects: <release>-<component>, or fullnameOverride. */}}
{{- define "toolhub.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Values.component .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Values.component | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "toolhub.selectorLabels" -}}
app.kubernetes.io/name: toolhub-{{ .Values.component }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "toolhub.labels" -}}
{{ include "toolhub.selectorLabels" . }}
app.kubernetes.io/component: {{ .Values.component }}
app.kubernetes.io/part-of: toolhub
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "toolhub.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "toolhub.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "toolhub.secretName" -}}
{{- default (include "toolhub.fullname" .) .Values.secret.existingSecret -}}
{{- end -}}

{{/* Every object of a component, in one include: what each component chart renders. */}}
{{- define "toolhub.component" -}}
{{ include "toolhub.serviceaccount" . }}
{{ include "toolhub.configmap" . }}
{{ include "toolhub.secret" . }}
{{ include "toolhub.natsAuthSecret" . }}
{{ include "toolhub.pvc" . }}
{{ include "toolhub.authSecret" . }}
{{ include "toolhub.deployment" . }}
{{ include "toolhub.service" . }}
{{ include "toolhub.hpa" . }}
{{ include "toolhub.pdb" . }}
{{ include "toolhub.networkpolicy" . }}
{{ include "toolhub.servicemonitor" . }}
{{ include "toolhub.ingress" . }}
{{ include "toolhub.grpcroute" . }}
{{- end -}}
