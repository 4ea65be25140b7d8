#!/usr/bin/env bash
# Captures fixtures/prometheus/: Prometheus's HTTP API answers, from a real Prometheus (Debian's prometheus package)
# scraping `memleak run --metrics` on three scenarios, each in a memory cgroup of its own. Recording rules give the
# cgroups' series cAdvisor's names and a pod's labels (there is no kubelet here), so that the import's cAdvisor mapping
# is tested on real figures. Run as root from the repository, after `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=fixtures/prometheus
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/rules.yml" <<'RULES'
groups:
  - name: cadvisor-names
    interval: 1s
    rules:
RULES
for pair in "usage_bytes:usage_bytes" "working_set_bytes:working_set_bytes" "rss:anon_bytes" "cache:file_bytes"; do
  cadvisor=${pair%%:*}
  memleak=${pair#*:}
  for pod in logger-0:19464 leaker-0:19465 steady-0:19466; do
    cat >> "$work/rules.yml" <<RULE
      - record: container_memory_${cadvisor}
        expr: memleak_cgroup_${memleak}{instance="127.0.0.1:${pod#*:}"}
        labels: { namespace: ml, pod: ${pod%%:*}, container: app }
RULE
  done
done
cat > "$work/prometheus.yml" <<CONF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ["$work/rules.yml"]
scrape_configs:
  - job_name: memleak
    static_configs: [{ targets: ["127.0.0.1:19464", "127.0.0.1:19465", "127.0.0.1:19466"] }]
CONF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" --web.listen-address=127.0.0.1:19090 >"$work/prometheus.log" 2>&1 &
memleak() { node bin/memleak.js run --interval 0.5 --no-agent --metrics "127.0.0.1:$1" -- python3 "fixtures/scenarios/$2" 40 >"$work/$2.txt" 2>&1; }
memleak 19464 log_page_cache.py & memleak 19465 dict_cache_leak.py & memleak 19466 steady_noisy.py &
sleep 45
api="http://127.0.0.1:19090/api/v1/query_range"
end=$(date +%s)
start=$((end - 60))
get() { curl -sS --data-urlencode "query=$1" --data "start=$start&end=$end&step=${2:-1}" -w '\n%{http_code}\n' "$api"; }
save() { # file, query, [step]: the body in the file, the HTTP status on stderr
  local answer
  answer=$(get "$2" "${3:-1}")
  printf '%s\n' "$(printf '%s' "$answer" | head -n -1)" >"$out/$1"
  echo "$1: HTTP $(printf '%s' "$answer" | tail -n 1)" >&2
}
save memleak-process.json '{__name__=~"memleak_process_(rss|anon|pss|uss)_bytes"}'
save memleak-cgroup.json '{__name__=~"memleak_cgroup_(usage|working_set|anon|file|shmem|kernel)_bytes"}'
save cadvisor-containers.json '{__name__=~"container_memory_(usage_bytes|working_set_bytes|rss|cache)", namespace="ml"}'
save cadvisor-working-set-by-pod.json 'sum by (pod) (container_memory_working_set_bytes{namespace="ml"})'
save empty.json 'container_memory_working_set_bytes{namespace="nowhere"}'
save error-bad-query.json 'sum(rate(container_memory_rss[5m]'
start=$((end - 86400))
save error-too-many-points.json 'container_memory_rss' 1
curl -sS -o "$out/not-the-api.txt" -w 'not-the-api.txt: HTTP %{http_code}\n' "http://127.0.0.1:19090/api/v1/no_such_endpoint" >&2
for f in "$work"/*.txt; do grep -H "verdict:" "$f" || true; done >&2
