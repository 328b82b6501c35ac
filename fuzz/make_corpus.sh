#!/usr/bin/env bash
# (Re)writes the committed seed corpus under fuzz/corpus/<harness>/ (files named seed-*; regression inputs of
# fixed findings are named crash-* and are never touched here).
#   binary seeds (spool records and files, mesh frames): build-fuzz/fuzz_corpus_gen, with the project's encoders
#   text seeds (route bodies and queries, environments): written below, from the API docs and the unit tests
# Usage: fuzz/make_corpus.sh [build dir]   (default build-fuzz; `make fuzz-build` builds it)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-fuzz}
CORPUS=fuzz/corpus

for h in spool_record spool_file mesh_frame http_body config_env http_wire jwt_token payload_envelope; do
  mkdir -p "$CORPUS/$h"
  find "$CORPUS/$h" -name 'seed-*' -delete
done
"$BUILD/fuzz_corpus_gen" "$CORPUS"

# --- http_body: first byte chooses the parser (see fuzz/harness/http_body.cpp), the rest is the body.
n=0
body() {  # body <parser index> <text>
  printf "\\x$(printf %02x "$1")%s" "$2" > "$CORPUS/http_body/seed-$(printf %03d "$1")-$n"
  n=$((n + 1))
}
PID=0f8fad5b-d9cb-469f-a165-70867728950e
body 0 '{"items":[{"queue":"invoices","partition":"acct-7","transactionId":"inv-1","payload":{"amount":12}},{"queue":"invoices","partition":"acct-7","transactionId":"inv-2","payload":{"amount":30}}]}'
body 0 '{"items":[{"queue":"q","traceId":"'$PID'","namespace":"ns","task":"t","payload":null,"deliverAt":"2030-01-02T03:04:05.678Z"}]}'
body 0 '{"items":[{"queue":"q","deliverAt":1900000000123,"payload":[1,"x",{"a":true}]},{"queue":"q","deliverAt":"1900000000123"}]}'
body 0 '{"items":[{"queue":"ok"},{"queue":"q","partition":[]}]}'
body 0 '{"items":[{"queue":"q","payload":"\u00e9\ud83d\ude00","transactionId":""}]}'
body 1 '{"transactionId":"t","partitionId":"'$PID'","leaseId":"l","status":"failed","error":"smtp","consumerGroup":"mailer"}'
body 1 '{"transactionId":"t","partitionId":"'$PID'","consumerGroup":"__QUEUE_MODE__","error":{"code":5}}'
body 2 '{"acknowledgments":[{"transactionId":"t","partitionId":"'$PID'","leaseId":"l","status":"completed"}],"consumerGroup":"g"}'
body 2 '{"acknowledgments":[{"transactionId":"t","partitionId":5}]}'
body 3 '{"queue":"invoices","options":{"leaseTime":60,"retryLimit":2}}'
body 3 '{"queue":"q","namespace":null,"task":"t","options":{"leaseTime":5,"encryptionEnabled":true}}'
body 4 '{"enabled":true}'
body 4 '{"enabled":"true"}'
body 5 '{"seconds":120}'
body 5 ''
body 5 '{"seconds":18446744073709551615}'
body 6 '{"value": {"n": 1, "tags": ["x"]}, "ttlMs": 3000}'
body 6 '{"value": null, "ttlMs": null}'
body 7 '{"operations":[{"type":"push","items":[{"queue":"q","payload":{"a":1}}]},{"type":"ack","transactionId":"t","partitionId":"'$PID'"}],"requiredLeases":["l1"]}'
body 7 '{"operations":[{"type":"ack"}],"requiredLeases":[7]}'
body 8 'queue=q&consumerGroup=__QUEUE_MODE__&partition=p&from=2024-01-01T00:00:00Z&to=1700000000000&limit=5000&offset=-3'
body 8 'queue=%E2%82%AC+x&from=bad&limit=abc'
body 9 'invoices?batch=10&wait=true&timeout=30000&consumerGroup=g&autoAck=1&partitions=3'
body 10 'invoices/acct-7?batch=99999999999999999999&subscriptionMode=new&subscriptionFrom=2024-01-01'
body 11 '?namespace=ns&task=t&batch=-5&timeout=-1'
body 12 '  {"a":[1,2,{"b":null}]} '
body 12 '{"a":1'
body 13 'caf%C3%A9-key'
# The same parsers under small limits (control byte + 128, see small_limits() in the harness).
body 128 '{"items":[{"queue":"q","payload":{"a":[1,[2]]}},{"queue":"q2"},{"queue":"q3"},{"queue":"q4"}]}'
body 130 '{"acknowledgments":[{"transactionId":"t","partitionId":"'$PID'"},{"transactionId":"t2","partitionId":"'$PID'"}]}'
body 131 '{"queue":"a-long-queue-name","options":{"leaseTime":60,"retryLimit":2,"priority":1,"delayedProcessing":0}}'
body 134 '{"value": {"n": "a string longer than sixty-four bytes, which the small limits refuse"}}'
body 135 '{"operations":[{"type":"push","items":[{"queue":"q"},{"queue":"q"},{"queue":"q"},{"queue":"q"}]}]}'
body 136 'queue=a-long-queue-name&consumerGroup=g%00x&limit=5'
body 137 'q?batch=10&consumerGroup=%C3%28&namespace=ns'
body 140 '[[[[[1]]]]]'
body 141 'key-longer-than-8'

