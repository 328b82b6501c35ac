"""Issue 20, item 8: a page from another origin, opened in a browser that can reach the broker, must not read
payloads nor change anything on a default broker (CORS off, docs/auth.md "Browsers and CORS"); with
HTTP_CORS_ORIGINS listing that page's origin the same page can (so the test can fail)."""
import pytest

from dashboard_support import OtherOrigin
from harness import Broker, unique_name
from harness.api import quote
from harness.waiting import poll_until

SECRET_PAYLOAD = {"card": "4111-1111-1111-1111"}

# Runs in the page: read one message's payload, then delete its queue. Each step's outcome or error is reported.
CROSS_ORIGIN_SCRIPT = """
const [base, messagePath, queuePath, done] = arguments;
(async () => {
  const out = {};
  try {
    const read = await fetch(base + messagePath);
    out.readStatus = read.status;
    out.read = await read.text();
  } catch (e) { out.readError = String(e); }
  try {
    const removed = await fetch(base + queuePath, {method: 'DELETE'});
    out.deleteStatus = removed.status;
  } catch (e) { out.deleteError = String(e); }
  return out;
})().then(done);
"""


@pytest.fixture(scope="module")
def other_origin():
    with OtherOrigin() as origin:
        yield origin


def seeded_message(broker):
    """A queue holding one message: (queue, the message's path, the queue's delete path)."""
    queue = unique_name("cross-origin")
    with broker.client() as c:
        assert c.push_one(queue, SECRET_PAYLOAD, transaction_id="card-1").status == 201
        listed = c.get("/api/v1/messages", params={"queue": queue})
        assert listed.status == 200, listed
        message = next(m for m in listed.body["messages"] if m["transactionId"] == "card-1")
    return queue, f"/api/v1/messages/{message['partitionId']}/card-1", f"/api/v1/resources/queues/{quote(queue)}"


def queue_exists(broker, queue):
    with broker.client() as c:
        resp = c.get(f"/api/v1/resources/queues/{quote(queue)}")
        assert resp.status in (200, 404), resp
        return resp.status == 200


def run_in_other_origin(browser, other_origin, broker, message_path, queue_path):
    browser.get(other_origin.origin + "/")
    poll_until(lambda: browser.title == "another origin", timeout=20, what="the other origin's page")
    return browser.execute_async_script(CROSS_ORIGIN_SCRIPT, broker.url, message_path, queue_path)


def test_a_default_broker_refuses_another_origins_page(browser, broker, other_origin):
    queue, message_path, queue_path = seeded_message(broker)
    outcome = run_in_other_origin(browser, other_origin, broker, message_path, queue_path)
    # The GET reaches the broker (a simple request) but the browser withholds the answer: no
    # Access-Control-Allow-Origin. The DELETE needs a preflight, which is not allowed: never sent.
    assert "readError" in outcome and "read" not in outcome, outcome
    assert "deleteError" in outcome and "deleteStatus" not in outcome, outcome
    assert queue_exists(broker, queue)


def test_a_listed_origin_may_read_and_delete(browser, database, other_origin):
    cors_broker = Broker(pg=database, name="dash-cors", env={"HTTP_CORS_ORIGINS": other_origin.origin}).start()
    try:
        queue, message_path, queue_path = seeded_message(cors_broker)
        outcome = run_in_other_origin(browser, other_origin, cors_broker, message_path, queue_path)
        assert outcome.get("readStatus") == 200, outcome
        assert SECRET_PAYLOAD["card"] in outcome["read"], outcome
        assert outcome.get("deleteStatus") == 200, outcome
        assert not queue_exists(cors_broker, queue)
    finally:
        cors_broker.stop()
