"""Test harness for the Queen broker: real PostgreSQL, real broker processes, stdlib only.

See tests/harness/README.md. The names most tests need are re-exported here.
"""
from .api import QUEUE_MODE, QueenClient, ack_item, unique_name
from .broker import Broker, BrokerError
from .httpclient import HttpClient, Response
from .ledger import Ledger, LedgerReport
from .longpoll import ParkedPop
from .pg import PgCluster, PgError, PgTarget, TempDatabase
from .ports import closed_by_peer, free_port, is_listening
from .waiting import BackgroundWorker, Deadline, WorkerError, attempts, poll_until, run_workers

__all__ = [
    "QUEUE_MODE", "QueenClient", "ack_item", "unique_name", "Broker", "BrokerError", "HttpClient",
    "Response", "Ledger", "LedgerReport", "ParkedPop", "PgCluster", "PgError", "PgTarget", "TempDatabase",
    "closed_by_peer", "free_port", "is_listening", "BackgroundWorker", "Deadline", "WorkerError", "attempts",
    "poll_until", "run_workers",
]
