"""Issue 34, finding 5: a page of another origin must not change anything on a default broker through the requests a
browser sends without a preflight (docs/auth.md "Browsers and CORS"). CORS withholds their answers, but they reach
the broker: a POST whose body is text/plain, a form or multipart (the broker reads JSON whatever the Content-Type),
an HTML form submitted by the page, a body-less POST, and a GET that changes state (a pop with autoAck from an <img>).
Each is sent from a page of the same site on another port (Sec-Fetch-Site: same-site) and from another site
(localhost against 127.0.0.1: cross-site), against push, configure, ack, seek, both maintenance flags and the log
level; the broker must answer each with 403 and the database must show nothing stored or changed. A listed origin
(HTTP_CORS_ORIGINS) may still write, and a link from another site still opens the dashboard."""
import json
import urllib.parse

import pytest

from dashboard_support import OtherOrigin, Page
from harness import Broker, unique_name
from harness.api import ack_item, quote
from harness.waiting import poll_until

# Runs in the page: sends every request as the page describes it and reports each one's outcome once the broker
# has answered it (an opaque answer, an image's error, a frame's load), so nothing is still in flight afterwards.
SEND_SCRIPT = """
const [base, requests, done] = arguments;
const frameLoaded = (frame) => new Promise((resolve) => { frame.onload = () => resolve('loaded'); });
const send = async (r) => {
  const url = base + r.path;
  if (r.kind === 'fetch') {
    const init = {method: r.method, mode: 'no-cors'};
    if (r.contentType) init.headers = {'Content-Type': r.contentType};
    if (r.body !== null) init.body = r.body;
    const answer = await fetch(url, init);
    return answer.type;
  }
  if (r.kind === 'img') {
    return await new Promise((resolve) => {
      const img = new Image();
      img.onload = () => resolve('image');
      img.onerror = () => resolve('image-error');
      img.src = url;
    });
  }
  if (r.kind === 'form') {
    // The classic JSON form: the text/plain body is name=value, so the JSON goes in the name and the '=' lands
    // inside a string the broker does not read.
    const frame = document.createElement('iframe');
    frame.name = 'target-' + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const form = document.createElement('form');
    form.method = 'POST';
    form.action = url;
    form.enctype = 'text/plain';
    form.target = frame.name;
    if (r.body !== null) {
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = r.body.slice(0, -1) + ',"pad":"';
      field.value = '"}';
      form.appendChild(field);
    }
    document.body.appendChild(form);
    const loaded = frameLoaded(frame);
    form.submit();
    return await loaded;
  }
  throw new Error('unknown kind ' + r.kind);
};
(async () => {
  const out = [];
  for (const r of requests) {
    try { out.push(await send(r)); } catch (e) { out.push('error: ' + e); }
  }
  return out;
})().then(done, (e) => done(['failed: ' + e]));
"""

BODY_KINDS = [("fetch", "text/plain"), ("fetch", "application/x-www-form-urlencoded"),
              ("fetch", "multipart/form-data; boundary=queen"), ("form", None)]


