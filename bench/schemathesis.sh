#!/usr/bin/env bash
# Schemathesis (`--checks all`) against a real `agents-club serve`, once per kind of
# caller: anonymous, an agent's token (admitted to every game), and the organiser key.
# The long sweep beside tests/gateway/test_schemathesis.py (5 examples per operation):
#
#   bench/schemathesis.sh [max examples per operation, default 50]
#
# REDIS_URL (default redis://127.0.0.1:6379/5) must be a Redis the run may write to;
# its keys live under a fresh namespace, deleted at the end. PORT defaults to 18990.
# Each kind's summary (and its failures, if any) is printed; the exit status is the
# number of kinds that failed. JUnit reports go to $REPORTS (default a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=${1:-50}
PORT=${PORT:-18990}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/5}
NAMESPACE=bench-st-$$
ORGANISER_KEY=bench-schemathesis-organiser-key-0123456789
DATA=$(mktemp -d)
REPORTS=${REPORTS:-$DATA/reports}
BASE=http://127.0.0.1:$PORT

# Held requests answer at once; the per-address limits are lifted so the fuzz reaches
# the operations rather than 429 (the limits' own tests are in tests/).
env REDIS_URL="$REDIS_URL" AGENTS_CLUB_ENVIRONMENT=test AGENTS_CLUB_REDIS_NAMESPACE="$NAMESPACE" \
  AGENTS_CLUB_ORGANISER_KEY="$ORGANISER_KEY" AGENTS_CLUB_LOG_LEVEL=WARNING \
  AGENTS_CLUB_LONG_POLL_MAX_WAIT_S=0.2 AGENTS_CLUB_ASSIGNMENT_STREAM_MAX_S=0.5 \
  AGENTS_CLUB_ADMISSION_CHALLENGES_PER_ADDRESS=100000 \
  AGENTS_CLUB_ANONYMOUS_REPLAYS_PER_ADDRESS=100000 AGENTS_CLUB_ANONYMOUS_MCP_CALLS_PER_ADDRESS=100000 \
  .venv/bin/agents-club serve --port "$PORT" --data-dir "$DATA" >"$DATA/serve.log" 2>&1 &
SERVER=$!
cleanup() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  .venv/bin/python - "$REDIS_URL" "$NAMESPACE" <<'EOF'
import sys, redis
client = redis.Redis.from_url(sys.argv[1])
keys = list(client.scan_iter(match=f"{sys.argv[2]}:*", count=1000))
if keys:
    client.delete(*keys)
EOF
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  curl -sf "$BASE/readyz" >/dev/null && break
  sleep 0.5
done
curl -sf "$BASE/readyz" >/dev/null

AGENT_TOKEN=$(.venv/bin/python - "$BASE" "$ORGANISER_KEY" <<'EOF'
import sys, httpx
from engine.registry import all_games
answer = httpx.post(f"{sys.argv[1]}/v1/auth/organiser/tokens", timeout=30,
                    headers={"X-Organiser-Key": sys.argv[2]},
                    json={"name": "fuzzer", "games": sorted(all_games())})
answer.raise_for_status()
print(answer.json()["access_token"])
EOF
)

failed=0
run() {  # run KIND [header]
  local kind=$1
  shift
  echo "== $kind"
  if .venv/bin/schemathesis --config-file bench/schemathesis.toml run "$BASE/openapi.json" --checks all --max-examples "$EXAMPLES" \
      --generation-deterministic --phases examples,coverage,fuzzing --request-timeout 10 \
      --suppress-health-check all --report junit --report-junit-path "$REPORTS/$kind.xml" \
      "$@" >"$DATA/$kind.out" 2>&1; then
    :
  else
    failed=$((failed + 1))
  fi
  sed -n '/SUMMARY/,$p' "$DATA/$kind.out"
}
run anonymous
run agent -H "Authorization: Bearer $AGENT_TOKEN"
run organiser -H "X-Organiser-Key: $ORGANISER_KEY"
echo "reports and logs: $DATA"
exit "$failed"
