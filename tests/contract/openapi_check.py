"""Checks a live response against docs/openapi.json (OpenAPI 3.1: its schemas are JSON Schema 2020-12).

`check(method, path, status, headers, body, raw)` finds the documented operation of the request, the
documented response of its status, and validates the body against that response's schema. It returns the
operation's key ("GET /api/v1/kv/{key}") or None when the path is not a documented route (unknown paths,
405s). Statuses every route may answer at the transport level are not listed per operation (docs/http-api.md).
"""
import json
import os

from jsonschema import Draft202012Validator, RefResolver

DOCUMENT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "openapi.json")
TRANSPORT_STATUSES = {405, 413, 414, 431, 500}

with open(DOCUMENT_PATH) as f:
    DOCUMENT = json.load(f)
_RESOLVER = RefResolver.from_schema(DOCUMENT)
_TEMPLATES = [(p, p.strip("/").split("/")) for p in DOCUMENT["paths"]]


def _match(path):
    """The documented path template of a request path; literal segments beat parameters, as in the router."""
    segments = path.split("?", 1)[0].strip("/").split("/")
    best, best_rank = None, None
    for template, parts in _TEMPLATES:
        if len(parts) != len(segments):
            continue
        if all(p.startswith("{") or p == s for p, s in zip(parts, segments)):
            rank = [0 if p.startswith("{") else 1 for p in parts]
            if best_rank is None or rank > best_rank:
                best, best_rank = template, rank
    return best


def _resolve(node):
    while "$ref" in node:
        node = _RESOLVER.resolve(node["$ref"])[1]
    return node


def operation_keys():
    """Every documented operation as "METHOD /path"."""
    return {f"{m.upper()} {p}" for p, ops in DOCUMENT["paths"].items() for m in ops}


def check(method, path, status, headers, body, raw):
    template = _match(path)
    if template is None or method.lower() not in DOCUMENT["paths"][template]:
        return None
    key = f"{method.upper()} {template}"
    if status in TRANSPORT_STATUSES:
        return key
    responses = DOCUMENT["paths"][template][method.lower()]["responses"]
    assert str(status) in responses, f"{key} answered {status}, which docs/openapi.json does not list: {raw[:300]!r}"
    documented = _resolve(responses[str(status)])
    content = documented.get("content")
    if not content:
        assert raw == b"", f"{key} {status} must have an empty body, got {raw[:200]!r}"
        return key
    media = (headers.get("content-type") or "").split(";")[0].strip()
    assert media in content, f"{key} {status}: content type {media!r}, documented {sorted(content)}"
    if media == "application/json":
        schema = content[media]["schema"]
        errors = sorted(Draft202012Validator(schema, resolver=_RESOLVER).iter_errors(body), key=lambda e: list(e.path))
        assert not errors, (f"{key} {status} does not match docs/openapi.json: "
                            + "; ".join(f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]))
    return key