class Targets:
    """What the forged requests aim at, seeded through the API, and how to prove afterwards that none of them did
    anything."""

    def __init__(self, broker):
        self.broker = broker
        self.pushed = unique_name("xsite-push")  # never created: a stored push would create it
        self.configured = unique_name("xsite-config")
        self.popped = unique_name("xsite-pop")
        self.acked = unique_name("xsite-ack")
        self.sought = unique_name("xsite-seek")
        self.skipped = unique_name("xsite-skip")
        self.group = "xsite-readers"
        with broker.client() as c:
            assert c.configure(self.configured, {"leaseTime": 60}).status == 200
            assert c.push_one(self.configured, {"n": 1}, partition="p", transaction_id="config-1").status == 201
            assert c.push_one(self.popped, {"n": 1}, partition="p", transaction_id="pop-1").status == 201
            assert c.configure(self.acked, {"leaseTime": 300}).status == 200
            assert c.push_one(self.acked, {"n": 1}, partition="p", transaction_id="ack-1").status == 201
            held = c.pop_messages(self.acked, batch=1)
            assert [m["transactionId"] for m in held] == ["ack-1"], held
            self.lease = held[0]
            self.lease_status = self.message_detail(c, self.acked, "ack-1")["status"]  # leased, not completed
            # The group has read and acknowledged both messages: a seek back would deliver them again.
            assert c.push([{"queue": self.sought, "partition": "p", "transactionId": f"seek-{n}", "payload": {"n": n}}
                           for n in range(2)]).status == 201
            assert len(c.drain(self.sought, 2, consumer_group=self.group)) == 2
            # The group has read nothing here: a seek of the partition to its newest message would skip skip-1.
            assert c.push_one(self.skipped, {"n": 1}, partition="p", transaction_id="skip-1").status == 201
            self.config_message = self.message_detail(c, self.configured, "config-1")
            self.log_level = c.get("/api/v1/system/log-level").body

    def message_detail(self, client, queue, transaction_id):
        listed = client.get("/api/v1/messages", params={"queue": queue})
        assert listed.status == 200, listed
        message = next(m for m in listed.body["messages"] if m["transactionId"] == transaction_id)
        resp = client.get(f"/api/v1/messages/{message['partitionId']}/{quote(transaction_id)}")
        assert resp.status == 200, resp
        return resp.body

    def requests(self):
        """Every forged request as SEND_SCRIPT takes it (kind, method, path, contentType, body), in the order sent."""
        lease = self.lease
        bodies = {
            "/api/v1/push": {"items": [{"queue": self.pushed, "partition": "p", "payload": {"forged": True}}]},
            "/api/v1/transaction": {"operations": [{"type": "push", "items": [
                {"queue": self.pushed, "partition": "p", "payload": {"forged": True}}]}]},
            "/api/v1/configure": {"queue": self.configured, "options": {"leaseTime": 7}},
            "/api/v1/ack": {"transactionId": lease["transactionId"], "partitionId": lease["partitionId"],
                            "leaseId": lease["leaseId"], "status": "completed"},
            "/api/v1/ack/batch": {"acknowledgments": [ack_item(lease)]},
            f"/api/v1/consumer-groups/{quote(self.group)}/queues/{quote(self.sought)}/seek":
                {"timestamp": "1970-01-01T00:00:00.000Z"},
            "/api/v1/system/maintenance": {"enabled": True},
            "/api/v1/system/maintenance/pop": {"enabled": True},
            "/api/v1/system/log-level": {"level": "trace"},
        }
        # The GET and the body-less POST first: on a broker that runs them, pop maintenance (below) would hide a pop.
        pop = f"/api/v1/pop/queue/{quote(self.popped)}?" + urllib.parse.urlencode({"batch": 10, "autoAck": "true"})
        seek_partition = f"/api/v1/consumer-groups/{quote(self.group)}/queues/{quote(self.skipped)}/partitions/p/seek"
        forged = [
            # A GET that changes state: a pop leases the message, with autoAck it consumes it.
            {"kind": "img", "method": "GET", "path": pop, "contentType": None, "body": None},
            {"kind": "fetch", "method": "GET", "path": pop, "contentType": None, "body": None},
            # A body-less POST: no Content-Type rule could refuse it.
            {"kind": "fetch", "method": "POST", "path": seek_partition, "contentType": None, "body": None},
            {"kind": "form", "method": "POST", "path": seek_partition, "contentType": None, "body": None},
        ]
        for path, body in bodies.items():
            text = json.dumps(body, separators=(",", ":"))
            for kind, content_type in BODY_KINDS:
                forged.append({"kind": kind, "method": "POST", "path": path, "contentType": content_type, "body": text})
        return forged

    def changes(self):
        """What the forged requests changed (each as a sentence); [] when nothing."""
        found = []
        with self.broker.client() as c:
            pushed = c.get(f"/api/v1/resources/queues/{quote(self.pushed)}")
            if pushed.status != 404:
                found.append(f"forged pushes or transactions created {self.pushed} and stored "
                             f"{pushed.body['totals']['total']} messages in it")
            if c.maintenance().body["maintenanceMode"] is not False:
                found.append("push maintenance was turned on")
            if c.pop_maintenance().body["popMaintenanceMode"] is not False:
                found.append("pop maintenance was turned on")
            restore_flags(self.broker)  # pop maintenance would hide what the pops below look for
            if c.get("/api/v1/system/log-level").body != self.log_level:
                found.append("the log level was changed")
            detail = self.message_detail(c, self.configured, "config-1")
            if detail["queueConfig"] != self.config_message["queueConfig"]:
                found.append(f"a forged configure changed {self.configured}: {detail['queueConfig']}")
            acked = self.message_detail(c, self.acked, "ack-1")
            if acked["status"] != self.lease_status:
                found.append(f"a forged ack moved ack-1 from {self.lease_status} to {acked['status']}")
            again = c.pop_messages(self.sought, consumer_group=self.group, wait="false")
            if again:
                found.append(f"a forged seek made {len(again)} of the group's messages deliverable again")
            skipped = c.pop_messages(self.skipped, consumer_group=self.group, wait="false")
            if [m["transactionId"] for m in skipped] != ["skip-1"]:
                found.append(f"a forged seek of a partition skipped skip-1 for the group (a pop now gets {skipped})")
            popped = c.pop_messages(self.popped, batch=10)
            if [m["transactionId"] for m in popped] != ["pop-1"]:
                found.append(f"a forged pop consumed or leased pop-1 (a pop now gets {popped})")
        return found

