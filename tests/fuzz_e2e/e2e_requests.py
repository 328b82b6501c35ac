"""Valid request templates for every broker route, mutations at every layer, and the deny list.

A worker asks `Generator.next()` for one request at a time. Request k of worker w is a pure function of
(seed, w, k) and of the values the worker harvested from earlier answers (lease ids, partition ids):
the master RNG hands every request a 64-bit sub-seed, so an answer that differs between two runs never
shifts the requests that follow it. The raw bytes of every request are kept by the caller for replay.

Deny list (`denied()`): nothing sent may delete or move stored messages behind the ledger's back. A
request is refused when ANY line of its bytes (a pipelined or smuggled request could start on any line)
reads as a request line with a DELETE-ish method, a non-GET to maintenance / resources / consumer-group /
system routes, or any method to a seek / purge / truncate / delete / drop path, after percent-decoding
(repeatedly), lower-casing and dropping everything but letters and digits; and when the head carries a
method-override header. The generator then draws another request.
"""
import base64
import json
import random
import re
import urllib.parse

QUEUES = ("fz-a", "fz-b", "fz-c", "fz-d")
PARTITIONS = tuple(f"p{i}" for i in range(8)) + ("Default",)
NAMESPACES = ("ns-x", "ns-y")
TASKS = ("task-1", "task-2")
GROUPS = ("grp-1", "grp-2", "__QUEUE_MODE__")
KV_KEYS = ("flag-a", "flag-b", "cfg%2Fnested", "k" * 255)
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "\u00e9t\u00e9", "\u65e5\u672c", "\U0001f600", "")

# --- deny list -------------------------------------------------------------------------------------
DENY_ANY_METHOD = (b"seek", b"purge", b"truncate", b"delete", b"drop")
DENY_UNLESS_GET = (b"maintenance", b"resources", b"consumergroup", b"system", b"clear", b"move", b"evict",
                   b"retention", b"admin")
_LINE_SPLIT = re.compile(rb"[\r\n]+")
_NOT_ALPHA_UPPER = re.compile(rb"[^A-Z]+")
_CTL_SPLIT = re.compile(rb"[\x00-\x20\x7f]+")


_LOWER = bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123)))
_NOT_ALNUM_BYTES = bytes(c for c in range(256) if not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122))


def _decoded_words(target):
    """Lower-case letters and digits of a request target after repeated percent-decoding."""
    text = target
    for _ in range(4):
        if b"%" not in text:
            break
        decoded = urllib.parse.unquote_to_bytes(text)
        if decoded == text:
            break
        text = decoded
    return text.translate(_LOWER, _NOT_ALNUM_BYTES)


_ALL_WORDS = DENY_ANY_METHOD + DENY_UNLESS_GET + (b"override",)


def denied(raw):
    """A reason (str) when these request bytes could reach a route that deletes or moves messages, else None."""
    # Fast path: no denied word anywhere in the decoded, squeezed bytes means no line can be denied.
    squeezed = _decoded_words(raw)
    if not any(word in squeezed for word in _ALL_WORDS):
        return None
    head_end = raw.find(b"\r\n\r\n")
    head = raw if head_end < 0 else raw[:head_end]
    if b"override" in _decoded_words(head):
        return "method override header"
    for line in _LINE_SPLIT.split(raw):
        tokens = line.split(None, 2)
        if not tokens:
            continue
        method = tokens[0]
        # A method token is compared whole by any server; only a short one can mean DELETE.
        letters = _NOT_ALPHA_UPPER.sub(b"", method.upper()) if len(method) <= 64 else method.upper()
        if b"DELETE" in letters:
            return f"method {method[:20]!r}"
        # The target as a whitespace-splitting parser sees it, and as one splitting on any control byte.
        ctl_tokens = [t for t in _CTL_SPLIT.split(line, 2) if t]
        for tokens_seen in (tokens, ctl_tokens[:2]):
            if len(tokens_seen) < 2:
                continue
            verb, target = tokens_seen[0], tokens_seen[1]
            words = _decoded_words(target)
            for word in DENY_ANY_METHOD:
                if word in words:
                    return f"path word {word.decode()} in {target[:60]!r}"
            if verb != b"GET":
                for word in DENY_UNLESS_GET:
                    if word in words:
                        return f"{verb[:20]!r} to a {word.decode()} path {target[:60]!r}"
    return None


# --- the request -------------------------------------------------------------------------------------
class Req:
    """One request before serialization. Mutations edit these fields; build() makes the bytes."""
    __slots__ = ("route", "method", "target", "version", "headers", "body", "eol", "auto_length", "chunked",
                 "txids", "mutations", "framing_intact", "plan", "responses", "raw", "tail", "send_plan",
                 "completeness")

    def __init__(self, route, method, target, body=None, txids=()):
        self.route = route
        self.method = method
        self.target = target
        self.version = b"HTTP/1.1"
        self.headers = [(b"Host", b"127.0.0.1"), (b"User-Agent", b"queen-fuzz-e2e"), (b"Accept", b"*/*")]
        if body is not None:
            self.headers.append((b"Content-Type", b"application/json"))
        self.body = body if body is not None else b""
        self.eol = b"\r\n"
        self.auto_length = body is not None   # add a correct Content-Length at build()
        self.chunked = None                   # list of (size_line_bytes, data_bytes) when sent chunked
        self.txids = list(txids)              # transactionIds the template put in (for the report)
        self.mutations = []
        self.framing_intact = True            # False once the message boundaries are in doubt
        self.plan = ("whole",)
        self.responses = 1
        self.raw = None
        self.tail = b""                       # bytes appended after the request (pipelining)
        self.send_plan = None                 # what e2e_wire.Connection.exchange gets
        self.completeness = "complete"        # "incomplete": the client stops before the request ends

    def build(self):
        eol = self.eol
        parts = [self.method, b" ", self.target, b" ", self.version, eol] if self.version is not None else \
            [self.method, b" ", self.target, eol]
        body = self.body
        headers = list(self.headers)
        if self.chunked is not None:
            body = b"".join(size + b"\r\n" + data + (b"\r\n" if data is not None else b"")
                            for size, data in self.chunked)
        elif self.auto_length:
            headers.append((b"Content-Length", str(len(body)).encode()))
        for name, value in headers:
            parts += [name, b": ", value, eol] if value is not None else [name, eol]
        parts.append(eol)
        self.raw = b"".join(parts) + body + self.tail
        return self.raw


