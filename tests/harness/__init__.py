"""Test harness for the Queen broker: real PostgreSQL, real broker processes, stdlib only.

See tests/harness/README.md. The names most tests need are re-exported here.
"""
from .api import QUEUE_MODE, QueenClient, ack_item, unique_name
from .broker import Broker, BrokerError
from .httpclient import HttpClient, Response
from .ledger import Ledger, LedgerReport
from .pg import PgCluster, PgError, PgTarget, TempDatabase
from .ports import free_port, is_listening
from .waiting import BackgroundWorker, Deadline, WorkerError, poll_until, run_workers

__all__ = [
    "QUEUE_MODE", "QueenClient", "ack_item", "unique_name", "Broker", "BrokerError", "HttpClient",
    "Response", "Ledger", "LedgerReport", "PgCluster", "PgError", "PgTarget", "TempDatabase",
    "free_port", "is_listening", "BackgroundWorker", "Deadline", "WorkerError", "poll_until", "run_workers",
]
