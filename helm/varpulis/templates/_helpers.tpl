{{/*
Chart name, possibly overridden.
*/}}
{{- define "varpulis.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Prefix of every resource name. 40 characters at most: the StatefulSets append "-coordinator",
and a StatefulSet name must leave room for the pod's controller-revision-hash label (63 in all).
*/}}
{{- define "varpulis.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Name of one role's resources: "<fullname>-coordinator" or "<fullname>-worker".
Input: dict with "ctx" (the root context) and "role".
*/}}
{{- define "varpulis.roleName" -}}
{{- printf "%s-%s" (include "varpulis.fullname" .ctx) .role }}
{{- end }}

{{- define "varpulis.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every resource.
*/}}
{{- define "varpulis.labels" -}}
helm.sh/chart: {{ include "varpulis.chart" . }}
{{ include "varpulis.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels selecting this release's pods, all roles.
*/}}
{{- define "varpulis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "varpulis.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels selecting one role's pods. Input: dict with "ctx" and "role".
*/}}
{{- define "varpulis.roleSelectorLabels" -}}
{{ include "varpulis.selectorLabels" .ctx }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{- define "varpulis.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "varpulis.configMapName" -}}
{{- printf "%s-config" (include "varpulis.fullname" .) }}
{{- end }}

{{- define "varpulis.apiSecretName" -}}
{{- .Values.security.user.existingSecret | default (printf "%s-api" (include "varpulis.fullname" .)) }}
{{- end }}

{{/*
Whether the nodes take bearer tokens from an identity provider rather than the API user.
*/}}
{{- define "varpulis.jwt" -}}
{{- if or .Values.security.jwt.issuerUri .Values.security.jwt.jwkSetUri }}true{{ end }}
{{- end }}

{{/*
HTTP security and the management port (SPEC section 10): who may call the API, the body limit, and
Actuator on its own port with Prometheus open there only.
*/}}
{{- define "varpulis.securityEnv" -}}
- name: MANAGEMENT_SERVER_PORT
  value: {{ .Values.management.port | quote }}
- name: VARPULIS_SECURITY_OPENPROMETHEUS
  value: {{ .Values.management.openPrometheus | quote }}
- name: VARPULIS_SECURITY_MAXREQUESTSIZE
  value: {{ .Values.security.maxRequestSize | quote }}
{{- with .Values.security.jwt }}
{{- if .issuerUri }}
- name: SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI
  value: {{ .issuerUri | quote }}
{{- end }}
{{- if .jwkSetUri }}
- name: SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_JWKSETURI
  value: {{ .jwkSetUri | quote }}
{{- end }}
- name: SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUTHORITIESCLAIMNAME
  value: {{ .rolesClaim | quote }}
{{- if .audiences }}
- name: SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES
  value: {{ .audiences | quote }}
{{- end }}
{{- if .principalClaim }}
- name: SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PRINCIPALCLAIMNAME
  value: {{ .principalClaim | quote }}
{{- end }}
{{- end }}
{{- if and (not (include "varpulis.jwt" .)) (or .Values.security.user.existingSecret .Values.security.user.password) }}
- name: SPRING_SECURITY_USER_NAME
  valueFrom:
    secretKeyRef:
      name: {{ include "varpulis.apiSecretName" . }}
      key: {{ .Values.security.user.usernameKey }}
- name: SPRING_SECURITY_USER_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "varpulis.apiSecretName" . }}
      key: {{ .Values.security.user.passwordKey }}
{{- end }}
{{- if not (include "varpulis.jwt" .) }}
- name: SPRING_SECURITY_USER_ROLES
  value: {{ .Values.security.user.roles | quote }}
{{- end }}
{{- end }}

{{- define "varpulis.tokenSecretName" -}}
{{- printf "%s-nats-token" (include "varpulis.fullname" .) }}
{{- end }}

