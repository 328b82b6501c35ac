"""Deadlines, condition polling and bounded concurrent workers.

Tests never sleep for a fixed time when a condition can be polled: use poll_until, or attempts
for a loop that must look at what it saw last. Every loop in a worker is bounded by a Deadline,
so a broken broker fails a test instead of hanging it.
"""
import threading
import time
import traceback


class Deadline:
    """A point in time `seconds` from now (monotonic clock)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.started = time.monotonic()
        self.at = self.started + seconds

    def remaining(self):
        return max(0.0, self.at - time.monotonic())

    def expired(self):
        return time.monotonic() >= self.at

    def elapsed(self):
        return time.monotonic() - self.started

    def check(self, what):
        """Raise TimeoutError naming `what` once the deadline has passed."""
        if self.expired():
            raise TimeoutError(f"deadline of {self.seconds:.1f}s passed while {what}")


def attempts(timeout, interval=0.05, max_interval=0.5):
    """Yield the Deadline once per attempt until `timeout` seconds have passed; the caller breaks
    out when its condition holds and looks at what it saw last when the loop ends on its own.

        for _ in attempts(30, interval=0.25):
            report = check()
            if report.ok:
                break

    The first attempt is immediate and the last comes at the deadline. The pause between attempts
    grows by half each time up to `max_interval` (pass max_interval=interval for a fixed pace).
    """
    deadline = Deadline(timeout)
    while True:
        yield deadline
        if deadline.expired():
            return
        time.sleep(min(interval, deadline.remaining()))
        interval = min(interval * 1.5, max(interval, max_interval))


def poll_until(condition, timeout=10.0, interval=0.05, what="condition", max_interval=0.5):
    """Call condition() until it returns something truthy and return that value.

    Raises TimeoutError (with the last value or exception seen) after `timeout` seconds; `what` names the
    condition, or is a callable that names it then, so the message can say how far things got.
    The interval grows gently to at most `max_interval` so long polls do not hammer the broker.
    """
    last = None
    for _ in attempts(timeout, interval, max_interval):
        try:
            last = condition()
            if last:
                return last
        except Exception as exc:  # a transient error is just another "not yet"
            last = exc
    label = what() if callable(what) else what
    raise TimeoutError(f"{label} not met within {timeout:.1f}s (last: {last!r})")


class WorkerError(AssertionError):
    """One or more workers raised; the message holds each worker's traceback."""


def run_workers(count, target, timeout=60.0, name="worker"):
    """Run target(index) in `count` threads at once and return their results in index order.

    All workers start together (barrier). If any worker raises, WorkerError reports every
    failure. If a worker is still running after `timeout` seconds, TimeoutError is raised; the
    threads are daemons so a stuck one cannot keep the test process alive. Workers should
    bound their own loops with a Deadline shorter than `timeout`.
    """
    results = [None] * count
    errors = [None] * count
    barrier = threading.Barrier(count)

    def run(index):
        try:
            barrier.wait(timeout=timeout)
            results[index] = target(index)
        except BaseException:  # report everything, including assertion failures
            errors[index] = traceback.format_exc()

    threads = [threading.Thread(target=run, args=(i,), name=f"{name}-{i}", daemon=True)
               for i in range(count)]
    for thread in threads:
        thread.start()
    deadline = Deadline(timeout)
    for thread in threads:
        thread.join(deadline.remaining())
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        raise TimeoutError(f"workers still running after {timeout:.1f}s: {stuck}")
    failures = [f"--- {name}-{i} ---\n{err}" for i, err in enumerate(errors) if err]
    if failures:
        raise WorkerError(f"{len(failures)} of {count} workers failed:\n" + "\n".join(failures))
    return results


class BackgroundWorker:
    """One thread running target(stop_event) until stop() is called; its exception is re-raised by stop().

    For a consumer or producer that must run *while* the test does something else (kill a
    broker, crash PostgreSQL). target must check stop_event regularly and return promptly.
    """

    def __init__(self, target, name="background"):
        self.stop_event = threading.Event()
        self.result = None
        self._error = None
        self._thread = threading.Thread(target=self._run, args=(target,), name=name, daemon=True)

    def _run(self, target):
        try:
            self.result = target(self.stop_event)
        except BaseException:
            self._error = traceback.format_exc()

    def start(self):
        self._thread.start()
        return self

    def stop(self, timeout=30.0):
        """Signal, join, re-raise a failure; returns target's return value."""
        self.stop_event.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"{self._thread.name} did not stop within {timeout:.1f}s")
        if self._error:
            raise WorkerError(f"{self._thread.name} failed:\n{self._error}")
        return self.result
