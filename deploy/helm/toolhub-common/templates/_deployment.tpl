{{- define "toolhub.image" -}}
{{- $registry := .Values.image.registry | default ((.Values.global).imageRegistry) -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if $registry }}{{ printf "%s/%s:%s" $registry .Values.image.repository $tag }}{{ else }}{{ printf "%s:%s" .Values.image.repository $tag }}{{ end -}}
{{- end -}}

{{/* Replicas the component runs at least: the HPA's minimum, or replicaCount. */}}
{{- define "toolhub.minReplicas" -}}
{{- if .Values.autoscaling.enabled }}{{ .Values.autoscaling.minReplicas }}{{ else }}{{ .Values.replicaCount }}{{ end -}}
{{- end -}}

{{/* Grace = the preStop delay + the app's own delay + its drain + 5 s for NATS to flush; at least what was set. */}}
{{- define "toolhub.terminationGrace" -}}
{{- max (int .Values.terminationGracePeriodSeconds) (add (int .Values.shutdown.preStopSeconds) (int .Values.shutdown.appDelaySeconds) (int .Values.shutdown.drainSeconds) 5) -}}
{{- end -}}

{{- define "toolhub.natsAuthSecretName" -}}
{{- default (printf "%s-nats" (include "toolhub.fullname" .)) .Values.nats.auth.existingSecret -}}
{{- end -}}