{{/*
Checks the auth values: the node accepts one NATS authentication method, so the chart refuses
several rather than let the pods crash-loop on it.
*/}}
{{- define "varpulis.validateAuth" -}}
{{- $auth := .Values.auth }}
{{- $set := list }}
{{- if $auth.credentials.existingSecret }}{{ $set = append $set "auth.credentials" }}{{ end }}
{{- if $auth.nkey.existingSecret }}{{ $set = append $set "auth.nkey" }}{{ end }}
{{- if or $auth.token.existingSecret $auth.token.value }}{{ $set = append $set "auth.token" }}{{ end }}
{{- if $auth.userPassword.existingSecret }}{{ $set = append $set "auth.userPassword" }}{{ end }}
{{- if gt (len $set) 1 }}
{{- fail (printf "set at most one NATS authentication method; found %s" (join ", " $set)) }}
{{- end }}
{{- if and $auth.token.existingSecret $auth.token.value }}
{{- fail "auth.token: set existingSecret or value, not both" }}
{{- end }}
{{- if and .Values.security.user.existingSecret .Values.security.user.password }}
{{- fail "security.user: set existingSecret or password, not both" }}
{{- end }}
{{- with .Values.tls }}
{{- if and .existingSecret (ne (empty .cert) (empty .key)) }}
{{- fail "tls: set both cert and key (client certificate) or neither" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Secret-backed environment: NATS auth and TLS files, and the values they come from.
*/}}
{{- define "varpulis.natsAuthEnv" -}}
{{- with .Values.auth }}
{{- if .credentials.existingSecret }}
- name: VARPULIS_NATS_CREDENTIALS
  value: /etc/varpulis/nats/creds/{{ .credentials.key }}
{{- end }}
{{- if .nkey.existingSecret }}
- name: VARPULIS_NATS_NKEYSEEDFILE
  value: /etc/varpulis/nats/nkey/{{ .nkey.key }}
{{- end }}
{{- if or .token.existingSecret .token.value }}
- name: VARPULIS_NATS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ .token.existingSecret | default (include "varpulis.tokenSecretName" $) }}
      key: {{ .token.key }}
{{- end }}
{{- if .userPassword.existingSecret }}
- name: VARPULIS_NATS_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ .userPassword.existingSecret }}
      key: {{ .userPassword.usernameKey }}
- name: VARPULIS_NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .userPassword.existingSecret }}
      key: {{ .userPassword.passwordKey }}
{{- end }}
{{- end }}
{{- with .Values.tls }}
{{- if .existingSecret }}
{{- if .ca }}
- name: VARPULIS_NATS_TLS_CAFILE
  value: /etc/varpulis/nats/tls/{{ .ca }}
{{- end }}
{{- if .cert }}
- name: VARPULIS_NATS_TLS_CERTFILE
  value: /etc/varpulis/nats/tls/{{ .cert }}
- name: VARPULIS_NATS_TLS_KEYFILE
  value: /etc/varpulis/nats/tls/{{ .key }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Secret volumes and their mounts. Each Secret is mounted as a directory (not subPath), so a rotated
Secret reaches the pod; 0440 with the pod's fsGroup keeps it readable by the node's user only.
*/}}
{{- define "varpulis.natsSecretVolumes" -}}
{{- with .Values.auth.credentials }}
{{- if .existingSecret }}
- name: nats-creds
  secret:
    secretName: {{ .existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- with .Values.auth.nkey }}
{{- if .existingSecret }}
- name: nats-nkey
  secret:
    secretName: {{ .existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- with .Values.tls }}
{{- if .existingSecret }}
- name: nats-tls
  secret:
    secretName: {{ .existingSecret }}
    defaultMode: 0440
    items:
      {{- range (list .ca .cert .key) }}
      {{- if . }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
      {{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- define "varpulis.natsSecretMounts" -}}
{{- if .Values.auth.credentials.existingSecret }}
- name: nats-creds
  mountPath: /etc/varpulis/nats/creds
  readOnly: true
{{- end }}
{{- if .Values.auth.nkey.existingSecret }}
- name: nats-nkey
  mountPath: /etc/varpulis/nats/nkey
  readOnly: true
{{- end }}
{{- if .Values.tls.existingSecret }}
- name: nats-tls
  mountPath: /etc/varpulis/nats/tls
  readOnly: true
{{- end }}
{{- end }}

{{/*
The StatefulSet of one role. Coordinators and workers run the same image and pod layout; they
differ in role, replicas, resources, and which id the pod name becomes.
Input: dict with "ctx" (the root context) and "role" ("coordinator" or "worker").
*/}}
{{- define "varpulis.statefulSet" -}}
{{- $ctx := .ctx }}
{{- $role := .role }}
{{- $roleValues := index $ctx.Values $role }}
{{- $roleArgs := dict "ctx" $ctx "role" $role }}
{{- include "varpulis.validateAuth" $ctx }}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ include "varpulis.roleName" $roleArgs }}
  labels:
    {{- include "varpulis.labels" $ctx | nindent 4 }}
    app.kubernetes.io/component: {{ $role }}
