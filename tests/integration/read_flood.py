"""A flood of concurrent GETs, run as its own process by test_read_lane.py so that its threads never
compete with the test's latency probes for one interpreter lock.

    python3 read_flood.py <base url> <path with query> <bearer token or ""> <threads> <socket timeout s>

Every thread sends the GET again as soon as it is answered, until stdin reaches end of file (the test
closes it). Then one JSON line goes to stdout: the statuses seen, the kinds of body (their first
characters) and the Retry-After values per non-200 status, and the errors (a socket timeout counts as one: a read that hung).
"""
import http.client
import json
import os
import sys
import threading
import urllib.parse

PREFIX_CHARS = 26  # enough of an error body to tell '{"error":"read lane busy: ' from '{"error":"read timed out: '


def main():
    # The flood stands for clients on other machines: at the lowest CPU priority its own request
    # loop never takes the cores the broker and PostgreSQL need (the work it causes there is real).
    os.nice(19)
    base, path, token, threads, timeout_s = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    url = urllib.parse.urlsplit(base)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    stop = threading.Event()
    lock = threading.Lock()
    report = {"statuses": {}, "bodies": {}, "retry_after": {}, "errors": []}

    def reader():
        conn = None
        while not stop.is_set():
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout_s)
                conn.request("GET", path, headers=headers)
                resp = conn.getresponse()
                body = resp.read()
                with lock:
                    key = str(resp.status)
                    report["statuses"][key] = report["statuses"].get(key, 0) + 1
                    if resp.status != 200:
                        kinds = report["bodies"].setdefault(key, [])
                        kind = body.decode("utf-8", "replace")[:PREFIX_CHARS]
                        if kind not in kinds:
                            kinds.append(kind)
                        seen = report["retry_after"].setdefault(key, [])
                        if resp.getheader("Retry-After") not in seen:
                            seen.append(resp.getheader("Retry-After"))
                if resp.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    report["errors"].append(f"{type(exc).__name__}: {exc}")
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()

    workers = [threading.Thread(target=reader, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    sys.stdin.read()  # until the test closes our stdin
    stop.set()
    for w in workers:
        w.join(timeout_s + 5)
    report["stuck_threads"] = sum(1 for w in workers if w.is_alive())
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
