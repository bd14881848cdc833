#!/usr/bin/env bash
# Runs the service on the compose file's ClickHouse cluster (2 shards x 2 replicas and a Keeper)
# and checks what the cluster layout promises, on a machine with Docker and its compose plugin:
#
#   - the migrations create the cluster schema on every server (ON CLUSTER, Replicated tables);
#   - events sent through the load balancer to both ingestion instances are all stored once,
#     split over both shards, each shard's two replicas holding the same rows;
#   - a batch inserted again under the same deduplication token, through another replica of the
#     same shard, is dropped (the guarantee a restarted instance relies on);
#   - persons, which every server keeps whole, are the same on all four.
#
#   scripts/cluster-smoke.sh            # builds, starts, checks, then removes the stack and its volumes
#   KEEP=1 scripts/cluster-smoke.sh     # leaves the stack running (docker compose -p burrow-cluster-smoke ...)
#
# It uses a compose project of its own (burrow-cluster-smoke) and generated passwords, so it does
# not touch a stack started from docker/.env. Not run on the project's own machines, which have
# no container engine.
set -euo pipefail
cd "$(dirname "$0")/.."

EVENTS=${EVENTS:-2000}
PORT=${PORT:-18000}
PROJECT=burrow-cluster-smoke
KEY="phx_smoke_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
env_file=$(mktemp)
cat >"$env_file" <<EOF
POSTGRES_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
CLICKHOUSE_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
CLICKHOUSE_HOST=clickhouse-1
CLICKHOUSE_CLUSTER=burrow
BURROW_PORT=$PORT
SITE_URL=http://localhost:$PORT
BOOTSTRAP_PERSONAL_API_KEY=$KEY
EOF

compose() { docker compose -p "$PROJECT" -f docker/compose.yml --env-file "$env_file" --profile cluster "$@"; }
# One answer of a ClickHouse server of the cluster, as text.
ch() { compose exec -T "$1" sh -c 'clickhouse-client --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" --database "$CLICKHOUSE_DB" --query "$0"' "$2"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
cleanup() {
  rm -f "$env_file"
  if [ "${KEEP:-}" != 1 ]; then compose down -v --remove-orphans >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

echo "starting the stack (project $PROJECT, port $PORT)"
compose up -d --build --wait
base="http://127.0.0.1:$PORT"
api() { curl -fsS -H "Authorization: Bearer $KEY" "$base$1"; }

echo "checking the schema on every server"
for node in clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4; do
  engines=$(ch "$node" "SELECT name || ':' || engine FROM system.tables WHERE database = currentDatabase() AND name IN ('events', 'events_local', 'person') ORDER BY name FORMAT TSV")
  [ "$engines" = $'events:Distributed\nevents_local:ReplicatedReplacingMergeTree\nperson:ReplicatedReplacingMergeTree' ] ||
    fail "$node has tables $engines"
done

project=$(api /api/projects/@current/)
token=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).api_token)' "$project")
project_id=$(node -e 'process.stdout.write(String(JSON.parse(process.argv[1]).id))' "$project")

echo "sending $EVENTS events through the load balancer"
node - "$base" "$token" "$EVENTS" <<'EOF'
const [base, token, total] = [process.argv[2], process.argv[3], Number(process.argv[4])]
const batches = []
for (let start = 0; start < total; start += 100) {
  const batch = []
  for (let i = start; i < Math.min(total, start + 100); i++) {
    batch.push({ event: 'smoke', distinct_id: `user-${i % 200}`, uuid: crypto.randomUUID(), properties: { $set: { n: i % 200 } } })
  }
  batches.push(batch)
}
for (const batch of batches) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) })
    if (res.ok) break
    if (attempt === 10) throw new Error(`/batch/ answered ${res.status}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}
EOF

echo "waiting for every event to be stored"
for _ in $(seq 1 60); do
  stored=$(ch clickhouse-1 "SELECT count() FROM events WHERE team_id = $project_id AND event = 'smoke'")
  [ "$stored" -ge "$EVENTS" ] && break
  sleep 2
done
distinct=$(ch clickhouse-1 "SELECT uniqExact(uuid) FROM events WHERE team_id = $project_id AND event = 'smoke'")
[ "$stored" = "$EVENTS" ] && [ "$distinct" = "$EVENTS" ] || fail "stored $stored rows of $distinct uuids for $EVENTS events"
listed=$(api "/api/projects/$project_id/events/?event=smoke&limit=1" | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>process.stdout.write(String(JSON.parse(s).results.length)))')
[ "$listed" = 1 ] || fail "the events API lists nothing"

echo "checking the split over the shards and the copies between replicas"
for node in clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4; do ch "$node" 'SYSTEM SYNC REPLICA events_local' >/dev/null; done
local_count() { ch "$1" "SELECT count() FROM events_local WHERE team_id = $project_id AND event = 'smoke'"; }
s1a=$(local_count clickhouse-1)
s1b=$(local_count clickhouse-2)
s2a=$(local_count clickhouse-3)
s2b=$(local_count clickhouse-4)
[ "$s1a" = "$s1b" ] || fail "shard 1's replicas differ: $s1a and $s1b"
[ "$s2a" = "$s2b" ] || fail "shard 2's replicas differ: $s2a and $s2b"
[ "$s1a" -gt 0 ] && [ "$s2a" -gt 0 ] || fail "one shard holds every event ($s1a and $s2a)"
[ $((s1a + s2a)) = "$EVENTS" ] || fail "the shards hold $s1a + $s2a events of $EVENTS"

echo "inserting one batch twice under one token, through two replicas of a shard"
row="{\"uuid\":\"$(cat /proc/sys/kernel/random/uuid)\",\"event\":\"smoke-dedup\",\"properties\":\"{}\",\"timestamp\":\"2026-01-01 00:00:00\",\"team_id\":$project_id,\"distinct_id\":\"dedup\",\"elements_chain\":\"\",\"created_at\":\"2026-01-01 00:00:00\",\"person_id\":\"00000000-0000-0000-0000-000000000000\"}"
dedup_token="smoke-$(date +%s)"
for node in clickhouse-1 clickhouse-2 clickhouse-3; do
  echo "$row" | compose exec -T "$node" sh -c 'clickhouse-client --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" --database "$CLICKHOUSE_DB" --distributed_foreground_insert=1 --insert_deduplication_token="$0" --query "INSERT INTO events FORMAT JSONEachRow"' "$dedup_token"
done
copies=$(ch clickhouse-4 "SELECT count() FROM events WHERE team_id = $project_id AND event = 'smoke-dedup'")
[ "$copies" = 1 ] || fail "a batch inserted three times under one token is stored $copies times"

echo "checking persons on every server"
for node in clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4; do ch "$node" 'SYSTEM SYNC REPLICA person' >/dev/null; done
for node in clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4; do
  persons=$(ch "$node" "SELECT uniqExact(id) FROM person WHERE team_id = $project_id")
  [ "$persons" = 200 ] || fail "$node holds $persons persons of 200"
done

echo "cluster smoke passed: $EVENTS events over 2 shards ($s1a + $s2a), replicas equal, duplicates dropped, persons on every server"