def jdump(value, ascii_only=False):
    """Compact JSON; lone surrogates go out raw (invalid UTF-8) unless ascii_only escapes them."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def q(text):
    return urllib.parse.quote(text, safe="").encode()


def fake_uuid(rng):
    return "%08x-%04x-7%03x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                           0x8000 | rng.getrandbits(14), rng.getrandbits(48))


# --- templates ----------------------------------------------------------------------------------------
class Templates:
    """Valid requests of every route. `state` is the worker's Harvest (values seen in answers)."""

    def __init__(self, worker, tag, state):
        self.worker, self.tag, self.state = worker, tag, state

    def payload(self, rng):
        kind = rng.randrange(8)
        if kind == 0:
            return rng.randrange(-10 ** 6, 10 ** 6)
        if kind == 1:
            return " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))
        if kind == 2:
            return None
        if kind == 3:
            return [rng.random(), True, False, None, rng.choice(WORDS)]
        if kind == 4:
            return {"n": rng.randrange(1000), "tags": [rng.choice(WORDS) for _ in range(3)], "nested": {"ok": True}}
        if kind == 5:
            return {"blob": "x" * sized(rng, (0, 10, 100), (1000,), (10000,))}
        return {"order": rng.randrange(10 ** 9), "amount": round(rng.random() * 1000, 2), "currency": "EUR"}

    def push_item(self, rng, seq, index):
        txid = f"{self.tag}-w{self.worker}-{seq}-{index}"
        item = {"queue": rng.choice(QUEUES), "partition": rng.choice(PARTITIONS), "payload": self.payload(rng),
                "transactionId": txid}
        r = rng.random()
        if r < 0.08:
            item["deliverAt"] = rng.choice(("2020-01-01T00:00:00Z", "2099-12-31T23:59:59Z", 0, 1000,
                                            "1893456000000"))
        if rng.random() < 0.1:
            item["traceId"] = fake_uuid(rng)
        if rng.random() < 0.15:
            item["namespace"] = rng.choice(NAMESPACES)
            item["task"] = rng.choice(TASKS)
        if rng.random() < 0.05:
            del item["partition"]
        return item

    def push(self, rng, seq):
        n = sized(rng, (1, 1, 1, 1, 2, 3, 5, 10), (20,), (50,))
        items = [self.push_item(rng, seq, i) for i in range(n)]
        if n > 1 and rng.random() < 0.1:
            items.append(dict(items[0]))  # the same transactionId twice in one request: second is duplicate
        body = jdump({"items": items})
        txids = [i["transactionId"] for i in items]
        self.state.remember_push(body, txids)
        return Req("push", b"POST", b"/api/v1/push", body, txids)

    def push_again(self, rng, seq):
        """Re-send an earlier push body: every item must answer duplicate, no second row."""
        earlier = self.state.earlier_push(rng)
        if earlier is None:
            return self.push(rng, seq)
        return Req("push-again", b"POST", b"/api/v1/push", earlier[0], earlier[1])

    def pop_query(self, rng):
        params = [("batch", str(rng.choice((1, 1, 5, 10, 100, 1000))))]
        if rng.random() < 0.3:
            params += [("wait", "true"), ("timeout", str(rng.choice((1, 10, 50, 100))))]
        elif rng.random() < 0.5:
            params.append(("wait", "false"))
        if rng.random() < 0.4:
            params.append(("consumerGroup", rng.choice(GROUPS)))
        if rng.random() < 0.2:
            params.append(("autoAck", rng.choice(("true", "false"))))
        if rng.random() < 0.15:
            params.append(("subscriptionMode", rng.choice(("new", "all", "from"))))
            params.append(("subscriptionFrom", rng.choice(("now", "2024-01-01T00:00:00Z", "beginning"))))
        if rng.random() < 0.2:
            params.append(("partitions", str(rng.choice((1, 2, 5, 100)))))
        return urllib.parse.urlencode(params).encode()

    def pop_queue(self, rng, seq):
        return Req("pop-queue", b"GET", b"/api/v1/pop/queue/" + q(rng.choice(QUEUES)) + b"?" + self.pop_query(rng))

    def pop_partition(self, rng, seq):
        return Req("pop-partition", b"GET", b"/api/v1/pop/queue/" + q(rng.choice(QUEUES)) + b"/partition/" +
                   q(rng.choice(PARTITIONS)) + b"?" + self.pop_query(rng))

    def pop_filter(self, rng, seq):
        params = []
        if rng.random() < 0.8:
            params.append(("namespace", rng.choice(NAMESPACES)))
        if rng.random() < 0.6 or not params:
            params.append(("task", rng.choice(TASKS)))
        return Req("pop-filter", b"GET", b"/api/v1/pop?" + urllib.parse.urlencode(params).encode() + b"&" +
                   self.pop_query(rng))

    def ack_item(self, rng):
        message = self.state.popped(rng)
        if message is None:
            item = {"transactionId": f"{self.tag}-none-{rng.randrange(10 ** 6)}", "partitionId": fake_uuid(rng),
                    "leaseId": fake_uuid(rng)}
        else:
            item = {"transactionId": message["transactionId"], "partitionId": message["partitionId"]}
            if message.get("leaseId"):
                item["leaseId"] = message["leaseId"]
        item["status"] = rng.choice(("completed", "completed", "completed", "failed", "success", "dlq", "retry"))
        if item["status"] in ("failed", "dlq") and rng.random() < 0.5:
            item["error"] = rng.choice(("boom", {"code": 7}, ""))
        return item

    def ack(self, rng, seq):
        body = self.ack_item(rng)
        if rng.random() < 0.3:
            body["consumerGroup"] = rng.choice(GROUPS)
        return Req("ack", b"POST", b"/api/v1/ack", jdump(body))

    def ack_batch(self, rng, seq):
        body = {"acknowledgments": [self.ack_item(rng) for _ in range(rng.choice((1, 2, 5, 20)))]}
        if rng.random() < 0.3:
            body["consumerGroup"] = rng.choice(GROUPS)
        return Req("ack-batch", b"POST", b"/api/v1/ack/batch", jdump(body))

    def configure(self, rng, seq):
        options = {}
        for name, values in (("leaseTime", (1, 30, 300)), ("retryLimit", (0, 1, 3)), ("priority", (0, 5, 10)),
                             ("delayedProcessing", (0, 1)), ("windowBuffer", (0, 1)),
                             ("maxWaitTimeSeconds", (0, 3600)), ("ttl", (0, 3600)),
                             ("retryDelay", (0, 100)), ("deadLetterQueue", (True, False)),
                             ("dlqAfterMaxRetries", (True, False)), ("encryptionEnabled", (False,)),
                             ("retentionSeconds", (0, 86400)), ("completedRetentionSeconds", (0, 86400)),
                             ("retentionEnabled", (False, True)), ("maxSize", (0, 1000000))):
            if rng.random() < 0.4:
                options[name] = rng.choice(values)
        body = {"queue": rng.choice(QUEUES)}
        if rng.random() < 0.5:
            body["namespace"] = rng.choice(NAMESPACES)
            body["task"] = rng.choice(TASKS)
        if options or rng.random() < 0.5:
            body["options"] = options
        return Req("configure", b"POST", b"/api/v1/configure", jdump(body))

    def lease_extend(self, rng, seq):
        message = self.state.popped(rng)
        lease = message["leaseId"] if message and message.get("leaseId") else fake_uuid(rng)
        body = None if rng.random() < 0.2 else jdump({"seconds": rng.choice((1, 30, 600))})
        return Req("lease-extend", b"POST", b"/api/v1/lease/" + q(lease) + b"/extend", body)

    def transaction(self, rng, seq):
        operations = []
        txids = []
        for op_index in range(rng.choice((1, 2, 3))):
            if rng.random() < 0.6:
                items = [self.push_item(rng, seq, op_index * 100 + i) for i in range(rng.choice((1, 2, 3)))]
                for item in items:
                    if rng.random() < 0.7:
                        item.pop("deliverAt", None)
                txids += [i["transactionId"] for i in items]
                operations.append({"type": "push", "items": items})
            else:
                ack = self.ack_item(rng)
                ack["type"] = "ack"
                operations.append(ack)
        body = {"operations": operations}
        if rng.random() < 0.2:
            message = self.state.popped(rng)
            body["requiredLeases"] = [message["leaseId"] if message and message.get("leaseId") else fake_uuid(rng)]
        return Req("transaction", b"POST", b"/api/v1/transaction", jdump(body), txids)

    def dlq(self, rng, seq):
        params = []
        if rng.random() < 0.8:
            params.append(("queue", rng.choice(QUEUES)))
        if rng.random() < 0.3:
            params.append(("consumerGroup", rng.choice(GROUPS)))
        if rng.random() < 0.4:
            params += [("limit", str(rng.choice((1, 10, 1000)))), ("offset", str(rng.choice((0, 5, 100))))]
        if rng.random() < 0.2:
            params += [("from", "2020-01-01T00:00:00Z"), ("to", str(rng.choice((0, 4102444800000))))]
        return Req("dlq", b"GET", b"/api/v1/dlq" + (b"?" + urllib.parse.urlencode(params).encode() if params else b""))

    def kv_put(self, rng, seq):
        body = {"value": self.payload(rng)}
        if rng.random() < 0.5:
            body["ttlMs"] = rng.choice((0, 1000, 60000))
        return Req("kv-put", b"PUT", b"/api/v1/kv/" + rng.choice(KV_KEYS).encode(), jdump(body))

    def kv_get(self, rng, seq):
        return Req("kv-get", b"GET", b"/api/v1/kv/" + rng.choice(KV_KEYS).encode())

    def maintenance_get(self, rng, seq):
        return Req("maintenance-get", b"GET", rng.choice((b"/api/v1/system/maintenance",
                                                          b"/api/v1/system/maintenance/pop")))

    def health(self, rng, seq):
        return Req("health", b"GET", rng.choice((b"/health", b"/health/ready")))

    def metrics(self, rng, seq):
        return Req("metrics", b"GET", rng.choice((b"/metrics", b"/metrics/prometheus")))

    def status(self, rng, seq):
        return Req("status", b"GET", rng.choice((b"/api/v1/status/buffers", b"/api/v1/system/shared-state")))

    def weighted(self):
        return ((self.push, 26), (self.push_again, 5), (self.pop_queue, 7), (self.pop_partition, 5),
                (self.pop_filter, 3), (self.ack, 6), (self.ack_batch, 5), (self.configure, 5),
                (self.lease_extend, 4), (self.transaction, 8), (self.dlq, 4), (self.kv_put, 3), (self.kv_get, 2),
                (self.maintenance_get, 3), (self.health, 4), (self.metrics, 4), (self.status, 2))


