"""Checks the exchanges that flows (server/openapi-check/flows) recorded
against the OpenAPI document, with schemathesis's own checks: the answers
a fuzzer cannot reach because every success needs a PAKE computed
(register/finish 201 and 409, login/finish 200 and 401, the session
operations' successes).

usage: validate.py OPENAPI_URL_OR_FILE FLOWS_JSON
"""

import json
import sys
import urllib.parse

import requests

import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def response(ex):
    req = requests.Request(
        ex["method"], ex["url"], headers={k: ", ".join(v) for k, v in (ex["request_headers"] or {}).items()},
        data=ex["request_body"].encode() or None,
    ).prepare()
    return schemathesis.Response(
        status_code=ex["status"],
        headers={k.lower(): v for k, v in (ex["response_headers"] or {}).items()},
        content=ex["response_body"].encode(),
        request=req,
        elapsed=0.0,
        verify=True,
        encoding="utf-8",
    )


def main(url, path):
    if url.startswith(("http://", "https://")):
        schema = schemathesis.openapi.from_url(url)
    else:
        schema = schemathesis.openapi.from_path(url)
    with open(path) as f:
        exchanges = json.load(f)["exchanges"]
    failed, seen = 0, set()
    for ex in exchanges:
        p = urllib.parse.urlsplit(ex["url"]).path
        op = schema[p][ex["method"]]
        body = json.loads(ex["request_body"]) if ex["request_body"] else None
        case = op.Case(body=body) if body is not None else op.Case()
        try:
            case.validate_response(response(ex), checks=CHECKS)
        except FailureGroup as e:
            failed += 1
            print(f"validate: {ex['method']} {p} → {ex['status']}:\n{e}", file=sys.stderr)
        seen.add((op.label, ex["status"]))
    print(f"validate: {len(exchanges)} recorded exchanges, {len(seen)} operation/status pairs, {failed} failed")
    for label, status in sorted(seen):
        print(f"  {status} {label}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
