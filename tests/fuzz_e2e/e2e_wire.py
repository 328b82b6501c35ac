"""Raw HTTP/1.1 over TCP for the end-to-end fuzz run: send bytes exactly as given, read answers robustly.

Nothing here trusts the peer: a response may be any status, garbled, truncated, chunked, a 1xx
interim answer followed by the real one, or never come. Every read has a deadline.

    conn = Connection("127.0.0.1", port)
    outcome = conn.exchange(raw_bytes, plan=("whole",), responses=1, head=False, timeout=30)
    outcome.kind      # "ok" | "closed" | "truncated" | "timeout" | "reset" | "garbled" | "refused" | "abandoned"
    outcome.responses # [Response(status, headers, body, keep_alive)]
"""
import select
import socket
import time

MAX_HEAD_BYTES = 1 << 20        # a response head larger than this is "garbled"
MAX_BODY_BYTES = 512 << 20      # a response body larger than this is "garbled"


class Response:
    __slots__ = ("status", "version", "headers", "body", "keep_alive")

    def __init__(self, status, version, headers, body, keep_alive):
        self.status, self.version, self.headers, self.body, self.keep_alive = status, version, headers, body, keep_alive

    def header(self, name, default=None):
        return self.headers.get(name.lower(), default)

    def __repr__(self):
        return f"<Response {self.status} {len(self.body)} bytes>"


class Outcome:
    """What one exchange produced. kind is "ok" when every expected response was read in full."""
    __slots__ = ("kind", "responses", "detail", "reusable")

    def __init__(self, kind, responses=None, detail="", reusable=False):
        self.kind, self.responses, self.detail, self.reusable = kind, responses or [], detail, reusable

    @property
    def status_key(self):
        """The status code of the first response as text, else the failure kind."""
        return str(self.responses[0].status) if self.responses else self.kind


class Garbled(Exception):
    pass


class Truncated(Exception):
    pass