spec:
  {{- /* With KEDA on, its HorizontalPodAutoscaler owns the workers' replicas: an upgrade must not reset them. */}}
  {{- if not (and (eq .role "worker") $ctx.Values.keda.enabled) }}
  replicas: {{ $roleValues.replicas }}
  {{- end }}
  serviceName: {{ include "varpulis.roleName" $roleArgs }}-headless
  # Pods share no state and need no start order: scale up and down in parallel (a rolling update
  # still replaces one pod at a time).
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      {{- include "varpulis.roleSelectorLabels" $roleArgs | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "varpulis.roleSelectorLabels" $roleArgs | nindent 8 }}
        {{- with $ctx.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Spring reads application.yml once, at startup: roll the pods when it changes.
        checksum/config: {{ include (print $ctx.Template.BasePath "/configmap.yaml") $ctx | sha256sum }}
        {{- with $ctx.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      {{- with $ctx.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      # The node never calls the Kubernetes API.
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: {{ $ctx.Values.shutdown.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $ctx.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ $role }}
          image: {{ include "varpulis.image" $ctx | quote }}
          imagePullPolicy: {{ $ctx.Values.image.pullPolicy }}
          env:
            - name: VARPULIS_CLUSTER_ROLE
              value: {{ $role }}
            {{- if eq $role "coordinator" }}
            # The pod name (<statefulset>-N) is stable across restarts and distinct per replica:
            # exactly what the coordinator's durable heartbeat consumer hb_<id> needs.
            - name: VARPULIS_COORDINATOR_ID
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- else }}
            # A restarted worker keeps its id, so the coordinator sees it come back, not a new one.
            - name: VARPULIS_WORKER_ID
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- end }}
            - name: VARPULIS_NATS_URL
              value: {{ $ctx.Values.natsUrl | quote }}
            - name: VARPULIS_NATS_SUBSTRATE
              value: {{ $ctx.Values.substrate | quote }}
            - name: VARPULIS_NATS_JETSTREAM_REPLICAS
              value: {{ $ctx.Values.jetstream.replicas | quote }}
            - name: SPRING_CONFIG_ADDITIONAL_LOCATION
              value: optional:file:/etc/varpulis/config/
            {{- include "varpulis.securityEnv" $ctx | nindent 12 }}
            {{- with include "varpulis.natsAuthEnv" $ctx }}
            {{- . | trim | nindent 12 }}
            {{- end }}
            {{- with $ctx.Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
            # Actuator: probes and Prometheus, apart from the API (MANAGEMENT_SERVER_PORT).
            - name: management
              containerPort: {{ $ctx.Values.management.port }}
              protocol: TCP
          startupProbe:
            httpGet:
              path: /actuator/health/liveness
              port: management
            {{- toYaml $ctx.Values.probes.startup | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /actuator/health/liveness
              port: management
            {{- toYaml $ctx.Values.probes.liveness | nindent 12 }}
          readinessProbe:
            httpGet:
              path: /actuator/health/readiness
              port: management
            {{- toYaml $ctx.Values.probes.readiness | nindent 12 }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", "{{ $ctx.Values.shutdown.preStopSleepSeconds }}"]
          resources:
            {{- toYaml $roleValues.resources | nindent 12 }}
          securityContext:
            {{- toYaml $ctx.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: /etc/varpulis/config
              readOnly: true
            - name: tmp
              mountPath: /tmp
            {{- with include "varpulis.natsSecretMounts" $ctx }}
            {{- . | trim | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "varpulis.configMapName" $ctx }}
        # Writable scratch space on a read-only root filesystem (Tomcat's work directory).
        - name: tmp
          emptyDir: {}
        {{- with include "varpulis.natsSecretVolumes" $ctx }}
        {{- . | trim | nindent 8 }}
        {{- end }}
      {{- with $ctx.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $ctx.Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $ctx.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/*
The headless Service that governs one role's StatefulSet: it gives each pod a DNS name and is what
the ServiceMonitor scrapes (one target per pod, on the management port).
Input: dict with "ctx" and "role".
*/}}
{{- define "varpulis.headlessService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "varpulis.roleName" . }}-headless
  labels:
    {{- include "varpulis.labels" .ctx | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
    varpulis.io/metrics: "true"
spec:
  clusterIP: None
  # Unready pods (NATS down) keep their DNS name and stay scraped: that is when their metrics matter.
  publishNotReadyAddresses: true
  selector:
    {{- include "varpulis.roleSelectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: 8080
      targetPort: http
      protocol: TCP
    - name: management
      port: {{ .ctx.Values.management.port }}
      targetPort: management
      protocol: TCP
{{- end }}

{{/*
PodDisruptionBudget of one role. Input: dict with "ctx" and "role".
*/}}
{{- define "varpulis.podDisruptionBudget" -}}
{{- if .ctx.Values.podDisruptionBudget.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "varpulis.roleName" . }}
  labels:
    {{- include "varpulis.labels" .ctx | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
spec:
  {{- if and (eq .role "coordinator") (ge (int .ctx.Values.coordinator.replicas) 2) }}
  # Keep one coordinator: the next leader is already running when a drain takes the other.
  minAvailable: 1
  {{- else }}
  maxUnavailable: {{ .ctx.Values.podDisruptionBudget.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "varpulis.roleSelectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
