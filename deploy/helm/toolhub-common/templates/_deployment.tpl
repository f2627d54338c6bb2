{{- define "toolhub.deployment" -}}
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
      annotations:
        # Roll the pods when their config files or credentials change.
        checksum/config: {{ toJson .Values.configFiles | sha256sum }}
        checksum/secret: {{ toJson .Values.secret | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "toolhub.serviceAccountName" . }}
      automountServiceAccountToken: false
      # SIGTERM: readiness off, in-flight calls finish, NATS drains (the apps' own limit is 15 s).
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        fsGroup: 1000
        seccompProfile: { type: RuntimeDefault }
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .Values.component }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          command: {{ toJson .Values.command }}
          ports:
            {{- if .Values.ports.api }}
            - { name: grpc-api, containerPort: {{ .Values.ports.api }}, protocol: TCP }
            {{- end }}
            - { name: grpc-health, containerPort: {{ .Values.ports.health }}, protocol: TCP }
            - { name: http-metrics, containerPort: {{ .Values.ports.metrics }}, protocol: TCP }
          env:
            - { name: NATS_URL, value: {{ required "nats.url is required (e.g. nats://nats.nats.svc:4222)" .Values.nats.url | quote }} }
            - { name: TOOLHUB_OPS_HOST, value: "0.0.0.0" }
            # Health and /metrics have no auth; the pod network is the boundary (NetworkPolicy), so the opt-in is explicit.
            - { name: TOOLHUB_OPS_PUBLIC, value: "true" }
            - { name: TOOLHUB_HEALTH_PORT, value: {{ .Values.ports.health | quote }} }
            - { name: TOOLHUB_METRICS_PORT, value: {{ .Values.ports.metrics | quote }} }
            # npm/npx caches of MCP servers and other home-directory writes land on the writable /tmp.
            - { name: HOME, value: /tmp }
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
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: [ALL] }
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            {{- if .Values.configFiles }}
            - { name: config, mountPath: {{ .Values.configMountPath }}, readOnly: true }
            {{- end }}
            {{- if and .Values.ports.api (not .Values.auth.allowUnauthenticated) }}
            - { name: api-keys, mountPath: /run/toolhub/api-keys, readOnly: true }
            {{- end }}
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: { sizeLimit: {{ .Values.tmpSizeLimit }} }
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
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "toolhub.selectorLabels" . | nindent 14 }}
{{- end -}}
