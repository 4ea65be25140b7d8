#!/usr/bin/env bash
# Re-records fixtures/recordings/<scenario>.jsonl from fixtures/scenarios/*.py with `memleak run --record`.
# Run as root (the scenarios get a memory cgroup of their own) on a machine with Debian's python3-torch.
# Usage: scripts/record-scenarios.sh [scenario ...]
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
mkdir -p fixtures/recordings
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=($(ls fixtures/scenarios/*.py | xargs -n1 basename | sed 's/\.py$//'))
for s in "${scenarios[@]}"; do
  node bin/memleak.js run --interval 0.5 --record "fixtures/recordings/$s.jsonl" --overwrite --json -- python3 "fixtures/scenarios/$s.py" > /dev/null 2>&1 || true
  echo "$s: $(node bin/memleak.js analyze --json "fixtures/recordings/$s.jsonl" | python3 -c 'import json,sys; v=json.load(sys.stdin)["verdict"]; print(v["kind"], v.get("pid", v["subject"]["type"]))')"
done
