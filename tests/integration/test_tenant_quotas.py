"""Per-tenant push quotas (docs/tenants.md): the push rate and the pending-message limit answer 429
with a Retry-After header; a DBA's override in queen.tenant_quotas wins over the broker default.

Without authentication every request is the default tenant's, which is enough to exercise both
quotas. Each test runs its broker on a database of its own: the pending count is summed over all
of a tenant's queues.
"""
import pytest

from harness import Broker, poll_until, unique_name
from harness.assertions import assert_json_error


@pytest.fixture
def own_db(temp_database):
    return temp_database().target


def push_n(client, queue, n):
    return client.push([{"queue": queue, "payload": {"i": i}} for i in range(n)])


def assert_quota_refusal(resp, words):
    assert resp.status == 429, resp
    assert_json_error(resp, 429)
    assert words in resp.body["error"], resp.body
    retry_after = resp.header("Retry-After")
    assert retry_after is not None and retry_after.isdigit() and int(retry_after) >= 1, resp.headers


def test_push_rate_quota_answers_429_with_retry_after(own_db):
    with Broker(pg=own_db, name="it-quota-rate",
                env={"QUEEN_TENANT_PUSH_RATE": "0.5", "QUEEN_TENANT_PUSH_BURST": "4"}).start() as broker:
        with broker.client() as client:
            queue = unique_name("qrate")
            assert push_n(client, queue, 4).status == 201  # the whole burst
            refused = push_n(client, queue, 1)
            assert_quota_refusal(refused, "push rate")
            assert int(refused.header("Retry-After")) == 2  # one message at 0.5/s
            # A refused push stores nothing.
            assert len(client.drain(queue, 4)) == 4


def test_pending_quota_answers_429_until_messages_are_consumed(own_db):
    with Broker(pg=own_db, name="it-quota-pending",
                env={"QUEEN_TENANT_MAX_PENDING": "5", "QUEEN_TENANT_QUOTA_CACHE_MS": "50",
                     "STATS_RECONCILE_INTERVAL_MS": "100"}).start() as broker:
        with broker.client() as client:
            queue = unique_name("qpend")
            assert push_n(client, queue, 5).status == 201
            assert_quota_refusal(push_n(client, queue, 1), "pending-message quota")
            client.drain(queue, 5)
            # Once the statistics reconciler has counted the consumption the tenant may push again.
            poll_until(lambda: push_n(client, queue, 1).status == 201, timeout=20, what="pending quota freed")


def test_a_dba_override_wins_over_the_broker_default(own_db):
    own_db.execute("SELECT queen.set_tenant_quota('', p_max_pending => 2)")
    with Broker(pg=own_db, name="it-quota-override",
                env={"QUEEN_TENANT_QUOTA_OVERRIDES": "true", "QUEEN_TENANT_MAX_PENDING": "1000"}).start() as broker:
        with broker.client() as client:
            queue = unique_name("qover")
            assert push_n(client, queue, 2).status == 201
            assert_quota_refusal(push_n(client, queue, 1), "2 pending messages")
