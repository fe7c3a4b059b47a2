{{/*
The alert rules, as Prometheus rule groups. alerts/sluice-rules.yaml is this, rendered with the
default values (a test keeps the two equal). Expressions aggregate by namespace, so two releases
in different namespaces alert apart; no expression uses a tenant id (none is a label).
*/}}
{{- define "sluice.alertGroups" -}}
{{- $r := .Values.metrics.prometheusRule -}}
- name: sluice
  rules:
    - alert: SluiceQueueWaitHigh
      expr: histogram_quantile(0.95, sum by (namespace, budget, le) (rate(sluice_queue_wait_seconds_bucket[5m]))) > {{ $r.queueWaitP95Seconds }}
      for: {{ $r.queueWaitFor }}
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "Requests wait %s (p95) for provider budget %s" "{{ $value | humanizeDuration }}" "{{ $labels.budget }}" | quote }}
        description: {{ printf "For %s the slowest 5%% of requests waited over %vs in the queue of provider budget %s. The queue protects the provider, it does not add capacity: demand is above what the provider accepts. Buy a bigger provider tier or more keys, then raise that provider's limits in tiers.yaml." $r.queueWaitFor $r.queueWaitP95Seconds "{{ $labels.budget }}" | quote }}
        runbook: docs/operations.md#sluicequeuewaithigh
    - alert: SluiceGatewayBusy
      expr: sum by (namespace) (rate(sluice_decisions_total{stage="busy"}[5m])) / sum by (namespace) (rate(sluice_decisions_total{stage=~"passed|downgraded|rejected|too-large|store-unavailable"}[5m])) > {{ $r.busyRatio }}
      for: 10m
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "%s of requests are turned away with 503 gateway_busy" "{{ $value | humanizePercentage }}" | quote }}
        description: "The door refuses requests whose estimated wait is past their X-Sluice-Max-Wait, or finds the queue full. Same cause as SluiceQueueWaitHigh: the provider's limits are below the demand."
        runbook: docs/operations.md#sluicegatewaybusy
    - alert: SluiceUpstream429Sustained
      expr: sum by (namespace) (rate(sluice_upstream_responses_total{status="429"}[5m])) / sum by (namespace) (rate(sluice_upstream_responses_total[5m])) > {{ $r.upstream429Ratio }}
      for: 10m
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "The provider answers 429 to %s of calls" "{{ $value | humanizePercentage }}" | quote }}
        description: "Sluice sends no more than the limits in tiers.yaml allow, so sustained 429s mean the provider's real limits are lower than configured, or something else spends the same key. Tenants do not see these (they are absorbed and retried), but they cost latency and shrink the adaptive concurrency limit."
        runbook: docs/operations.md#sluiceupstream429sustained
    - alert: SluiceUpstreamFailing
      expr: sum by (namespace, provider) (rate(sluice_upstream_responses_total{status=~"5..|timeout|unreachable"}[5m])) / sum by (namespace, provider) (rate(sluice_upstream_responses_total[5m])) > {{ $r.upstreamFailureRatio }}
      for: 5m
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "%s of provider calls fail (5xx, timeout or unreachable)" "{{ $value | humanizePercentage }}" | quote }}
        description: "Tenants get 502/504 for these unless another provider of the route serves them. Check the provider's status page and its base-url (SLUICE_PROVIDER_URL for the first)."
        runbook: docs/operations.md#sluiceupstreamfailing
    - alert: SluiceRedisFallback
      expr: sum by (namespace, tier, policy) (rate(sluice_store_fallback_total[5m])) > 0
      for: 1m
      labels:
        severity: critical
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "Redis does not answer: tier %s is served %s" "{{ $labels.tier }}" "{{ $labels.policy }}" | quote }}
        description: "Quota decisions did not get an answer from Redis within sluice.store.timeout. fail-closed tiers are refused with 503 quota_store_unavailable; fail-open tiers are limited by each replica on its own, so the fleet may admit up to the limits times the replica count."
        runbook: docs/operations.md#sluiceredisfallback
    - alert: SluiceAbuseFlagsOpen
      expr: max by (namespace) (sluice_abuse_flags_open) > 0
      labels:
        severity: info
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: {{ printf "%s abuse flag(s) wait for review" "{{ $value }}" | quote }}
        description: "A tenant sat at 90% or more of its ceiling for 15 consecutive minutes or longer (tiers.yaml abuse rule). Review it in the admin UI (/admin/) or GET /admin/api/flags?status=open: dismiss, or confirm and act."
        runbook: docs/operations.md#sluiceabuseflagsopen
    - alert: SluiceConfigReloadFailed
      expr: sum by (namespace) ((sluice_config_reload_total{result="invalid"} unless sluice_config_reload_total{result="invalid"} offset 15m) or increase(sluice_config_reload_total{result="invalid"}[15m])) > 0
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: "A replica refused the shared tiers document and keeps its last good configuration"
        description: "Look for 'Tiers version N ... is invalid' in the gateway's log: it names the field and line. The replica stays on the version it had, so replicas may now enforce different tiers (see SluiceConfigVersionDiverged)."
        runbook: docs/operations.md#sluiceconfigreloadfailed
    - alert: SluiceConfigVersionDiverged
      expr: max by (namespace) (sluice_config_version) - min by (namespace) (sluice_config_version) > 0
      for: 5m
      labels:
        severity: warning
        {{- with $r.ruleLabels }}{{ toYaml . | nindent 8 }}{{ end }}
      annotations:
        summary: "Replicas enforce different versions of the tiers document"
        description: "Every replica applies a new tiers document within a second or two; one that stays behind refused it (SluiceConfigReloadFailed) or cannot reach Redis."
        runbook: docs/operations.md#sluiceconfigversiondiverged
{{- end }}
