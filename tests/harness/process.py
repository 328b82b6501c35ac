"""A broker process as the kernel sees it: its memory figures from /proc/<pid>/status, and whether the
bounds a test measures (peak RSS, latency percentiles) apply to the binary under test at all.
"""
import os


def status_bytes(pid, field):
    """A kB field of /proc/<pid>/status (VmRSS, VmHWM ...) in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def reset_peak_rss(pid):
    """Linux: writing 5 to clear_refs resets VmHWM to the current RSS."""
    with open(f"/proc/{pid}/clear_refs", "w") as fh:
        fh.write("5")


def p99(samples):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def measured_bounds_apply():
    """Peak-RSS and latency bounds are properties of the release build. A sanitizer build (make test-asan:
    ASAN_OPTIONS is set) keeps freed memory in quarantine and runs several times slower, so there a test
    keeps every functional assertion (answers, ledgers, nothing lost) and skips only those figures."""
    return not any(name in os.environ for name in ("ASAN_OPTIONS", "TSAN_OPTIONS"))
