"""POST /api/v1/configure: full replace, all 15 options echoed with their JSON types
(docs/procedures.md configure_queue)."""
from harness import unique_name
from harness.assertions import assert_json_error, assert_uuid

SERVER_DEFAULTS = {
    "leaseTime": 300, "retryLimit": 3, "retryDelay": 1000, "priority": 0, "delayedProcessing": 0,
    "windowBuffer": 0, "maxSize": 0, "ttl": 3600, "retentionEnabled": False, "retentionSeconds": 0,
    "completedRetentionSeconds": 0, "maxWaitTimeSeconds": 0, "deadLetterQueue": False,
    "dlqAfterMaxRetries": False, "encryptionEnabled": False,
}

# Every option away from its default, so an echo of the default would be caught.
CUSTOM_OPTIONS = {
    "leaseTime": 120, "retryLimit": 2, "retryDelay": 250, "priority": 4, "delayedProcessing": 1,
    "windowBuffer": 2, "maxSize": 5000, "ttl": 7200, "retentionEnabled": True, "retentionSeconds": 86400,
    "completedRetentionSeconds": 3600, "maxWaitTimeSeconds": 600, "deadLetterQueue": True,
    "dlqAfterMaxRetries": True, "encryptionEnabled": False,
}


def assert_options_equal(actual, expected):
    """Same keys, same values and same JSON types (True == 1 in Python, so compare types too)."""
    assert set(actual) == set(expected), f"option keys differ: {sorted(set(actual) ^ set(expected))}"
    for key, value in expected.items():
        assert actual[key] == value and type(actual[key]) is type(value), \
            f"options[{key!r}] = {actual[key]!r}, expected {value!r} ({type(value).__name__})"


def test_configure_echoes_all_fifteen_options_with_types(client):
    queue = unique_name("cfg")
    resp = client.configure(queue, CUSTOM_OPTIONS, namespace="billing", task="render")
    assert resp.status == 200, resp
    body = resp.body
    assert body["configured"] is True
    assert body["queue"] == queue
    assert body["namespace"] == "billing"
    assert body["task"] == "render"
    assert_uuid(body["queueId"], "queueId")
    assert_uuid(body["partitionId"], "partitionId")
    assert_options_equal(body["options"], CUSTOM_OPTIONS)


def test_configure_without_options_stores_server_defaults(client):
    queue = unique_name("cfg-default")
    resp = client.configure(queue)
    assert resp.status == 200, resp
    assert resp.body["namespace"] == ""
    assert resp.body["task"] == ""
    assert_options_equal(resp.body["options"], SERVER_DEFAULTS)


def test_configure_is_a_full_replace_not_a_merge(client):
    queue = unique_name("cfg-replace")
    first = client.configure(queue, CUSTOM_OPTIONS)
    assert first.status == 200, first
    second = client.configure(queue, {"leaseTime": 10, "unknownOption": "ignored"})
    assert second.status == 200, second
    assert_options_equal(second.body["options"], dict(SERVER_DEFAULTS, leaseTime=10))
    # Same queue and same Default partition: reconfiguring never re-creates them.
    assert second.body["queueId"] == first.body["queueId"]
    assert second.body["partitionId"] == first.body["partitionId"]


def test_configure_creates_the_default_partition(client):
    queue = unique_name("cfg-part")
    configured = client.configure(queue)
    assert configured.status == 200, configured
    pushed = client.push_one(queue, {"x": 1})
    assert pushed.status == 201, pushed
    assert pushed.body[0]["partition_id"] == configured.body["partitionId"]


def test_configure_requires_a_queue_name(client):
    assert_json_error(client.post("/api/v1/configure", {"options": {"leaseTime": 5}}), 400,
                      message="queue is required")
    assert_json_error(client.post("/api/v1/configure", {"queue": 17}), 400, message="queue is required")


def test_configure_names_the_options_it_does_not_know(client):
    queue = unique_name("cfg-typo")
    assert client.configure(queue, {"leaseTime": 60}).status == 200
    # The typo is not refused (clients send options we do not act on), but the answer says that
    # leaseTme was ignored, and so leaseTime went back to its default.
    resp = client.configure(queue, {"leaseTme": 30, "retryLimit": 1, "zzFancy": True})
    assert resp.status == 200, resp
    assert resp.body["options"]["leaseTime"] == SERVER_DEFAULTS["leaseTime"]
    assert resp.body["warning"] == ("unknown options ignored: leaseTme, zzFancy (configure is a full replace: "
                                    "every option not given has its default)"), resp.body
    single = client.configure(queue, {"leaseTme": 30})
    assert single.body["warning"].startswith("unknown option ignored: leaseTme ("), single.body
    # Known options only: no warning at all.
    assert "warning" not in client.configure(queue, CUSTOM_OPTIONS).body
    assert "warning" not in client.configure(queue).body
