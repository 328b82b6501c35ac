"""How the dashboard shows what it shows (issue 25, item 4): details open in view and stay there, numeric headers
sit over their numbers, one time zone the user chooses governs tables and filter inputs alike, the layout holds at
800 px, and a dark theme follows the system's prefers-color-scheme. Screenshots of each land with the others."""
import datetime
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dashboard_support import WINDOW
from harness.api import quote

NARROW = (800, 900)
ROUTES = ("overview", "queues", "groups", "messages", "dlq", "traces", "analytics", "kv", "timers", "system")
WALL = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
# How far a time the page shows may be from the moment the test expects (seeding and the page's own clock).
CLOCK_SLACK = datetime.timedelta(minutes=10)


def wall(text, zone):
    """A 'YYYY-MM-DD HH:MM:SS' text read as wall time in zone, as an aware datetime."""
    from zoneinfo import ZoneInfo
    assert WALL.match(text), f"not a 24-hour wall time: {text!r}"
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo(zone))


def wall_text(moment, zone):
    from zoneinfo import ZoneInfo
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")


def created_times(page):
    """The Created column of the listing as it is now, read in one go (the list re-renders on every search)."""
    return page.browser.execute_script(
        "return [...document.querySelectorAll('[data-test=message-row]')].map((r) => r.querySelector('td').textContent);")


def search_messages(page):
    """Runs the listing's search and waits for its answer (the old rows are taken away first, so what shows after
    is this search's)."""
    page.browser.execute_script("document.querySelector('[data-test=message-list]').replaceChildren()")
    page.click("[data-test=filter-apply]")
    page.wait_for("[data-test=message-count]", "the search's answer")


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def open_the_last_row(page, route, apply, row, title):
    """Searches, clicks the last of a full page of rows (at the bottom of a long list) and returns its detail's
    heading once it shows that row."""
    page.open(route)
    page.click(apply)
    page.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, row)) == 100, "a full page of rows")
    transaction = page.browser.execute_script(
        "const rows = document.querySelectorAll(arguments[0]); const last = rows[rows.length - 1];"
        "last.scrollIntoView({block: 'end'}); return last.dataset.transaction;", row)
    page.click(f"{row}[data-transaction='{transaction}'] td")
    page.wait_text(title, lambda t: t.endswith(transaction), "the clicked row's detail")
    return page.wait_for(title)


def assert_stays_in_view(page, heading):
    assert page.in_viewport(heading), "the detail opened out of view"
    for where in ("0", "document.body.scrollHeight"):
        page.browser.execute_script(f"window.scrollTo(0, {where})")
        assert page.in_viewport(heading), f"the detail left the view when the page scrolled to {where}"


def test_a_message_detail_opens_in_view_and_stays_there_while_the_list_scrolls(page, seeded):
    heading = open_the_last_row(page, f"messages?queue={quote(seeded['many'])}", "[data-test=filter-apply]",
                                "[data-test=message-row]", "[data-test=message-detail-title]")
    page.shot("messages-detail")
    assert_stays_in_view(page, heading)
    page.click("[data-test=message-detail] [data-test=drawer-close]")
    page.until(lambda d: not d.find_element(By.CSS_SELECTOR, "[data-test=message-detail]").is_displayed(), "the detail closed")


def test_a_dead_letter_detail_opens_in_view_and_stays_there_while_the_list_scrolls(page, seeded):
    heading = open_the_last_row(page, f"dlq?queue={quote(seeded['dead_many'])}", "[data-test=dlq-apply]",
                                "[data-test=dlq-row]", "[data-test=dlq-detail-title]")
    assert page.in_viewport(page.wait_for("[data-test=dlq-detail-requeue]"))
    page.shot("dlq-detail")
    assert_stays_in_view(page, heading)


@pytest.mark.parametrize("route", ["queues", "queue", "groups", "dlq"])
def test_numeric_headers_are_aligned_with_their_numbers(page, statistics, route):
    seeded = statistics
    path = {"queue": f"queues/{quote(seeded['orders'])}", "dlq": f"dlq?queue={quote(seeded['dead'])}"}
    page.open(path.get(route, route))
    if route == "dlq":
        page.click("[data-test=dlq-apply]")
    page.wait_for("table.grid tbody tr td.n")
    columns = page.browser.execute_script("""
      const out = [];
      for (const table of document.querySelectorAll('table.grid')) {
        const row = table.querySelector('tbody tr');
        if (!row || row.querySelector('td.empty')) continue;
        const heads = table.querySelectorAll('thead th');
        row.querySelectorAll('td').forEach((td, i) => out.push({
          header: heads[i].textContent, head: getComputedStyle(heads[i]).textAlign, cell: getComputedStyle(td).textAlign}));
      }
      return out;""")
    numeric = [c for c in columns if c["cell"] == "right"]
    assert numeric, columns
    misaligned = [c["header"] for c in numeric if c["head"] != "right"]
    assert not misaligned, f"headers not right-aligned over right-aligned numbers: {misaligned}"