# --- config_env: first line is the host name, then NAME=VALUE lines.
c=0
envseed() {  # envseed <lines...>
  printf '%s\n' "$@" > "$CORPUS/config_env/seed-$c"
  c=$((c + 1))
}
envseed broker-1 PORT=6632 HOST=0.0.0.0 PG_HOST=127.0.0.1 PG_PORT=55432 PG_DB=queen PG_USER=postgres PG_PASSWORD=postgres
envseed broker-1 QUEEN_SERVER_ID=a QUEEN_MESH_PORT=7001 'QUEEN_MESH_PEERS=b:7002, [::1]:7003 ,c:7004,' QUEEN_SYNC_SECRET=s3cret \
  QUEEN_SYNC_HEARTBEAT_MS=500 QUEEN_SYNC_DEAD_THRESHOLD_MS=2000
envseed '' 'QUEEN_MESH_PEERS=b:7002' QUEEN_MESH_PORT=0 QUEEN_SYNC_SECRET=
envseed h 'HTTP_MAX_THREADS=4' 'NUM_WORKERS=8' 'MAX_BODY_BYTES=1024' 'HTTP_MAX_HEADER_BYTES=1048576' 'HTTP_MAX_QUERY_PARAMS=1'
envseed h 'POP_WAIT_BACKOFF_MULTIPLIER=1e3' 'POP_WAIT_INITIAL_INTERVAL_MS=200' 'POP_WAIT_MAX_INTERVAL_MS=100' 'LOG_LEVEL=warn'
envseed h 'POP_WAIT_BACKOFF_MULTIPLIER=nan' 'DB_POOL_SIZE=abc' 'PG_USE_SSL=yes' 'DEFAULT_TIMEOUT= 42 ' 'PORT=99999999999999999999'
envseed h 'FILE_BUFFER_DIR=/srv/spool' 'FILE_BUFFER_FSYNC=batch' 'FILE_BUFFER_FLUSH_MS=100' 'FILE_BUFFER_MAX_BATCH=100' \
  'FILE_BUFFER_EVENTS_PER_FILE=10000' 'QUEEN_DEDUP_WINDOW_MS=86400000'
envseed h 'RETENTION_INTERVAL=100' 'EVICTION_INTERVAL=31536000000' 'STATS_RECONCILE_INTERVAL_MS=99' 'QUEEN_SWEEPER_LEASE_MS=1' \
  'SYSTEM_FLAG_REFRESH_MS=2000' 'QUEEN_ENCRYPTION_KEY=00112233445566778899aabbccddeeff'
envseed h 'QUEEN_UDP_PEERS=x' 'SIDECAR_POOL=3' 'QUEEN_PUSH_MAX_BATCH_SIZE=5' 'QUEEN_X_MAX_HOLD_MS=1' 'DEFAULT_SUBSCRIPTION_MODE='
envseed h 'QUEEN_MESH_PEERS=[fe80::1:7002' 'QUEEN_MESH_PEERS=a:1,a:1' 'QUEEN_MESH_PORT=7001' 'QUEEN_SYNC_SECRET=x'