def refused_count(broker):
    """Requests this broker answered 403 so far (queen_http_requests_total, every route)."""
    with broker.client() as c:
        return sum(v for labels, v in c.labelled("queen_http_requests_total").items() if 'code="403"' in labels)


def send_from(browser, page_origin, broker, requests):
    browser.get(page_origin + "/")
    poll_until(lambda: browser.title == "another origin", timeout=20, what=f"the page of {page_origin}")
    outcomes = browser.execute_async_script(SEND_SCRIPT, broker.url, requests)
    assert len(outcomes) == len(requests) and not any(o.startswith(("error", "failed")) for o in outcomes), outcomes
    return outcomes


def restore_flags(broker):
    """The flags are the whole cell's: whatever the test did, the other dashboard tests find them off."""
    with broker.client() as c:
        assert c.set_maintenance(False).status == 200
        assert c.set_pop_maintenance(False).status == 200


@pytest.fixture(scope="module")
def other_origin():
    with OtherOrigin() as origin:
        yield origin


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
def test_a_page_of_another_origin_changes_nothing_on_a_default_broker(browser, broker, other_origin, site):
    page_origin = other_origin.origin if site == "same-site" else other_origin.site_origin
    targets = Targets(broker)
    requests = targets.requests()
    refused_before = refused_count(broker)
    try:
        send_from(browser, page_origin, broker, requests)
        changes = targets.changes()
        assert not changes, "\n".join(changes)
        # Every request reached the broker and was refused: none was lost on the way, none went through.
        assert refused_count(broker) - refused_before == len(requests)
    finally:
        restore_flags(broker)
        with broker.client() as c:
            c.post("/api/v1/system/log-level", {"level": targets.log_level["level"]})


def test_a_listed_origin_may_write_and_others_still_may_not(browser, database, other_origin):
    listed = Broker(pg=database, name="dash-xsite-listed", env={"HTTP_CORS_ORIGINS": other_origin.origin}).start()
    try:
        queue = unique_name("xsite-listed")
        body = json.dumps({"items": [{"queue": queue, "partition": "p", "payload": {"from": "listed"}}]})
        push = [{"kind": "fetch", "method": "POST", "path": "/api/v1/push", "contentType": "text/plain", "body": body}]
        send_from(browser, other_origin.origin, listed, push)
        with listed.client() as c:
            stored = c.pop_messages(queue)
            assert [m["data"] for m in stored] == [{"from": "listed"}], stored
        refused_before = refused_count(listed)
        send_from(browser, other_origin.site_origin, listed, push)  # localhost: not the listed origin
        assert refused_count(listed) - refused_before == 1
        with listed.client() as c:
            assert c.pop_messages(queue) == []
    finally:
        listed.stop()


def test_a_link_from_another_site_opens_the_dashboard(browser, broker, other_origin, shots):
    browser.get(other_origin.site_origin + "/")
    poll_until(lambda: browser.title == "another origin", timeout=20, what="the other site's page")
    browser.execute_script(
        "const a = document.createElement('a'); a.href = arguments[0]; a.textContent = 'Queen';"
        "document.body.appendChild(a); a.click();", broker.url + "/#/overview")
    page = Page(browser, broker, shots)
    # The page and its files are public; its own API calls are same-origin and load the overview's data.
    page.wait_loaded()
    page.wait_text("[data-test=flag-push-value]", lambda t: t == "off", "push maintenance off")