{{- define "toolhub.deployment" -}}
{{- if contains "@" .Values.nats.url }}
{{- fail "nats.url must not carry credentials (user:password@): put them in a Secret and set nats.auth (existingSecret, user) instead" }}
{{- end }}
{{- if and .Values.persistence.enabled (has "ReadWriteOnce" .Values.persistence.accessModes) (or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1)) }}
{{- fail (printf "persistence.accessModes [ReadWriteOnce] cannot be shared by %s replicas: use ReadWriteMany (a shared file system) or one replica without autoscaling" .Values.component) }}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "toolhub.fullname" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "toolhub.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate: { maxUnavailable: 0, maxSurge: 1 }
  template:
    metadata:
      labels:
        {{- include "toolhub.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when their config files or credentials change.
        checksum/config: {{ toJson .Values.configFiles | sha256sum }}
        checksum/secret: {{ toJson (list .Values.secret .Values.nats.auth) | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "toolhub.serviceAccountName" . }}
      automountServiceAccountToken: false
      # SIGTERM comes after the preStop delay (endpoints removed, calls still served); then the app
      # turns readiness off, finishes in-flight calls and drains NATS within shutdown.drainSeconds.
      terminationGracePeriodSeconds: {{ include "toolhub.terminationGrace" . }}
      securityContext:
        {{- toYaml .Values.podSecurityContext | nindent 8 }}
      {{- with (concat ((.Values.global).imagePullSecrets | default list) .Values.imagePullSecrets) | uniq }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.initContainers }}
      initContainers:
        {{- tpl (toYaml .) $ | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .Values.component }}
          image: {{ include "toolhub.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          command: {{ toJson .Values.command }}
          ports:
            {{- if .Values.ports.api }}
            - { name: grpc-api, containerPort: {{ .Values.ports.api }}, protocol: TCP }
            {{- end }}
            {{- if .Values.ports.mcp }}
            - { name: http-mcp, containerPort: {{ .Values.ports.mcp }}, protocol: TCP }
            {{- end }}
            {{- if .Values.ports.console }}
            - { name: http-console, containerPort: {{ .Values.ports.console }}, protocol: TCP }
            {{- end }}
            - { name: grpc-health, containerPort: {{ .Values.ports.health }}, protocol: TCP }
            - { name: http-metrics, containerPort: {{ .Values.ports.metrics }}, protocol: TCP }
          env:
            - { name: NATS_URL, value: {{ required "nats.url is required (e.g. nats://nats.nats.svc:4222)" .Values.nats.url | quote }} }
            {{- if .Values.nats.auth.enabled }}
            # The component's own NATS user (deploy/nats/toolhub-auth.conf); the password from a Secret.
            - { name: NATS_USER, value: {{ required "nats.auth.user is required when nats.auth.enabled" .Values.nats.auth.user | quote }} }
            - name: NATS_PASSWORD
              valueFrom: { secretKeyRef: { name: {{ include "toolhub.natsAuthSecretName" . }}, key: {{ .Values.nats.auth.passwordKey }} } }
            - { name: NATS_INBOX_PREFIX, value: {{ .Values.nats.auth.inboxPrefix | default (printf "_INBOX_%s" .Values.nats.auth.user) | quote }} }
            {{- end }}
            - { name: TOOLHUB_OPS_HOST, value: "0.0.0.0" }
            # Health and /metrics have no auth; the pod network is the boundary (NetworkPolicy), so the opt-in is explicit.
            - { name: TOOLHUB_OPS_PUBLIC, value: "true" }
            - { name: TOOLHUB_HEALTH_PORT, value: {{ .Values.ports.health | quote }} }
            - { name: TOOLHUB_METRICS_PORT, value: {{ .Values.ports.metrics | quote }} }
            # npm/npx caches of MCP servers and other home-directory writes land on the writable /tmp.
            - { name: HOME, value: /tmp }
            # Drain on SIGTERM (the preStop hook already kept serving while endpoints went away).
            - { name: TOOLHUB_SHUTDOWN_DELAY_MS, value: {{ mul (int .Values.shutdown.appDelaySeconds) 1000 | quote }} }
            {{- if .Values.ports.api }}
            # Connections end after this age (with a grace for calls in flight), so clients spread
            # over replicas the HPA added.
            - { name: TOOLHUB_GRPC_MAX_CONNECTION_AGE_MS, value: {{ .Values.grpc.maxConnectionAgeMs | quote }} }
            {{- end }}
            {{- if .Values.ports.mcp }}
            - { name: TOOLHUB_MCP_HOST, value: "0.0.0.0" }
            - { name: TOOLHUB_MCP_PORT, value: {{ .Values.ports.mcp | quote }} }
            {{- end }}
            {{- if .Values.ports.console }}
            - { name: TOOLHUB_CONSOLE_HOST, value: "0.0.0.0" }
            - { name: TOOLHUB_CONSOLE_PORT, value: {{ .Values.ports.console | quote }} }
            {{- end }}
            {{- if .Values.ports.api }}
            {{- if .Values.auth.allowUnauthenticated }}
            # Only behind a proxy that authenticates every call.
            - { name: TOOLHUB_ALLOW_UNAUTHENTICATED, value: "true" }
            {{- else }}
            # API keys (hashed), re-read when the Secret changes; JWT/mTLS settings go in env.
            - { name: TOOLHUB_AUTH_API_KEYS, value: /run/toolhub/api-keys }
            {{- end }}
            {{- end }}
            {{- range $name, $value := .Values.env }}
            - { name: {{ $name }}, value: {{ tpl (toString $value) $ | quote }} }
            {{- end }}
            {{- range .Values.secretEnv }}
            - name: {{ . }}
              valueFrom: { secretKeyRef: { name: {{ include "toolhub.secretName" $ }}, key: {{ . }} } }
            {{- end }}
            {{- with .Values.extraEnv }}
            {{- tpl (toYaml .) $ | nindent 12 }}
            {{- end }}
          {{- with .Values.extraEnvFrom }}
          envFrom:
            {{- tpl (toYaml .) $ | nindent 12 }}
          {{- end }}
          # Native gRPC probes against grpc.health.v1 (see libs/ops): readiness = the app's
          # dependencies answer; liveness = the process answers (a down dependency never restarts it).
          startupProbe:
            grpc: { port: {{ .Values.ports.health }}, service: liveness }
            periodSeconds: 2
            failureThreshold: 60
          readinessProbe:
            grpc: { port: {{ .Values.ports.health }}, service: readiness }
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          livenessProbe:
            grpc: { port: {{ .Values.ports.health }}, service: liveness }
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 6
          lifecycle:
            {{- if .Values.lifecycle }}
            {{- toYaml .Values.lifecycle | nindent 12 }}
            {{- else }}
            # Kubernetes removes the pod from its Services while this runs; the app keeps serving.
            preStop:
              exec: { command: ["sleep", {{ .Values.shutdown.preStopSeconds | quote }}] }
            {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            {{- toYaml .Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            {{- if .Values.persistence.mountPath }}
            - { name: data, mountPath: {{ .Values.persistence.mountPath }} }
            {{- end }}
            {{- if .Values.configFiles }}
            - { name: config, mountPath: {{ .Values.configMountPath }}, readOnly: true }
            {{- end }}
            {{- if and .Values.ports.api (not .Values.auth.allowUnauthenticated) }}
            - { name: api-keys, mountPath: /run/toolhub/api-keys, readOnly: true }
            {{- end }}
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
        {{- with .Values.sidecars }}
        {{- tpl (toYaml .) $ | nindent 8 }}
        {{- end }}
      volumes:
        - name: tmp
          emptyDir: { sizeLimit: {{ .Values.tmpSizeLimit }} }
        {{- if .Values.persistence.mountPath }}
        - name: data
          {{- if .Values.persistence.enabled }}
          persistentVolumeClaim: { claimName: {{ .Values.persistence.existingClaim | default (printf "%s-data" (include "toolhub.fullname" .)) }} }
          {{- else }}
          # Lives as long as the pod (survives container restarts, not rescheduling): persistence.enabled for a PVC.
          emptyDir: { sizeLimit: {{ .Values.persistence.size }} }
          {{- end }}
        {{- end }}
        {{- if .Values.configFiles }}
        - name: config
          configMap: { name: {{ include "toolhub.fullname" . }} }
        {{- end }}
        {{- if and .Values.ports.api (not .Values.auth.allowUnauthenticated) }}
        - name: api-keys
          secret: { secretName: {{ include "toolhub.authSecretName" . }} }
        {{- end }}
        {{- with .Values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      topologySpreadConstraints:
        {{- if .Values.topologySpreadConstraints }}
        {{- tpl (toYaml .Values.topologySpreadConstraints) $ | nindent 8 }}
        {{- else }}
        # Replicas spread over nodes and zones where the cluster allows (never blocks scheduling).
        {{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
        - maxSkew: 1
          topologyKey: {{ . }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "toolhub.selectorLabels" $ | nindent 14 }}
        {{- end }}
        {{- end }}
{{- end -}}

{{- define "toolhub.pvc" -}}
{{- if and .Values.persistence.mountPath .Values.persistence.enabled (not .Values.persistence.existingClaim) }}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ include "toolhub.fullname" . }}-data
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
  {{- if .Values.persistence.keep }}
  annotations:
    helm.sh/resource-policy: keep
  {{- end }}
spec:
  accessModes: {{ toJson .Values.persistence.accessModes }}
  {{- with (.Values.persistence.storageClass | default ((.Values.global).storageClass)) }}
  storageClassName: {{ if eq . "-" }}""{{ else }}{{ . }}{{ end }}
  {{- end }}
  resources:
    requests: { storage: {{ .Values.persistence.size }} }
{{- end }}
{{- end -}}

{{- define "toolhub.natsAuthSecret" -}}
{{- if and .Values.nats.auth.enabled (not .Values.nats.auth.existingSecret) }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "toolhub.natsAuthSecretName" . }}
  labels:
    {{- include "toolhub.labels" . | nindent 4 }}
type: Opaque
stringData:
  {{ .Values.nats.auth.passwordKey }}: {{ required "nats.auth.password (or nats.auth.existingSecret) is required when nats.auth.enabled" .Values.nats.auth.password | quote }}
{{- end }}
{{- end -}}