class Harvest:
    """Values a worker saw in answers, reused by later templates (acks need real lease ids)."""

    def __init__(self):
        self.messages = []
        self.pushes = []

    def remember_push(self, body, txids):
        if len(body) <= 65536:
            self.pushes.append((body, txids))
            if len(self.pushes) > 200:
                del self.pushes[:100]

    def earlier_push(self, rng):
        r = rng.random()
        return self.pushes[int(r * len(self.pushes))] if self.pushes else None

    def popped(self, rng):
        r = rng.random()  # always one draw, whether or not anything was harvested
        return self.messages[int(r * len(self.messages))] if self.messages else None

    def harvest(self, body):
        """Take the messages of a pop answer (any object with a messages list)."""
        if isinstance(body, dict) and isinstance(body.get("messages"), list):
            for message in body["messages"][:20]:
                if isinstance(message, dict) and isinstance(message.get("transactionId"), str) and \
                        isinstance(message.get("partitionId"), str):
                    self.messages.append({"transactionId": message["transactionId"],
                                          "partitionId": message["partitionId"],
                                          "leaseId": message.get("leaseId") if isinstance(message.get("leaseId"), str)
                                          else None})
            if len(self.messages) > 128:
                del self.messages[:64]


# --- mutations ------------------------------------------------------------------------------------------
METHODS = (b"GET", b"POST", b"PUT", b"PATCH", b"HEAD", b"OPTIONS", b"TRACE", b"CONNECT", b"get", b"post", b"P0ST",
           b"PRI", b"", b"G", b"GET GET", b"\x00POST", b"POST\x00", b"\xff\xfe", b"A" * 5000)