class Connection:
    """One client connection that reconnects when the previous exchange left it unusable."""

    def __init__(self, host, port, connect_timeout=10.0):
        self.host, self.port, self.connect_timeout = host, port, connect_timeout
        self.sock = None
        self.buf = b""
        self.connects = 0

    # --- connection management -----------------------------------------------------------
    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.buf = b""

    def _stale(self):
        """True when the server closed (or wrote unsolicited bytes on) an idle keep-alive connection."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable) or bool(self.buf)

    def ensure(self):
        if self.sock is not None and self._stale():
            self.close()
        if self.sock is None:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.connects += 1
        return self.sock

    # --- one exchange ------------------------------------------------------------------------
    def exchange(self, raw, plan=("whole",), responses=1, head=False, timeout=30.0):
        """Send `raw` following `plan` and read `responses` answers.

        plan:
          ("whole",)                        one sendall
          ("split", [(cut, delay_s), ...])  send up to each cut, sleep delay_s, then the rest
          ("close_at", cut)                 send raw[:cut] then close without reading ("abandoned")
          ("shut_at", cut)                  send raw[:cut], shutdown(SHUT_WR), read what comes
        head: the (first) request is a HEAD, its response has no body.
        """
        try:
            sock = self.ensure()
        except ConnectionRefusedError as exc:
            self.close()
            return Outcome("refused", detail=str(exc))
        except OSError as exc:
            self.close()
            return Outcome("refused", detail=f"connect: {exc}")
        deadline = time.monotonic() + timeout
        kind = plan[0]
        try:
            sock.settimeout(timeout)
            if kind == "whole":
                sock.sendall(raw)
            elif kind == "split":
                sent = 0
                for cut, delay in plan[1]:
                    if cut > sent:
                        sock.sendall(raw[sent:cut])
                        sent = cut
                    if delay:
                        time.sleep(delay)  # the plan's pause between pieces is the mutation itself, not a wait
                if sent < len(raw):
                    sock.sendall(raw[sent:])
            elif kind == "close_at":
                sock.sendall(raw[:plan[1]])
                self.close()
                return Outcome("abandoned")
            elif kind == "shut_at":
                sock.sendall(raw[:plan[1]])
                sock.shutdown(socket.SHUT_WR)
            else:
                raise ValueError(f"unknown send plan {plan!r}")
        except (BrokenPipeError, ConnectionResetError) as exc:
            # The server may have answered (413, 431, 400) and closed before taking everything:
            # whatever it wrote is still readable.
            got = self._read_after_send_failure(responses, head, deadline)
            if got is not None:
                return got
            self.close()
            return Outcome("reset", detail=f"send: {exc}")
        except socket.timeout:
            self.close()
            return Outcome("timeout", detail="send")
        except OSError as exc:
            self.close()
            return Outcome("reset", detail=f"send: {exc}")
        return self._read_responses(responses, head, deadline, half_closed=(kind == "shut_at"))

    def _read_after_send_failure(self, responses, head, deadline):
        try:
            out = self._read_responses(responses, head, min(deadline, time.monotonic() + 2.0), half_closed=True)
        except Exception:
            return None
        return out if out.responses else None

    def _read_responses(self, count, head, deadline, half_closed=False):
        got = []
        try:
            for index in range(count):
                response = self._read_one(head and index == 0, deadline)
                if response is None:  # clean EOF before any byte of this response
                    self.close()
                    return Outcome("closed", got, detail=f"EOF before response {index + 1}")
                got.append(response)
                if not response.keep_alive and index + 1 < count:
                    self.close()
                    return Outcome("closed", got, detail="server closed before the pipelined answers")
        except socket.timeout:
            self.close()
            return Outcome("timeout", got)
        except Truncated as exc:
            self.close()
            return Outcome("truncated", got, detail=str(exc))
        except Garbled as exc:
            self.close()
            return Outcome("garbled", got, detail=str(exc))
        except (ConnectionResetError, BrokenPipeError) as exc:
            self.close()
            return Outcome("reset", got, detail=str(exc))
        except OSError as exc:
            self.close()
            return Outcome("reset", got, detail=str(exc))
        reusable = (not half_closed) and bool(got) and got[-1].keep_alive
        if not reusable:
            self.close()
        return Outcome("ok", got, reusable=reusable)

    # --- reading -------------------------------------------------------------------------------
    def _recv(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("deadline")
        self.sock.settimeout(remaining)
        data = self.sock.recv(262144)
        return data

    def _fill_until(self, marker_positions, deadline, limit):
        """Read until one of the markers appears in buf. Returns (index, marker) or None on clean EOF."""
        start = 0
        while True:
            best = None
            for marker in marker_positions:
                i = self.buf.find(marker, max(0, start - 3))
                if i >= 0 and (best is None or i < best[0]):
                    best = (i, marker)
            if best is not None:
                return best
            if len(self.buf) > limit:
                raise Garbled(f"no end of head within {limit} bytes")
            start = len(self.buf)
            data = self._recv(deadline)
            if not data:
                return None
            self.buf += data

    def _read_exact(self, n, deadline):
        while len(self.buf) < n:
            data = self._recv(deadline)
            if not data:
                raise Truncated(f"EOF with {len(self.buf)} of {n} body bytes")
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _read_line(self, deadline, limit=65536):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[:i + 1], self.buf[i + 1:]
                return line
            if len(self.buf) > limit:
                raise Garbled("chunk line too long")
            data = self._recv(deadline)
            if not data:
                raise Truncated("EOF inside a chunked body")
            self.buf += data

    def _read_one(self, head, deadline):
        while True:
            if not self.buf:
                data = self._recv(deadline)
                if not data:
                    return None
                self.buf += data
            found = self._fill_until((b"\r\n\r\n", b"\n\n"), deadline, MAX_HEAD_BYTES)
            if found is None:
                if self.buf:
                    raise Truncated(f"EOF inside the response head ({len(self.buf)} bytes)")
                return None
            index, marker = found
            head_bytes, self.buf = self.buf[:index], self.buf[index + len(marker):]
            status, version, headers = parse_head(head_bytes)
            if 100 <= status < 200 and status != 101:
                continue  # interim answer (100 Continue, 103): the real one follows
            break
        if status == 101:
            raise Garbled("101 Switching Protocols")
        connection = headers.get("connection", "").lower()
        keep_alive = ("close" not in connection) if version == "HTTP/1.1" else ("keep-alive" in connection)
        if head or status in (204, 304):
            return Response(status, version, headers, b"", keep_alive)
        te = headers.get("transfer-encoding", "").lower()
        if "chunked" in te:
            body = self._read_chunked(deadline)
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"].split(",")[0].strip())
            except ValueError:
                raise Garbled(f"bad Content-Length {headers['content-length']!r}")
            if length < 0 or length > MAX_BODY_BYTES:
                raise Garbled(f"Content-Length {length}")
            body = self._read_exact(length, deadline)
        else:
            chunks = [self.buf]
            self.buf = b""
            while True:
                data = self._recv(deadline)
                if not data:
                    break
                chunks.append(data)
            body = b"".join(chunks)
            keep_alive = False
        return Response(status, version, headers, body, keep_alive)

    def _read_chunked(self, deadline):
        parts = []
        total = 0
        while True:
            line = self._read_line(deadline).strip()
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise Garbled(f"bad chunk size {line[:40]!r}")
            if size == 0:
                while self._read_line(deadline).strip():  # trailers
                    pass
                return b"".join(parts)
            total += size
            if total > MAX_BODY_BYTES:
                raise Garbled("chunked body too large")
            parts.append(self._read_exact(size, deadline))
            self._read_exact(2, deadline)


def parse_head(head_bytes):
    """Status line and headers of a response head -> (status, version, headers). Raises Garbled.

    Lenient on purpose: a status line whose version token is not HTTP/1.x (a server echoing a client's
    garbage version) still yields its status; the caller sees the odd version in Response.version.
    """
    lines = head_bytes.replace(b"\r\n", b"\n").split(b"\n")
    status_line = lines[0].decode("latin-1")
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[1].isdigit() or len(parts[1]) != 3:
        raise Garbled(f"bad status line {status_line[:80]!r}")
    headers = {}
    for raw in lines[1:]:
        if not raw:
            continue
        name, sep, value = raw.partition(b":")
        if not sep:
            raise Garbled(f"bad response header line {raw[:80]!r}")
        key = name.decode("latin-1").strip().lower()
        text = value.decode("latin-1").strip()
        # Repeated fields: keep them all, comma-joined (RFC 9110 5.3).
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return int(parts[1]), parts[0], headers
