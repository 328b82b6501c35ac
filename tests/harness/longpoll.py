"""A long poll parked on a broker, for tests of what wakes it.

    pop = ParkedPop(broker, queue, timeout_ms=10000).wait_parked()
    assert pop.ended is None            # nothing was there to find
    client.push_one(queue, {...})
    resp = pop.result(timeout=16)       # the 200 the push woke

A push that lands before the poll's first check would be found by that check and prove nothing
about waking, so wait_parked() waits for the broker to say the poll is parked instead of sleeping.
"""
import threading
import time

from .waiting import poll_until

# The broker's gauges that show a parked poll whose first check is over (see ParkedPop.wait_parked).
PARKED_GAUGE = "queen_parked_pops"
LENT_CONNECTIONS_GAUGE = "queen_db_pool_active"
# Generous: a busy 2-core machine may take seconds to start a thread and run the first check.
PARK_TIMEOUT_S = 20.0


class ParkedPop:
    """One wait=true pop of `queue` on `broker`, run in a thread of its own from construction on.

    `started` and `ended` are monotonic times (ended is None while the pop runs); `response` or
    `error` holds how it ended. pop_kw go to QueenClient.pop (partition, consumer_group, ...).
    """

    def __init__(self, broker, queue, timeout_ms, **pop_kw):
        self.broker, self.queue, self.timeout_ms = broker, queue, timeout_ms
        self.response = self.error = self.ended = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(pop_kw,), name=f"parked-{queue}", daemon=True)
        self._thread.start()

    def _run(self, pop_kw):
        with self.broker.client() as c:
            try:
                self.response = c.pop(self.queue, wait=True, timeout_ms=self.timeout_ms, **pop_kw)
            except Exception as exc:  # reported by result()
                self.error = exc
        self.ended = time.monotonic()

    def wait_parked(self, timeout=PARK_TIMEOUT_S):
        """Wait until the broker counts a parked poll and lends no database connection. The poll is
        counted from just before its first check, and that check holds a connection while it runs,
        so both at once mean the check is over (or, for the instant between counting and taking the
        connection, not begun: a push then is found by the check and the test proves less, but does
        not fail). Returns early if the pop ended (the caller asserts it did not). Assumes no other
        long poll is parked on this broker."""
        def parked():
            if self.ended is not None:
                return True
            gauges = probe.gauges()
            return gauges.get(PARKED_GAUGE, 0) >= 1 and gauges.get(LENT_CONNECTIONS_GAUGE, 1) == 0

        with self.broker.client(timeout=5) as probe:
            poll_until(parked, timeout=timeout, what=f"a long poll of {self.queue} parked on {self.broker.name}")
        return self

    def result(self, timeout):
        """Wait for the pop to end and return its response; re-raises a request error."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"the long poll of {self.queue} still runs after {timeout:.1f}s")
        if self.error is not None:
            raise self.error
        return self.response