def test_one_time_zone_chosen_by_the_user_governs_tables_and_filter_inputs(page, seeded):
    orders = seeded["orders"]
    page.time_zone("America/New_York")  # the browser's own zone is neither UTC nor the one chosen below
    try:
        page.open(f"messages?queue={quote(orders)}")
        zone = Select(page.wait_for("[data-test=zone-select]"))
        assert zone.first_selected_option.get_attribute("value") == "UTC"
        page.wait_for("[data-test=zone-label][data-zone='UTC']", "UTC until the user chooses")
        for chosen in ("UTC", "Asia/Tokyo"):
            if chosen != "UTC":
                Select(page.wait_for("[data-test=zone-select]")).select_by_value(chosen)
                page.wait_for(f"[data-test=zone-label][data-zone='{chosen}']", f"the zone shown as {chosen}")
            # The default From is an hour ago, written in the chosen zone like the table's times.
            start = wall(page.wait_for("[data-test=filter-from]").get_attribute("value"), chosen)
            assert abs(start - (now() - datetime.timedelta(hours=1))) < CLOCK_SLACK, (chosen, start)
            assert chosen in page.wait_for("[data-test=message-filters]").text or chosen == "UTC"
            search_messages(page)
            created_text = page.until(lambda d: (created_times(page) or [None])[0], "the listing's first time")
            created = wall(created_text, chosen)
            assert abs(created - now()) < datetime.timedelta(hours=1), (chosen, created_text)
            header = page.wait_for("[data-test=message-list] th").text
            assert chosen in header or (chosen == "UTC" and "UTC" in header), header
            # A bound typed in the chosen zone filters as the table reads: a minute before the newest message
            # keeps it, ten minutes after drops everything.
            newest = max(wall(text, chosen) for text in created_times(page))
            for bound, expect_rows in ((newest - datetime.timedelta(minutes=1), True),
                                       (newest + datetime.timedelta(minutes=10), False)):
                field = page.wait_for("[data-test=filter-from]")
                field.clear()
                field.send_keys(wall_text(bound, chosen))
                search_messages(page)
                rows = created_times(page)
                assert bool(rows) == expect_rows, (chosen, wall_text(bound, chosen), rows)
        page.shot("messages-time-zone-tokyo")
    finally:
        page.browser.execute_script("localStorage.removeItem('queen.dashboard.timeZone')")
        page.time_zone("")


def test_every_page_fits_800_px_without_horizontal_overflow(page, seeded):
    page.browser.set_window_size(*NARROW)
    try:
        for route in ROUTES:
            page.open(route)
            sizes = page.browser.execute_script("""
              const doc = document.documentElement, nav = document.querySelector('nav'), top = document.querySelector('header');
              const links = [...nav.querySelectorAll('a')].map((a) => a.getBoundingClientRect());
              const box = top.getBoundingClientRect();
              return {inner: window.innerWidth, scroll: doc.scrollWidth, client: doc.clientWidth,
                      navScroll: nav.scrollWidth, navClient: nav.clientWidth,
                      linksOutside: links.filter((r) => r.right > box.right || r.bottom > box.bottom || r.left < box.left).length};""")
            assert sizes["inner"] <= NARROW[0], sizes
            assert sizes["scroll"] <= sizes["client"], f"{route}: the page scrolls sideways at 800 px: {sizes}"
            assert sizes["navScroll"] <= sizes["navClient"], f"{route}: the navigation overflows: {sizes}"
            assert sizes["linksOutside"] == 0, f"{route}: navigation links outside the header: {sizes}"
            page.shot(f"narrow-{route}")
    finally:
        page.browser.set_window_size(*WINDOW)


def luminance(css_color):
    parts = [float(x) for x in re.findall(r"[\d.]+", css_color)[:3]]
    assert len(parts) == 3, css_color
    return (0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]) / 255


def colours(page):
    return page.browser.execute_script("""
      // The colour an element shows: its own background, else the nearest ancestor's that has one.
      const shown = (el) => {
        for (; el; el = el.parentElement) {
          const colour = getComputedStyle(el).backgroundColor;
          if (colour !== 'rgba(0, 0, 0, 0)' && colour !== 'transparent') return colour;
        }
        return 'rgb(255, 255, 255)';
      };
      const panel = document.querySelector('.panel, .stat, table.grid');
      return {body: shown(document.body), text: getComputedStyle(document.body).color, panel: panel ? shown(panel) : null};""")


def test_the_theme_follows_prefers_color_scheme(page, statistics):
    page.color_scheme("light")
    page.open("overview")
    light = colours(page)
    assert luminance(light["body"]) > 0.8 and luminance(light["text"]) < 0.3, light
    page.color_scheme("dark")
    try:
        for route in ("overview", f"queues/{quote(statistics['orders'])}", "groups", "kv", "timers"):
            page.open(route)
            dark = colours(page)
            assert luminance(dark["body"]) < 0.2, f"{route}: background not dark: {dark}"
            assert luminance(dark["text"]) > 0.7, f"{route}: text not light: {dark}"
            assert dark["panel"] and luminance(dark["panel"]) < 0.2, f"{route}: panels not dark: {dark}"
            page.shot(f"dark-{route.split('/')[0]}", doc="dark" if route == "overview" else None)
    finally:
        page.color_scheme("light")

