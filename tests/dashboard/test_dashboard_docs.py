"""docs/dashboard.md shows a screenshot of every page it lists, each one this suite takes (DOC_SCREENSHOTS, copied
into docs/img by `make dashboard-screenshots`)."""
import os
import re

from dashboard_support import DOC_SCREENSHOTS

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")


def test_every_page_of_the_dashboard_doc_has_a_screenshot_the_suite_takes():
    with open(os.path.join(DOCS, "dashboard.md"), encoding="utf-8") as f:
        doc = f.read()
    pages = re.findall(r"^\| \*\*(.+?)\*\* \(`#/", doc, re.MULTILINE)
    assert len(pages) >= 11, pages
    shown = re.findall(r"!\[[^\]]*\]\(img/dashboard-([a-z-]+)\.png\)", doc)
    assert sorted(shown) == sorted(DOC_SCREENSHOTS), f"docs/dashboard.md shows {shown}; the suite takes {DOC_SCREENSHOTS}"
    for name in shown:
        assert os.path.isfile(os.path.join(DOCS, "img", f"dashboard-{name}.png")), f"docs/img/dashboard-{name}.png is missing"
    # Each page's row names its screenshot.
    for row in re.findall(r"^\| \*\*.+$", doc, re.MULTILINE):
        title = re.match(r"^\| \*\*(.+?)\*\*", row).group(1)
        assert re.search(r"\(img/dashboard-[a-z-]+\.png\)", row), f"the row of {title} names no screenshot"
