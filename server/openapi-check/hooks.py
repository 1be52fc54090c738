"""schemathesis hooks for scripts/openapi-check.sh: real sessions for the
operations that need one.

A fuzzer cannot log in (every login needs the PAKE computed), so flows
(server/openapi-check/flows) logs users in first and writes their session
tokens to $KEXLAB_OPENAPI_FLOWS, each for a group of operations (one
account a group): the operations revoke sessions in different ways
(account deletion and a password change all of the account's, logout its
own), so that one does not leave the others none. Each test case of
those operations gets a token of its group, in turn; a token answered
401, or whose account is deleted or changes its password, is dropped.
With no token left, the operation gets one of the right shape that no
session has (401).
"""

import json
import os
import threading

import schemathesis

GROUPS = {
    "DELETE /v1/account": "deleteAccount",
    "POST /v1/password/start": "password",
    "POST /v1/password/finish": "password",
    "GET /v1/session": "session",
    "POST /v1/logout": "logout",
}
NO_SESSION = "A" * 43

_lock = threading.Lock()
_pool = {}  # group → [(user, token)]
_turn = 0  # round robin over a group's tokens (no `random` inside hypothesis)

_path = os.environ.get("KEXLAB_OPENAPI_FLOWS")
if _path:
    with open(_path) as f:
        for s in json.load(f)["sessions"]:
            _pool.setdefault(s["group"], []).append((s["user"], s["token"]))


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(
    func=lambda ctx: ctx.operation is not None and ctx.operation.label in GROUPS
)
class Sessions:
    def get(self, case, context):
        global _turn
        with _lock:
            pool = _pool.get(GROUPS.get(context.operation.label), [])
            _turn += 1
            return pool[_turn % len(pool)][1] if pool else NO_SESSION

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.hook
def after_call(context, case, response):
    label = case.operation.label
    if label not in GROUPS:
        return
    token = (case.headers or {}).get("Authorization", "").removeprefix("Bearer ")
    status = response.status_code
    with _lock:
        users = {u for pool in _pool.values() for u, t in pool if t == token}
        for group, pool in _pool.items():
            if status == 401 or (status == 204 and label == "POST /v1/logout"):
                _pool[group] = [(u, t) for u, t in pool if t != token]
            elif status == 204:  # account deleted or password changed: all its sessions are gone
                _pool[group] = [(u, t) for u, t in pool if u not in users]