# --- http_wire: raw requests (the harness exists once src/http/transport/wire_request.h does).
w=0
wire() {  # wire <text with \r\n escapes>
  printf "$1" > "$CORPUS/http_wire/seed-$w"
  w=$((w + 1))
}
wire 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'
wire 'POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 53\r\n\r\n{"items":[{"queue":"q","payload":{"a":1},"x":null}]}\r\n'
wire 'POST /api/v1/ack/batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"ack\r\n0\r\n\r\n'
wire 'GET /api/v1/pop/queue/invoices?batch=10&wait=true&timeout=30000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
wire 'GET /api/v1/dlq?queue=q&from=2024-01-01T00:00:00Z&limit=%%31%%30 HTTP/1.0\r\n\r\n'
wire 'PUT /api/v1/kv/caf%%C3%%A9 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n{"value":1}\n'
wire 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello'
wire 'POST /x HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n'
# --- jwt_token: first byte chooses the mode (see fuzz/harness/jwt_token.cpp), the rest is the data.
j=0
jwtseed() {  # jwtseed <mode> <text>
  printf "\\x$(printf %02x "$1")%s" "$2" > "$CORPUS/jwt_token/seed-$j"
  j=$((j + 1))
}
HDR=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9
jwtseed 0 "$HDR.eyJzdWIiOiJ4Iiwicm9sZSI6ImFkbWluIn0.c2lnbmF0dXJlLWJ5dGVzLW5vdC12YWxpZC0wMDAwMDAwMA"
jwtseed 0 'eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ.'
jwtseed 0 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.e30.AAAA'
jwtseed 0 '/health'
jwtseed 1 '{"alg":"HS256","typ":"JWT"}
{"sub":"svc","iss":"iss","aud":["x","aud"],"exp":1800000600,"nbf":1799999990,"role":"read-write","tenant":"acme"}'
jwtseed 1 '{"alg":"HS256"}
{"iss":"iss","aud":"aud","exp":1799999000,"roles":["read-only","admin",7],"tenant":"bad tenant"}'
jwtseed 1 '{"alg":"HS256","crit":["b64"]}
{"iss":"iss","aud":"aud","sub":42,"exp":"soon"}'
jwtseed 2 '{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"e1","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},{"kty":"RSA","kid":"r1","n":"sXch","e":"AQAB"},{"kty":"EC","kid":"x"}]}'
jwtseed 2 '{"keys":[]}'
jwtseed 3 'eyJhbGciOiJIUzI1NiJ9'
jwtseed 3 '-_8'
# --- payload_envelope: byte 0 even = an envelope to open, odd = a plaintext to round-trip. Envelopes are sealed
# here (python3-cryptography, fixed nonces) with the harness's keys, so the fuzzer starts from ones that open.
/usr/bin/python3 - "$CORPUS/payload_envelope" <<'PY'
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
out = sys.argv[1]
keys = [bytes.fromhex("00112233445566778899aabbccddeeff" * 2), bytes.fromhex("ffeeddccbbaa99887766554433221100" * 2)]
def envelope(key, nonce, plaintext):
    sealed = AESGCM(key).encrypt(nonce, plaintext, None)
    kid = hashlib.sha256(b"queen payload key id v1:" + key).hexdigest()[:16]
    b64 = lambda b: base64.b64encode(b).decode()
    return json.dumps({"v": 1, "kid": kid, "iv": b64(nonce), "ct": b64(sealed[:-16]), "tag": b64(sealed[-16:])},
                      separators=(",", ":")).encode()
seeds = [b"\x00" + envelope(keys[0], bytes(12), b'{"amount":12}'),
         b"\x00" + envelope(keys[1], bytes(range(12)), '"h\u00e9llo \u2713"'.encode()),
         b"\x00" + envelope(keys[0], bytes(12), b""),
         b"\x00" + b'{"v":1,"kid":"0000000000000000","iv":"AAAAAAAAAAAAAAAA","ct":"","tag":"AAAAAAAAAAAAAAAAAAAAAA=="}',
         b"\x00" + b'{"encrypted":"AA==","iv":"AA==","authTag":"AA=="}',
         b"\x01" + b'{"items":[1,2,3],"text":"caf\xc3\xa9"}',
         b"\x01" + b"null"]
for i, seed in enumerate(seeds):
    with open(f"{out}/seed-{i}", "wb") as f:
        f.write(seed)
PY
echo "corpus: $(find $CORPUS -type f | wc -l) files under $CORPUS"