VERSIONS = (b"HTTP/1.0", b"HTTP/2.0", b"HTTP/9.9", b"HTTP/1.1 extra", b"", b"http/1.1", b"HTTP/1.1\x00", b"HTTP/1",
            b"HTTP/1.10", b"HTTP/0.9", b"HTTP/-1.1", b"HTTP/1.1\xff", None)
NASTY_STRINGS = ("\u0000", "a\u0000b", "\ud800", "\udfff", "\u202e", "\ufeff", "\\", "\"", "%00", "../../etc/passwd",
                 "x" * 300, "\U0010ffff", "' OR 1=1 --", "$(id)", "\n\r")
INVALID_UTF8 = (b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80", b"\xfe\xff")
HUGE_NUMBERS = (b"1e999999", b"-1e999999", b"123456789012345678901234567890", b"-0", b"1e-999999",
                b"18446744073709551616", b"-9223372036854775809", b"9223372036854775807", b"0.0000000000000000001",
                b"1E+2147483648", b"1" * 5000, b"NaN", b"Infinity", b"-Infinity", b"0x10", b"01", b"1.", b".5")
JSON_TYPES = (b"null", b"true", b"false", b"0", b"-1", b"\"\"", b"[]", b"{}", b"\"x\"", b"[null]", b"{\"a\":1}")


def _flip(rng, data, count):
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(count):
        i = rng.randrange(len(buf))
        r = rng.random()
        if r < 0.5:
            buf[i] ^= 1 << rng.randrange(8)
        elif r < 0.8:
            buf[i] = rng.randrange(256)
        elif r < 0.9:
            del buf[i]
        else:
            buf.insert(i, rng.randrange(256))
        if not buf:
            break
    return bytes(buf)


def _value_spans(body):
    """Spans of JSON scalar values after a key: `"key":VALUE` (strings, numbers, literals)."""
    return [(m.start(1), m.end(1)) for m in re.finditer(rb'":\s*("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)',
                                                         body)]


def _replace_value(rng, body, replacement):
    spans = _value_spans(body)
    if not spans:
        return body + replacement
    start, end = spans[rng.randrange(len(spans))]
    return body[:start] + replacement + body[end:]


def _into_string(rng, body, insert):
    """Insert bytes inside a random JSON string value."""
    spans = [(s, e) for s, e in _value_spans(body) if body[s:s + 1] == b'"']
    if not spans:
        return body + insert
    start, end = spans[rng.randrange(len(spans))]
    at = rng.randrange(start + 1, end) if end - start > 1 else start + 1
    return body[:at] + insert + body[at:]


def sized(rng, common, rare, very_rare=None):
    """Sizes by class: big inputs stay in the mix without dominating the bytes sent (90% / 9% / 1%)."""
    r = rng.random()
    if very_rare is not None and r < 0.01:
        return rng.choice(very_rare)
    if r < 0.10:
        return rng.choice(rare)
    return rng.choice(common)


def _nest(depth, opener, closer, closed=True):
    return opener * depth + (b"1" + closer * depth if closed else b"")


class Mutator:
    """Applies mutations to a Req; every mutation appends its name to req.mutations."""

    def __init__(self, templates):
        self.templates = templates

    # --- body ----------------------------------------------------------------------------------------
    def body_mutation(self, rng, req, seq):
        body = req.body
        choice = rng.randrange(22)
        name = None
        if choice == 0:
            n = rng.choice((1, 1, 2, 4, 16))
            body, name = _flip(rng, body, n), f"body-flip-{n}"
        elif choice == 1:
            cut = rng.randrange(len(body) + 1) if body else 0
            body, name = body[:cut], "body-truncate"
        elif choice == 2:
            other = self.other_body(rng, seq)
            a = rng.randrange(len(body) + 1) if body else 0
            b = rng.randrange(len(other) + 1) if other else 0
            body, name = body[:a] + other[b:], "body-splice"
        elif choice == 3:
            body, name = self.other_body(rng, seq), "body-other-template"
        elif choice in (4, 5):
            depth = sized(rng, (64, 512, 4096), (100000,), (1000000,))
            shape = rng.randrange(3)
            if shape == 0:
                nested = _nest(depth, b"[", b"]")
            elif shape == 1:
                nested = _nest(depth, b'{"a":', b"}")
            else:
                nested = _nest(depth, b"[", b"]", closed=False)
            if body.startswith(b'{"items":[') and rng.random() < 0.7:
                # inside a push item's payload: the path that crashes a recursive parser
                body = _replace_after_key(body, b'"payload":', nested) if b'"payload":' in body else \
                    _replace_value(rng, body, nested)
            else:
                body = _replace_value(rng, body, nested) if body else nested
            name = f"body-nest-{['array', 'object', 'unclosed'][shape]}-{depth}"
        elif choice == 6:
            body, name = _replace_value(rng, body, rng.choice(HUGE_NUMBERS)), "body-huge-number"
        elif choice == 7:
            body, name = _into_string(rng, body, rng.choice(INVALID_UTF8)), "body-invalid-utf8"
        elif choice == 8:
            body, name = _into_string(rng, body, rng.choice((b"\\u0000", b"\\ud800", b"\\udc00\\ud800", b"\\u00",
                                                              b"\\x41", b"\\", b"\x00", b"\x01", b"\t"))), \
                "body-escape"
        elif choice == 9:
            body, name = _duplicate_key(rng, body), "body-duplicate-key"
        elif choice == 10:
            body, name = _replace_value(rng, body, rng.choice(JSON_TYPES)), "body-type-confusion"
        elif choice == 11:
            body, name = rng.choice((b"", b" ", b"null", b"[]", b"{}", b"\"\"", b"0", b"\xef\xbb\xbf{}", b"{",
                                     b"}", b"[", b"{\"items\":null}", b"{\"items\":{}}", b"{\"items\":[]}",
                                     b"{\"items\":[null]}", b"{\"operations\":[]}", b"{\"acknowledgments\":[]}",
                                     b"\x00" * 16)), "body-degenerate"
        elif choice == 12:
            s = rng.choice(NASTY_STRINGS)
            body, name = _replace_value(rng, body, jdump(s, ascii_only=rng.random() < 0.5)), "body-nasty-string"
        elif choice == 13:
            size = sized(rng, (100, 1000, 5000), (70000,), (1 << 20, 3 << 20))
            body, name = _replace_value(rng, body, b'"' + b"y" * size + b'"'), f"body-long-string-{size}"
        elif choice == 14:
            count = sized(rng, (20, 100), (1000, 2000), (10000,))
            if body.startswith(b'{"items":['):
                items = b",".join(b'{"queue":"%s","partition":"p%d","payload":%d,"transactionId":"%s-w%d-%d-big%d"}'
                                  % (rng.choice(QUEUES).encode(), i % 8, i, self.templates.tag.encode(),
                                     self.templates.worker, seq, i) for i in range(count))
                body = b'{"items":[' + items + b"]}"
            else:
                body = b"[" + b",".join([b"{}"] * count) + b"]"
            name = f"body-many-items-{count}"
        elif choice == 15:
            garbage = rng.randbytes(rng.choice((1, 16, 512)))
            at = rng.randrange(len(body) + 1) if body else 0
            body, name = body[:at] + garbage + body[at:], "body-garbage"
        elif choice == 16:
            body, name = body + rng.choice((b" ", b"\n", b"x", b"{}", b",", b"\x00", b"]}")), "body-trailing"
        elif choice == 17:
            body, name = rng.choice((b"\xef\xbb\xbf", b"\xff\xfe", b" \t\r\n", b"\x00")) + body, "body-prefix"
        elif choice == 18:
            many = b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(sized(rng, (10, 100, 1000), (50000,)))) + b"}"
            body, name = _replace_value(rng, body, many), "body-wide-object"
        elif choice == 19:
            body, name = _replace_value(rng, body, b'"' + b"\\u00e9" * sized(rng, (10, 1000), (20000,)) + b'"'), \
                "body-escapes-many"
        elif choice == 20:
            body, name = body.replace(b'"', b"'", rng.choice((1, 2, 100))), "body-single-quotes"
        else:
            body, name = _replace_value(rng, body, jdump(rng.choice(("2025-02-30T00:00:00Z", "tomorrow", -1,
                                                                     99999999999999999, "9" * 40)))), \
                "body-bad-time"
        req.body = body
        req.mutations.append(name)

    def other_body(self, rng, seq):
        for _ in range(5):
            template = rng.choice([t for t, _ in self.templates.weighted()])
            other = template(rng, seq)
            if other.body:
                return other.body
        return b"{}"

    # --- request line ------------------------------------------------------------------------------
    def line_mutation(self, rng, req):
        choice = rng.randrange(12)
        if choice == 0:
            req.method = rng.choice(METHODS)
            name = "line-method"
        elif choice == 1:
            req.method = _flip(rng, req.method, 1)
            name = "line-method-flip"
        elif choice == 2:
            req.target = _flip(rng, req.target, rng.choice((1, 3)))
            name = "line-path-flip"
        elif choice == 3:
            insert = rng.choice((b"//", b"/../", b"/./", b"%00", b"%2e%2e/", b"%2F", b"%", b"%zz", b"?", b"#",
                                 b"\\", b" ", b"\t", b"%u0041", b"\xc3\xa9", b"\xff", b";a=b", b"/" * 100))
            at = rng.randrange(len(req.target) + 1)
            req.target = req.target[:at] + insert + req.target[at:]
            name = "line-path-insert"
        elif choice == 4:
            size = sized(rng, (300, 9000), (70000,), (300000,))
            req.target = req.target + (b"&" if b"?" in req.target else b"?") + b"x=" + b"a" * size
            name = f"line-long-target-{size}"
        elif choice == 5:
            count = sized(rng, (65, 100), (5000,))
            extra = b"&".join(b"p%d=%d" % (i, i) for i in range(count))
            req.target = req.target + (b"&" if b"?" in req.target else b"?") + extra
            name = f"line-many-params-{count}"
        elif choice == 6:
            key = rng.choice((b"batch", b"timeout", b"wait", b"limit", b"offset", b"partitions", b"autoAck",
                              b"consumerGroup", b"namespace", b"task", b"queue"))
            value = rng.choice((b"-1", b"0", b"99999999999999999999", b"1e9", b"abc", b"", b"%00", b"true%00",
                                b"NaN", b"0x10", b"+5", b"%ff", b"2147483648"))
            req.target = req.target + (b"&" if b"?" in req.target else b"?") + key + b"=" + value
            if rng.random() < 0.5:
                req.target += b"&" + key + b"=1"
            name = "line-query-value"
        elif choice == 7:
            req.version = rng.choice(VERSIONS)
            name = "line-version"
        elif choice == 8:
            req.eol = rng.choice((b"\n", b"\r", b"\r\r\n", b"\n\r"))
            req.framing_intact = False
            name = "line-eol"
        elif choice == 9:
            req.target = rng.choice((b"*", b"http://127.0.0.1" + req.target, b"", b"api/v1/push", b"//health",
                                     b"/" + req.target, req.target.upper(), b"/api/v1/pop/queue/",
                                     b"/api/v1/pop/queue//partition/", b"/api/v1/lease//extend",
                                     b"/api/v1/kv/", b"/api/v1/kv/" + b"k" * 300))
            name = "line-target-swap"
        elif choice == 10:
            req.method = req.method + b"  "
            req.target = b" " + req.target
            name = "line-extra-spaces"
        else:
            req.target = urllib.parse.quote(req.target.decode("latin-1"), safe="/").encode()
            name = "line-percent-encode"
        req.mutations.append(name)

    # --- headers -------------------------------------------------------------------------------------
    def header_mutation(self, rng, req):
        choice = rng.randrange(20)
        if choice == 0:
            if req.headers:
                req.headers.insert(rng.randrange(len(req.headers) + 1), rng.choice(req.headers))
            name = "hdr-duplicate"
        elif choice == 1:
            size = sized(rng, (8000, 17000), (70000,), (300000,))
            req.headers.append((b"X-Big", b"v" * size))
            name = f"hdr-oversized-{size}"
        elif choice == 2:
            count = sized(rng, (50, 101), (1000,), (10000,))
            req.headers += [(b"X-H%d" % i, b"1") for i in range(count)]
            name = f"hdr-many-{count}"
        elif choice == 3:
            req.auto_length = False
            req.framing_intact = False
            name = "hdr-no-content-length"
        elif choice == 4:
            n = len(req.body)
            req.auto_length = False
            req.framing_intact = False
            req.headers.append((b"Content-Length", str(n).encode()))
            req.headers.append((b"Content-Length", str(rng.choice((0, max(0, n - 5), n + 7, n * 2))).encode()))
            name = "hdr-content-length-contradicting"
        elif choice == 5:
            req.auto_length = False
            req.framing_intact = False
            req.headers.append((b"Content-Length", rng.choice((b"-1", b"abc", b"1e3", b"0x10", b" 5", b"5 5",
                                                                b"+5", b"18446744073709551616",
                                                                b"99999999999999999999999", b"", b"5,5",
                                                                str(len(req.body)).encode() + b"\x00"))))
            name = "hdr-content-length-invalid"
        elif choice == 6:
            req.auto_length = False
            req.framing_intact = False
            smaller = rng.randrange(len(req.body)) if req.body else 0
            req.headers.append((b"Content-Length", str(smaller).encode()))
            name = "hdr-content-length-short"   # the rest of the body reads as the next request
        elif choice == 7:
            req.auto_length = False
            req.framing_intact = False
            req.headers.append((b"Content-Length", rng.choice((b"104857600", b"67108865", b"4294967296",
                                                                b"9223372036854775807"))))
            req.plan = ("shut_after_all",)  # the body never comes: half-close and read the answer
            name = "hdr-content-length-huge"
        elif choice in (8, 9):
            self._chunked(rng, req, bad=(choice == 9))
            return
        elif choice == 10:
            req.headers.append((b"Transfer-Encoding", rng.choice((b"gzip", b"chunked, gzip", b"gzip, chunked",
                                                                  b"identity", b"chunked, chunked", b"xchunked",
                                                                  b" chunked", b"CHUNKED"))))
            req.framing_intact = False
            name = "hdr-transfer-encoding-odd"
        elif choice == 11:
            garbage = rng.randbytes(rng.choice((8, 64, 1024)))
            req.headers.insert(rng.randrange(len(req.headers) + 1), (garbage, None))
            req.framing_intact = False
            name = "hdr-binary-garbage"
        elif choice == 12:
            req.headers.append(rng.choice(((b"X-No-Colon", None), (b"", b"empty-name"), (b"Bad Name", b"v"),
                                           (b" Folded", b"v"), (b"X-A", b"v\r\n continued"),
                                           (b"X-Nul", b"a\x00b"), (b"X-Cr", b"a\rb"), (b"X-Utf8", b"\xc3\xa9\xff"),
                                           (b"X-Empty", b""))))
            req.framing_intact = False
            name = "hdr-malformed-line"
        elif choice == 13:
            req.headers = [(k, v) for k, v in req.headers if k.lower() != b"content-type"]
            req.headers.append((b"Content-Type", rng.choice((b"text/plain", b"multipart/form-data; boundary=x",
                                                             b"application/json; charset=latin-1",
                                                             b"application/x-www-form-urlencoded", b"",
                                                             b"application/json" * 100))))
            name = "hdr-content-type"
        elif choice == 14:
            req.headers.append((b"Content-Encoding", rng.choice((b"gzip", b"deflate", b"br", b"zstd"))))
            name = "hdr-content-encoding"
        elif choice == 15:
            req.headers.append((b"Expect", rng.choice((b"100-continue", b"200-ok", b"100-continue, x"))))
            name = "hdr-expect"
        elif choice == 16:
            req.headers.append(rng.choice(((b"Connection", b"close"), (b"Connection", b"upgrade"),
                                           (b"Upgrade", b"websocket"), (b"Connection", b"keep-alive, close"),
                                           (b"Keep-Alive", b"timeout=0"), (b"Connection", b"Transfer-Encoding"))))
            name = "hdr-connection"
        elif choice == 17:
            req.headers = [(k, v) for k, v in req.headers if k != b"Host"]
            if rng.random() < 0.5:
                req.headers += [(b"Host", b"a"), (b"Host", b"b" * 3000)]
            name = "hdr-host"
        elif choice == 18:
            req.headers.append((b"Content-Length", str(len(req.body)).encode()))
            req.headers.append((b"Transfer-Encoding", b"chunked"))
            req.auto_length = False
            req.framing_intact = False
            name = "hdr-content-length-and-chunked"
        else:
            req.headers.append((b"X-Forwarded-For", b"1.2.3.4, " * rng.choice((1, 1000))))
            name = "hdr-forwarded"
        req.mutations.append(name)

    def _chunked(self, rng, req, bad):
        body = req.body
        chunks = []
        pos = 0
        while pos < len(body):
            size = rng.choice((1, 7, 100, 4096, 65536))
            piece = body[pos:pos + size]
            chunks.append([b"%x" % len(piece), piece])
            pos += size
        if len(chunks) > 2000:
            chunks = [[b"%x" % len(body), body]]
        final = [b"0", b""]  # size line "0", then the empty line ending the trailers
        name = "hdr-chunked"
        if bad:
            kind = rng.randrange(9)
            if kind == 0 and chunks:
                chunks[rng.randrange(len(chunks))][0] = rng.choice((b"zz", b"-1", b"", b" ", b"0x10", b"g"))
            elif kind == 1 and chunks:
                c = chunks[rng.randrange(len(chunks))]
                c[0] = b"%x" % (len(c[1]) + rng.choice((1, 100, 100000)))
            elif kind == 2:
                chunks.append([rng.choice((b"ffffffffffffffff", b"7fffffffffffffff", b"10000000000000000",
                                           b"ffffffff")), b"x"])
            elif kind == 3:
                final = None  # no last chunk: the body never ends
            elif kind == 4 and chunks:
                chunks[0][0] = chunks[0][0] + b";ext=" + b"e" * rng.choice((10, 100000))
            elif kind == 5:
                final = [b"0", b"X-Trailer: " + b"t" * rng.choice((10, 100000)) + b"\r\n"]
            elif kind == 6 and chunks:
                chunks[0][0] = b"0" * 300 + chunks[0][0]
            elif kind == 7:
                chunks.insert(0, [b"0", b""])  # a last chunk first: the rest is a "next request"
            else:
                chunks.append([b"3", b"abcdef"])  # more data than the size says
            name = f"hdr-chunked-bad-{kind}"
        req.chunked = [(s, d) for s, d in chunks] + ([(final[0], final[1])] if final else [])
        req.auto_length = False
        req.headers.append((b"Transfer-Encoding", b"chunked"))
        if bad:
            req.framing_intact = False
            if final is None:
                req.plan = ("shut_after_all",)
        req.mutations.append(name)

    # --- timing ----------------------------------------------------------------------------------------
    def timing_mutation(self, rng, req):
        """Choose how the bytes go out. Cut points are resolved after build() (they need the length)."""
        choice = rng.randrange(8)
        if choice in (0, 1):
            req.plan = ("split", rng.choice((2, 3, 8)), rng.choice((0.0, 0.001, 0.01, 0.05)))
            req.mutations.append("time-partial-sends")
        elif choice == 2:
            req.plan = ("bytewise_head",)
            req.mutations.append("time-bytewise-head")
        elif choice == 3:
            req.plan = ("close_at_random",)
            req.mutations.append("time-close-mid-request")
        elif choice == 4:
            # The whole body, but Content-Length promises more; then close. The request never
            # completed: nothing of it may be stored.
            req.auto_length = False
            req.chunked = None
            req.framing_intact = False
            req.headers = [(k, v) for k, v in req.headers if k.lower() not in (b"content-length",
                                                                               b"transfer-encoding")]
            req.headers.append((b"Content-Length", str(len(req.body) + rng.choice((1, 2, 100))).encode()))
            req.plan = ("close_all",)
            req.mutations.append("time-close-body-shorter-than-length")
        elif choice == 5:
            req.plan = ("shut_at_random",)
            req.mutations.append("time-half-close-mid-request")
        elif choice == 6:
            req.plan = ("close_after_head",)
            req.mutations.append("time-close-after-head")
        else:
            req.tail = rng.choice((b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                                   b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"))
            req.responses = 1 + req.tail.count(b"GET ")
            req.mutations.append("time-pipelined")

    @staticmethod
    def resolve_plan(rng, req):
        """(send plan for e2e_wire.Connection.exchange, "complete" | "incomplete")."""
        raw = req.raw
        head_len = raw.find(b"\r\n\r\n")
        head_len = len(raw) if head_len < 0 else head_len + 4
        kind = req.plan[0]
        if not req.framing_intact and kind in ("whole", "split", "bytewise_head"):
            # The server may wait for bytes that never come (a longer Content-Length, a missing last
            # chunk, a head that never ends for it): send everything, half-close, read the answer.
            return ("shut_at", len(raw)), "complete"
        if kind == "split":
            pieces, delay = req.plan[1], req.plan[2]
            cuts = sorted(rng.randrange(1, len(raw)) for _ in range(pieces - 1)) if len(raw) > 1 else []
            return ("split", [(c, delay) for c in cuts]), "complete"
        if kind == "bytewise_head":
            return ("split", [(i, 0.0005) for i in range(1, min(head_len, 64))]), "complete"
        if kind == "close_at_random":
            return ("close_at", rng.randrange(len(raw)) if raw else 0), "incomplete"
        if kind == "shut_at_random":
            return ("shut_at", rng.randrange(len(raw)) if raw else 0), "incomplete"
        if kind == "shut_after_all":
            return ("shut_at", len(raw)), "incomplete"
        if kind == "close_after_head":
            return ("close_at", min(head_len, len(raw))), "incomplete" if head_len < len(raw) else "abandoned"
        if kind in ("close_all", "close_all_unsure"):
            return ("close_at", len(raw)), "incomplete"
        return ("whole",), "complete"


def _promises_more(req):
    """True when the only framing is one Content-Length larger than the body: the request cannot complete."""
    lengths = [v for k, v in req.headers if k.lower() == b"content-length"]
    framing = [k for k, v in req.headers if k.lower() == b"transfer-encoding" or v is None]
    return (req.chunked is None and not req.auto_length and not framing and len(lengths) == 1
            and lengths[0].isdigit() and int(lengths[0]) > len(req.body))


def _replace_after_key(body, key, replacement):
    """Replace the JSON value following the first occurrence of key (a best-effort scan, not a parser)."""
    at = body.find(key)
    if at < 0:
        return body
    start = at + len(key)
    depth = 0
    i = start
    in_string = False
    while i < len(body):
        c = body[i:i + 1]
        if in_string:
            if c == b"\\":
                i += 1
            elif c == b'"':
                in_string = False
                if depth == 0:
                    i += 1
                    break
        elif c == b'"':
            in_string = True
        elif c in (b"{", b"["):
            depth += 1
        elif c in (b"}", b"]"):
            if depth == 0:
                break
            depth -= 1
            if depth == 0:
                i += 1
                break
        elif c == b"," and depth == 0:
            break
        i += 1
    return body[:start] + replacement + body[i:]


def _duplicate_key(rng, body):
    m = list(re.finditer(rb'"([A-Za-z]+)":', body))
    if not m:
        return body
    key = m[rng.randrange(len(m))]
    value = rng.choice((b'"dup"', b"null", b"1", b"[]", b'"' + key.group(1) + b'-2"'))
    return body[:key.start()] + b'"' + key.group(1) + b'":' + value + b"," + body[key.start():] \
        if rng.random() < 0.5 else body[:key.start()] + key.group(0) + value + b"," + body[key.start():]


# --- the generator -----------------------------------------------------------------------------------------
class Generator:
    """Request k of worker w: sub-seeded from (seed, w), so answers never shift later requests."""

    def __init__(self, seed, worker, tag, clean_ratio=0.2, skip=()):
        self.master = random.Random(f"queen-fuzz-e2e/{seed}/{worker}")
        self.worker = worker
        self.state = Harvest()
        self.templates = Templates(worker, tag, self.state)
        self.mutator = Mutator(self.templates)
        self.choices = self.templates.weighted()
        self.total_weight = sum(w for _, w in self.choices)
        self.clean_ratio = clean_ratio
        self.skip = tuple(skip)
        self.denials = 0
        self.skipped = 0
        self.txid_re = re.compile(re.escape(tag.encode()) + rb"-w[0-9]+-[0-9]+-[0-9a-z]+")

    def pick_template(self, rng):
        r = rng.random() * self.total_weight
        for template, weight in self.choices:
            r -= weight
            if r < 0:
                return template
        return self.choices[-1][0]

    def next(self, seq):
        sub_seed = self.master.getrandbits(64)
        attempt = 0
        while True:
            rng = random.Random(sub_seed + attempt * 0x9E3779B97F4A7C15)
            req = self.make(rng, seq)
            reason = denied(req.raw)
            if reason is None and self.skip and any(m.startswith(self.skip) for m in req.mutations):
                self.skipped += 1
                reason = "skipped"
            if reason is None:
                return req
            if reason != "skipped":
                self.denials += 1
            attempt += 1

    def make(self, rng, seq):
        req = self.pick_template(rng)(rng, seq)
        if rng.random() >= self.clean_ratio:
            layers = rng.choice((1, 1, 1, 2, 2, 3))
            for _ in range(layers):
                layer = rng.random()
                if layer < 0.45:
                    self.mutator.body_mutation(rng, req, seq)
                elif layer < 0.62:
                    self.mutator.line_mutation(rng, req)
                elif layer < 0.87:
                    self.mutator.header_mutation(rng, req)
                else:
                    self.mutator.timing_mutation(rng, req)
        if req.plan[0] == "close_all" and not _promises_more(req):
            req.plan = ("close_all_unsure",)  # a later header mutation may have made the request whole
        req.build()
        if rng.random() < 0.003 and req.plan[0] != "close_all":
            # raw flips anywhere in the head (not under close_all: its Content-Length must stay intact)
            head_end = req.raw.find(b"\r\n\r\n")
            head_end = len(req.raw) if head_end < 0 else head_end
            req.raw = _flip(rng, req.raw[:head_end], rng.choice((1, 3))) + req.raw[head_end:]
            req.framing_intact = False
            req.mutations.append("raw-head-flip")
        # The transactionIds this request really carries (splices bring other templates' ids along).
        req.txids = sorted({t.decode() for t in self.txid_re.findall(req.raw)})
        req.send_plan, req.completeness = self.mutator.resolve_plan(rng, req)
        if req.tail and (req.completeness != "complete" or not req.framing_intact):
            req.responses = 1  # the pipelined requests may never be read: expect only the first answer
        return req


def encode_raw(raw):
    return base64.b64encode(raw).decode("ascii")


def decode_raw(text):
    return base64.b64decode(text.encode("ascii"))
