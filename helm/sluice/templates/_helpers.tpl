{{/* Names and labels shared by the templates. */}}

{{- define "sluice.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "sluice.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "sluice.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels common to every object of the release. */}}
{{- define "sluice.commonLabels" -}}
helm.sh/chart: {{ include "sluice.chart" . }}
app.kubernetes.io/part-of: sluice
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The gateway's selector: stable across upgrades (a Deployment's selector is immutable). */}}
{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sluice.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: gateway
{{- end }}

{{- define "sluice.labels" -}}
{{ include "sluice.commonLabels" . }}
{{ include "sluice.selectorLabels" . }}
{{- end }}

{{/* The trial Redis: same name and instance, its own component, so no selector of the gateway picks it. */}}
{{- define "sluice.redis.fullname" -}}
{{- printf "%s-redis" (include "sluice.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "sluice.redis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sluice.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "sluice.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "sluice.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "sluice.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "sluice.tiersConfigMapName" -}}
{{- default (printf "%s-tiers" (include "sluice.fullname" .)) .Values.tiers.existingConfigMap }}
{{- end }}

{{/* The tiers.yaml text the chart ships: values' text, else its copy of the repository's tiers.yaml. */}}
{{- define "sluice.tiersContent" -}}
{{- if .Values.tiers.content }}{{ .Values.tiers.content }}{{ else }}{{ .Files.Get "files/tiers.yaml" }}{{ end }}
{{- end }}

{{/* Whether any shared Redis is configured: external (URL, URL secret, cluster) or the trial one. */}}
{{- define "sluice.redisConfigured" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret .Values.redis.cluster.nodes .Values.redis.internal.enabled }}true{{ end }}
{{- end }}

{{/* The shutdown budget: preStop pause, the server's drain, and a margin before the kubelet kills. */}}
{{- define "sluice.terminationGracePeriodSeconds" -}}
{{- add .Values.shutdown.preStopSleepSeconds .Values.shutdown.drainSeconds .Values.shutdown.marginSeconds }}
{{- end }}

{{/* Checks that stop a release that would not do what it says. */}}
{{- define "sluice.validate" -}}
{{- $replicas := .Values.replicaCount | int }}
{{- if .Values.autoscaling.enabled }}{{ $replicas = .Values.autoscaling.maxReplicas | int }}{{ end }}
{{- if and (gt $replicas 1) (not (include "sluice.redisConfigured" .)) }}
{{- fail "sluice: more than one replica needs a shared Redis (redis.url, redis.existingSecret, redis.cluster.nodes or redis.internal.enabled); on the in-memory store every replica would enforce the limits on its own, so the fleet would admit the limits times the replica count" }}
{{- end }}
{{- if and .Values.redis.internal.enabled (or .Values.redis.url .Values.redis.existingSecret .Values.redis.cluster.nodes) }}
{{- fail "sluice: redis.internal.enabled and an external Redis are both set; choose one" }}
{{- end }}
{{- if and .Values.redis.url .Values.redis.existingSecret }}
{{- fail "sluice: set redis.url or redis.existingSecret (a URL held in a Secret), not both" }}
{{- end }}
{{- if and .Values.redis.cluster.nodes (or .Values.redis.url .Values.redis.existingSecret) }}
{{- fail "sluice: set redis.cluster.nodes (Redis Cluster) or a standalone redis.url / redis.existingSecret, not both" }}
{{- end }}
{{- if and .Values.podDisruptionBudget.enabled .Values.podDisruptionBudget.minAvailable .Values.podDisruptionBudget.maxUnavailable }}
{{- fail "sluice: podDisruptionBudget takes minAvailable or maxUnavailable, not both" }}
{{- end }}
{{- end }}
