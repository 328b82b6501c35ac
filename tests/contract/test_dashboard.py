"""Contract: the dashboard's page and files (GET /, GET /dashboard/:build/:asset), public, with their types,
caching headers and exact lengths."""
import re

ASSET_REF = re.compile(r'(?:src|href)="(dashboard/([0-9a-f]+)/([A-Za-z0-9_.-]+))"')
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


def page_assets(client):
    page = client.get("/")
    assert page.status == 200
    return ASSET_REF.findall(page.body)


def test_the_page_is_html_revalidated_on_every_load_and_locked_to_this_broker(client):
    page = client.get("/")
    assert page.status == 200
    assert page.header("Content-Type") == "text/html; charset=utf-8"
    assert page.header("Cache-Control") == "no-cache"
    assert int(page.header("Content-Length")) == len(page.raw)
    policy = page.header("Content-Security-Policy")
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert page.header("X-Content-Type-Options") == "nosniff"
    assert '<script type="module"' in page.body
    assert "%QUEEN_WEB_BUILD%" not in page.body


def test_every_file_the_page_names_is_served_with_its_type_and_cached_for_good(client):
    assets = page_assets(client)
    names = {name for _, _, name in assets}
    assert {"main.js", "dashboard.css", "uplot.iife.min.js", "uplot.min.css"} <= names, names
    assert len({build for _, build, _ in assets}) == 1
    for path, _, name in assets:
        resp = client.get("/" + path)
        assert resp.status == 200, path
        assert resp.header("Content-Type") == TYPES[name[name.rindex("."):]], path
        assert resp.header("Cache-Control") == "public, max-age=31536000, immutable", path
        assert resp.header("X-Content-Type-Options") == "nosniff"
        assert int(resp.header("Content-Length")) == len(resp.raw) > 0


def test_modules_the_entry_point_imports_are_served_under_the_same_build(client):
    build = page_assets(client)[0][1]
    main = client.get(f"/dashboard/{build}/main.js")
    imports = re.findall(r"from '\./([A-Za-z0-9_.-]+)'", main.body)
    assert "api.js" in imports and "page-overview.js" in imports
    for name in imports:
        assert client.get(f"/dashboard/{build}/{name}").status == 200, name


def test_a_file_under_another_build_is_served_but_revalidated(client):
    resp = client.get("/dashboard/000000000000/main.js")
    assert resp.status == 200
    assert resp.header("Cache-Control") == "no-cache"


def test_unknown_files_and_the_page_under_the_file_path_are_404(client):
    build = page_assets(client)[0][1]
    for name in ("no-such-file.js", "index.html", "..%2Fmain.js"):
        resp = client.get(f"/dashboard/{build}/{name}")
        assert resp.status == 404, name
        assert resp.body == {"error": "No such dashboard file"}


def test_the_page_accepts_only_get(client):
    resp = client.post("/", {"x": 1})
    assert resp.status == 405
    assert "GET" in resp.header("Allow")
