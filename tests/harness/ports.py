"""Free loopback TCP ports for brokers, mesh listeners and throwaway clusters, and a wait for the
other end of a connection to close it."""
import socket
import threading

from .waiting import Deadline

_lock = threading.Lock()
_handed_out = set()


def free_port():
    """A port nobody listens on right now, never returned twice by this process.

    There is an unavoidable race between closing the probe socket and the process binding the
    port; not handing a port out twice removes the race between our own helpers.
    """
    with _lock:
        for _ in range(100):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            if port not in _handed_out:
                _handed_out.add(port)
                return port
    raise RuntimeError("no free port found after 100 attempts")


def is_listening(port, host="127.0.0.1", timeout=0.2):
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def closed_by_peer(sock, timeout):
    """True once the other end closes `sock` (EOF or a reset) within `timeout` seconds, False when
    it is still open then. Whatever arrives meanwhile is read and dropped, so a peer blocked on
    writing to us is not what keeps the connection open."""
    deadline = Deadline(timeout)
    while not deadline.expired():
        sock.settimeout(max(0.05, deadline.remaining()))
        try:
            if sock.recv(1 << 16) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:  # reset, broken pipe: closed as well
            return True
    return False
