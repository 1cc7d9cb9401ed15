#!/usr/bin/env bash
# live-services.sh — real Jaeger v2 and Prometheus for the live-source tests
# (issue 7), on 127.0.0.1 only.
#
#   scripts/live-services.sh install   build/cache Jaeger and VictoriaLogs, apt-install Prometheus
#                                      if missing; prints the env the integration tests read:
#                                      PIPELINE_ANALYZE_JAEGER_BIN, PIPELINE_ANALYZE_VICTORIALOGS_BIN,
#                                      PROMETHEUS_BIN, PROMTOOL_BIN
#   scripts/live-services.sh start     install, then start both (memory storage, empty TSDB)
#                                      with PID files under $STATE (default ~/.cache/pipeline-analyze/run)
#   scripts/live-services.sh stop      stop what start started, by PID
#
# Jaeger is built from the pinned tools module (tools/go.mod: `tool
# github.com/jaegertracing/jaeger/cmd/jaeger`, v1.76.0) and cached under
# ~/.cache/pipeline-analyze/jaeger-<version>, so only the first run pays the
# build (measured: 20 min wall, 6.7 min CPU on a busy 2-core machine, plus
# ~2.5 min of module downloads; instant when cached).
#
# VictoriaLogs (Apache-2.0; issue 14) is built the same way from its own
# pinned module (tools/victorialogs/go.mod: `tool
# github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs`, v1.52.2),
# CGO_ENABLED=0, cached under ~/.cache/pipeline-analyze/victoria-logs-<version>
# (measured: 2 min 4 s wall, 1 min CPU, module downloads included, on a busy
# 2-core machine; a 21 MiB static binary). Grafana Loki itself is AGPL and is
# never built or vendored: the Loki client is tested on recorded responses.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PIPELINE_ANALYZE_CACHE:-$HOME/.cache/pipeline-analyze}
STATE=${STATE:-$CACHE/run}
JAEGER_VERSION=$(awk '$1=="github.com/jaegertracing/jaeger"{print $2}' "$ROOT/tools/go.mod")
JAEGER_BIN=$CACHE/jaeger-$JAEGER_VERSION
VL_VERSION=$(awk '$1=="github.com/VictoriaMetrics/VictoriaLogs"{print $2}' "$ROOT/tools/victorialogs/go.mod")
VL_BIN=$CACHE/victoria-logs-$VL_VERSION
VL_PORT=${VICTORIALOGS_PORT:-9428}
QUERY_PORT=${JAEGER_QUERY_PORT:-16686}
OTLP_PORT=${JAEGER_OTLP_HTTP_PORT:-4318}
PROM_PORT=${PROMETHEUS_PORT:-9090}

log() { echo "live-services: $*" >&2; }

install() {
	mkdir -p "$CACHE"
	if [[ ! -x $JAEGER_BIN ]]; then
		log "building jaeger $JAEGER_VERSION (cached afterwards at $JAEGER_BIN)"
		local t0=$SECONDS
		(cd "$ROOT/tools" && go build -trimpath -o "$JAEGER_BIN.tmp" github.com/jaegertracing/jaeger/cmd/jaeger)
		mv "$JAEGER_BIN.tmp" "$JAEGER_BIN"
		log "built jaeger in $((SECONDS - t0))s"
	fi
	if [[ ! -x $VL_BIN ]]; then
		log "building victoria-logs $VL_VERSION (cached afterwards at $VL_BIN)"
		local t1=$SECONDS
		(cd "$ROOT/tools/victorialogs" && CGO_ENABLED=0 go build -trimpath -o "$VL_BIN.tmp" github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs)
		mv "$VL_BIN.tmp" "$VL_BIN"
		log "built victoria-logs in $((SECONDS - t1))s"
	fi
	if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
		if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
			log "installing prometheus from Debian"
			apt-get update -qq >/dev/null
			# --no-install-recommends: no exporters; policy-rc.d keeps the systemd unit stopped.
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
		else
			log "prometheus not found and cannot apt-get it; the Prometheus tests will skip"
		fi
	fi
	echo "PIPELINE_ANALYZE_JAEGER_BIN=$JAEGER_BIN"
	echo "PIPELINE_ANALYZE_VICTORIALOGS_BIN=$VL_BIN"
	command -v prometheus >/dev/null && echo "PROMETHEUS_BIN=$(command -v prometheus)"
	command -v promtool >/dev/null && echo "PROMTOOL_BIN=$(command -v promtool)"
	return 0
}

jaeger_config() {
	cat <<YAML
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    enable_tracing: false
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:$QUERY_PORT
    grpc:
      endpoint: 127.0.0.1:${JAEGER_QUERY_GRPC_PORT:-16685}
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${JAEGER_OTLP_GRPC_PORT:-4317}
      http:
        endpoint: 127.0.0.1:$OTLP_PORT
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
YAML
}

wait_http() { # URL
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	log "timed out waiting for $1"
	return 1
}

start() {
	install >/dev/null
	mkdir -p "$STATE/prom-data"
	jaeger_config >"$STATE/jaeger.yaml"
	"$JAEGER_BIN" --config "file:$STATE/jaeger.yaml" >"$STATE/jaeger.log" 2>&1 &
	echo $! >"$STATE/jaeger.pid"
	printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$STATE/prometheus.yml"
	prometheus --config.file "$STATE/prometheus.yml" --storage.tsdb.path "$STATE/prom-data" \
		--storage.tsdb.retention.time 100y --web.listen-address "127.0.0.1:$PROM_PORT" >"$STATE/prometheus.log" 2>&1 &
	echo $! >"$STATE/prometheus.pid"
	mkdir -p "$STATE/vl-data"
	"$VL_BIN" -httpListenAddr "127.0.0.1:$VL_PORT" -storageDataPath "$STATE/vl-data" -retentionPeriod 100y >"$STATE/victorialogs.log" 2>&1 &
	echo $! >"$STATE/victorialogs.pid"
	wait_http "http://127.0.0.1:$QUERY_PORT/api/v3/services"
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready"
	wait_http "http://127.0.0.1:$VL_PORT/health"
	log "jaeger http://127.0.0.1:$QUERY_PORT (OTLP http 127.0.0.1:$OTLP_PORT), prometheus http://127.0.0.1:$PROM_PORT,"
	log "victorialogs http://127.0.0.1:$VL_PORT (Loki push: /insert/loki/api/v1/push); stop with $0 stop"
}

stop() {
	for name in jaeger prometheus victorialogs; do
		local f=$STATE/$name.pid
		[[ -f $f ]] || continue
		local pid
		pid=$(cat "$f")
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid"
			for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
		fi
		rm -f "$f"
		log "stopped $name ($pid)"
	done
}

case ${1:-} in
install) install ;;
start) start ;;
stop) stop ;;
*) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
