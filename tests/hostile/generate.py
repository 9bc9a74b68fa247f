#!/usr/bin/python3
"""Writes the hostile-input corpus (tests/hostile/*.jsonl) for tests/hostile/app.yaml.

The .jsonl files are the corpus (data, reviewed like code); this script is how the repetitive
parts were produced: rerun it after changing a list here, then review the diff. Hand-written
entries live in the lists below too, so the files never diverge from the script.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ITEMS = "/api/tables/items/records"


def entry(name, expect, method="GET", target="/api/health", as_="alice", body=None,
          headers=None):
    e = {"name": name, "as": as_, "method": method, "target": target, "expect": expect}
    if body is not None:
        e["body"] = body
    if headers:
        e["headers"] = headers
    return e


def raw(name, text, expect):
    return {"name": name, "raw": text, "expect": expect}


def write(file, entries):
    with open(os.path.join(HERE, file), "w", encoding="utf-8") as f:
        for e in entries:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")


# --- malformed and hostile JSON ---------------------------------------------------------------

def json_entries():
    out = []
    bodies = {
        "nesting-65-arrays": '{"fields":{"data":' + "[" * 65 + "]" * 65 + "}}",
        "nesting-10000-arrays": '{"fields":{"data":' + "[" * 10000 + "]" * 10000 + "}}",
        "nesting-10000-objects": '{"fields":{"data":' + '{"a":' * 10000 + "1" + "}" * 10000 +
                                 "}}",
        "nesting-unclosed-100000": "[" * 100000,
        "huge-exponent": '{"fields":{"title":"x","count":1e999999}}',
        "huge-negative-exponent": '{"fields":{"title":"x","ratio":-1e-999999}}',
        "huge-integer": '{"fields":{"title":"x","count":123456789012345678901234567890}}',
        "huge-decimal-digits": '{"fields":{"title":"x","price":' + "9" * 5000 + ".5}}",
        "duplicate-keys": '{"fields":{"title":"a","title":"b"}}',
        "duplicate-top-keys": '{"fields":{"title":"a"},"fields":{"title":"b"}}',
        "lone-high-surrogate": '{"fields":{"title":"\\ud800"}}',
        "lone-low-surrogate": '{"fields":{"title":"\\udc00x"}}',
        "reversed-surrogates": '{"fields":{"title":"\\udc00\\ud800"}}',
        "escaped-nul": '{"fields":{"title":"a\\u0000b"}}',
        "nul-in-key": '{"fields":{"ti\\u0000tle":"a"}}',
        "truncated": '{"fields":{"title":"a"',
        "trailing-garbage": '{"fields":{"title":"a"}}garbage',
        "two-documents": '{"fields":{"title":"a"}}{"fields":{"title":"b"}}',
        "single-quotes": "{'fields':{'title':'a'}}",
        "comments": '{"fields":{"title":"a"}/* hi */}',
        "nan-literal": '{"fields":{"title":"a","ratio":NaN}}',
        "infinity-literal": '{"fields":{"title":"a","ratio":Infinity}}',
        "trailing-comma": '{"fields":{"title":"a",}}',
        "leading-zero": '{"fields":{"title":"a","count":007}}',
        "hex-number": '{"fields":{"title":"a","count":0x10}}',
        "plus-number": '{"fields":{"title":"a","count":+1}}',
        "empty-body": "",
        "whitespace-body": "   \r\n\t ",
        "null-body": "null",
        "array-body": '[{"fields":{"title":"a"}}]',
        "string-body": '"fields"',
        "number-body": "42",
        "fields-null": '{"fields":null}',
        "fields-array": '{"fields":[]}',
        "fields-string": '{"fields":"title=a"}',
        "unknown-top-key": '{"fields":{"title":"a"},"extra":1}',
        "unescaped-control": '{"fields":{"title":"a\tb"}}',
        "bad-escape": '{"fields":{"title":"\\x41"}}',
        "unterminated-string": '{"fields":{"title":"abc}}',
        "long-key": '{"fields":{"' + "k" * 100000 + '":1}}',
        "many-keys": '{"fields":{' + ",".join(f'"k{i}":1' for i in range(20000)) + "}}",
        "bom-prefix": '\ufeff{"fields":{"title":"a"}}',
    }
    for name, body in bodies.items():
        # Unknown members beside `fields` are ignored, as Sovrium's clients may send more.
        expect = 201 if name == "unknown-top-key" else 400
        out.append(entry("json/records-create/" + name, expect, "POST", ITEMS, body=body))
    for name in ("nesting-10000-arrays", "duplicate-keys", "lone-high-surrogate", "truncated",
                 "empty-body", "array-body", "escaped-nul", "huge-integer"):
        out.append(entry("json/records-update/" + name, 400, "PATCH", ITEMS + "/{alice_item}",
                         body=bodies[name]))
        out.append(entry("json/sign-up/" + name, 400, "POST", "/api/auth/sign-up/email", "anon",
                         body=bodies[name].replace('"fields"', '"email"')))
        out.append(entry("json/comment/" + name, 400, "POST",
                         ITEMS + "/{alice_item}/comments", body=bodies[name].replace(
                             '"fields"', '"content"')))
        out.append(entry("json/batch/" + name, 400, "POST", ITEMS + "/batch",
                         body=bodies[name].replace('"fields"', '"records"')))
    # Raw bytes that are not UTF-8 (the runner sends the body as UTF-8 with surrogates passed
    # through, so these are written as lone surrogates standing for the bytes).
    for name, text in {"overlong-slash": "\\xc0\\xaf", "overlong-nul": "\\xc0\\x80",
                       "invalid-continuation": "\\xe2\\x28\\xa1", "five-byte": "\\xf8\\x88\\x80",
                       "surrogate-utf8": "\\xed\\xa0\\x80", "lone-ff": "\\xff"}.items():
        out.append({"name": "json/invalid-utf8/" + name,
                    "raw": "POST " + ITEMS + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close"
                           "\r\nAuthorization: Bearer {alice_token}\r\nContent-Type: "
                           "application/json\r\nContent-Length: {len}\r\n\r\n"
                           '{"fields":{"title":"a' + text + '"}}',
                    "expect": 400, "bytes": True})
    out.append(entry("json/content-type-text", [400, 415], "POST", ITEMS,
                     body='{"fields":{"title":"a"}}', headers={"Content-Type": "text/plain"}))
    out.append(entry("json/content-type-form", [400, 415], "POST", ITEMS, body="fields=1",
                     headers={"Content-Type": "application/x-www-form-urlencoded"}))
    out.append(entry("json/content-type-missing-charset-bad", [400, 415], "POST", ITEMS,
                     body='{"fields":{"title":"a"}}',
                     headers={"Content-Type": "application/json; charset=utf-16"}))
    return out


# --- wrong types for every field type ---------------------------------------------------------

WRONG = {
    "title": [123, True, [], {}, "line\nbreak", "tab\u0007bell", None],
    "body": [5, False, [], {"a": 1}, "bell\u0007"],
    "phone": [12, "abc", "12", [], "555-0100 ext", "+1+2"],
    "contact": ["not-an-email", 5, [], "a@", "@example.com", "a b@example.com"],
    "site": ["javascript:alert(1)", "data:text/html,x", "not a url", 5, "http://", "//evil"],
    "count": [1.5, "abc", True, [], 1001, -1001, "1e9", {}],
    "ratio": [0.0001, "12,5", True, [], "NaN", "Infinity", {}],
    "price": [19.999, "abc", {}, [], True, "1e999"],
    "share": [12.55, "x", [], False],
    "day": ["2024-02-30", "2024-13-01", "yesterday", 20240101, [], "24-01-01"],
    "moment": ["not a time", 5, "2024-05-01T25:00:00Z", [], "2024-02-30T00:00:00Z"],
    "opens": ["25:00", "8am", 830, "08:60", []],
    "active": ["yes", 2, [], {}, "maybe"],
    "stage": ["maybe", 1, [], {}, True],
    "tags": ["a", ["x"], ["a", "b", "c"], [1], {}, [None]],
    "spent": ["abc", True, [], {}, "1h"],
    "parent": ["abc", 99999999, -1, 1.5, [], {}, "1 OR 1=1"],
    "members": ["1", [99999999], ["abc"], 5, {}, [[1]]],
    "cover": ["x", 5, {"path": "../../etc/passwd"}, {"path": "/etc/passwd"}, [], True],
    "gallery": ["x", [1], {}, True],
    "created_by": ["{bob_id}", 1, None],
    "updated_by": ["{bob_id}", None],
    "updated_at": ["2020-01-01T00:00:00Z", None],
    "secret": ["alice may not write this"],
    "owner_note": ["alice may not write this either"],
    "id": [1, "9999"],
    "nope": [1],
    "'; DROP TABLE items; --": [1],
    "title\"": ["x"],
}


def types_entries():
    out = []
    for field, values in WRONG.items():
        for i, value in enumerate(values):
            fields = {field: value}
            if field != "title":
                fields["title"] = "ok"
            tag = f"types/{field}/{i}"
            out.append(entry(tag + "/create", 400, "POST", ITEMS, body={"fields": fields}))
            out.append(entry(tag + "/update", 400, "PATCH", ITEMS + "/{alice_item}",
                             body={"fields": {field: value}}))
            if i == 0:
                out.append(entry(tag + "/batch-create", 400, "POST", ITEMS + "/batch",
                                 body={"records": [{"fields": {"title": "fine"}},
                                                   {"fields": fields}]}))
                out.append(entry(tag + "/upsert", 400, "POST", ITEMS + "/upsert",
                                 body={"fields": fields, "matchFields": ["title"]}))
    out.append(entry("types/title/too-long", 400, "POST", ITEMS,
                     body={"fields": {"title": "x" * 100000}}))
    out.append(entry("types/unique/duplicate-code", 400, "POST", ITEMS,
                     body={"fields": {"title": "dup", "code": "bob"}}))
    out.append(entry("types/required/missing-title", 400, "POST", ITEMS,
                     body={"fields": {"count": 1}}))
    out.append(entry("types/required/null-title", 400, "PATCH", ITEMS + "/{alice_item}",
                     body={"fields": {"title": None}}))
    out.append(entry("types/batch/too-many", 413, "POST", ITEMS + "/batch",
                     body={"records": [{"fields": {"title": "x"}}] * 1001}))
    out.append(entry("types/batch/empty", 400, "POST", ITEMS + "/batch", body={"records": []}))
    out.append(entry("types/batch-delete/not-ids", 400, "DELETE", ITEMS + "/batch",
                     body={"ids": ["abc", {}]}))
    out.append(entry("types/updated-at/stale", 409, "PATCH", ITEMS + "/{alice_item}",
                     body={"fields": {"title": "x"}, "updatedAt": "2000-01-01T00:00:00.000Z"}))
    return out


# --- filter, sort, fields and q injection -----------------------------------------------------

def query_entries():
    out = []
    ok = {
        "q-sql-quote": "q=%27%20OR%20%271%27%3D%271",
        "q-like-wildcards": "q=%25_%25",
        "q-backslash": "q=%5C%5C%5C",
        "q-unicode": "q=%F0%9F%9A%80",
        "filter-value-sql": "filter=" + _q({"field": "title", "operator": "equals",
                                            "value": "' OR 1=1 --"}),
        "filter-value-like": "filter=" + _q({"field": "title", "operator": "contains",
                                             "value": "%_\\"}),
        "fields-unreadable-skipped": "fields=secret,title",
        "fields-unknown-skipped": "fields=nope,title",
        "fields-injection-skipped": "fields=title%22%3B%20DROP%20TABLE%20items%3B--",
        "sort-desc": "sort=title&order=desc",
        "limit-max": "limit=100",
    }
    for name, query in ok.items():
        out.append(entry("query/ok/" + name, 200, target=ITEMS + "?" + query))
    bad = {
        "filter-not-json": "filter=%7Bnope",
        "filter-unknown-field": "filter=" + _q({"field": "nope", "operator": "equals",
                                                "value": 1}),
        "filter-unreadable-field": "filter=" + _q({"field": "secret", "operator": "equals",
                                                   "value": "x"}),
        "filter-field-sql": "filter=" + _q({"field": "title\" OR 1=1 --", "operator": "equals",
                                            "value": 1}),
        "filter-operator-sql": "filter=" + _q({"field": "title", "operator": "= 1 OR 1=1 --",
                                               "value": 1}),
        "filter-wrong-value-type": "filter=" + _q({"field": "count", "operator": "equals",
                                                   "value": "abc"}),
        "filter-deep": "filter=" + "%7B%22and%22%3A%5B" * 200 + "%5D%7D" * 200,
        "filter-huge-in": "filter=" + _q({"field": "count", "operator": "in",
                                          "value": list(range(1001))}),
        "filter-many-conditions": "filter=" + _q({"and": [{"field": "count",
                                                           "operator": "equals", "value": i}
                                                          for i in range(101)]}),
        "filter-array": "filter=%5B%5D",
        "filter-nul": "filter=%7B%22field%22%3A%22title%00%22%7D",
        "sort-unknown": "sort=nope",
        "sort-unreadable": "sort=secret",
        "sort-sql": "sort=title%3B%20DROP%20TABLE%20items",
        "sort-too-many": "sort=" + ",".join(["title"] * 11),
        "order-bad": "sort=title&order=sideways",
        "q-too-long": "q=" + "x" * 201,
        "q-nul": "q=a%00b",
        "limit-negative": "limit=-1",
        "limit-text": "limit=abc",
        "limit-huge": "limit=99999999999999999999",
        "offset-negative": "offset=-5",
        "page-zero": "page=0",
        "group-by-unreadable": "groupBy=secret",
        "group-by-unknown": "groupBy=nope",
        "aggregate-bad": "aggregate=%7Bnope",
        "aggregate-unreadable": "aggregate=" + _q({"sum": ["secret"]}),
        "include-deleted-bad": "includeDeleted=maybe",
        "format-bad": "format=xml",
        "timezone-bad": "timezone=Mars%2FBase",
        "timezone-nul": "timezone=UTC%00",
        "view-unknown": "view=nope",
        "utf8-invalid-q": "q=%C0%AF",
    }
    for name, query in bad.items():
        out.append(entry("query/bad/" + name, 400, target=ITEMS + "?" + query))
    out.append(entry("query/unknown-table", 404, target="/api/tables/nope/records"))
    out.append(entry("query/hidden-table", 404, target="/api/tables/vault/records"))
    out.append(entry("query/history-bad-limit", 400,
                     target=ITEMS + "/{alice_item}/history?limit=-3"))
    out.append(entry("query/activity-not-admin", 403, target="/api/activity"))
    out.append(entry("query/activity-bad-page", 400, as_="admin",
                     target="/api/activity?page=-1"))
    out.append(entry("query/activity-bad-from", 400, as_="admin",
                     target="/api/activity?from=yesterday"))
    out.append(entry("query/trash-bad-filter", 400, target="/api/tables/items/trash?filter=%7B"))
    return out


def _q(value):
    from urllib.parse import quote
    return quote(json.dumps(value), safe="")


# --- mass assignment, IDOR, tokens and cookies ------------------------------------------------

def access_entries():
    out = [
        entry("access/update-user-role", 400, "POST", "/api/auth/update-user",
              body={"role": "admin"}),
        entry("access/update-user-email", 400, "POST", "/api/auth/update-user",
              body={"email": "x@evil.test"}),
        # As in Better Auth, `id` is not a field of update-user: the caller's own name changes.
        entry("access/update-user-id", 200, "POST", "/api/auth/update-user",
              body={"id": "{bob_id}", "name": "pwned"}),
        entry("access/update-user-email-verified", 400, "POST", "/api/auth/update-user",
              body={"emailVerified": True}),
        # Better Auth ignores `role` on sign-up (the default role is given); run.py then checks
        # that this account is no admin.
        entry("access/sign-up-role", 200, "POST", "/api/auth/sign-up/email", "anon",
              body={"name": "x", "email": "role@hostile.test", "password": "password 12345",
                    "role": "admin"}),
        entry("access/admin-set-role-as-member", 403, "POST", "/api/auth/admin/set-role",
              body={"userId": "{alice_id}", "role": "admin"}),
        entry("access/admin-list-users-as-member", 403, "GET", "/api/auth/admin/list-users"),
        entry("access/admin-ban-as-member", 403, "POST", "/api/auth/admin/ban-user",
              body={"userId": "{bob_id}"}),
        entry("access/admin-impersonate-as-member", 403, "POST",
              "/api/auth/admin/impersonate-user", body={"userId": "{bob_id}"}),
        entry("access/comment-edit-other", 404, "PATCH",
              ITEMS + "/{bob_item}/comments/{bob_comment}", body={"content": "pwned"}),
        entry("access/comment-delete-other", 404, "DELETE",
              ITEMS + "/{bob_item}/comments/{bob_comment}"),
        entry("access/comment-wrong-record", 404, "PATCH",
              ITEMS + "/{alice_item}/comments/{bob_comment}", body={"content": "x"}),
        entry("access/vault-read", 404, "GET", "/api/tables/vault/records"),
        entry("access/vault-create", 404, "POST", "/api/tables/vault/records",
              body={"fields": {"value": "x"}}),
        entry("access/vault-by-id", 404, "GET", "/api/tables/3/records/1"),
        entry("access/groups-create-member", 403, "POST", "/api/tables/groups/records",
              body={"fields": {"name": "x"}}),
        entry("access/groups-delete-member", 403, "DELETE", "/api/tables/groups/records/{group}"),
        entry("access/deleted-item-read", 404, "GET", ITEMS + "/{deleted_item}"),
        entry("access/deleted-item-update", 404, "PATCH", ITEMS + "/{deleted_item}",
              body={"fields": {"title": "x"}}),
        entry("access/permanent-delete-member", 403, "DELETE",
              ITEMS + "/{bob_item}?permanent=true"),
        entry("access/secret-filter-probe", 400, "GET", ITEMS + "?filter=" + _q(
            {"field": "secret", "operator": "startsWith", "value": "a"})),
        entry("access/revoke-other-session", [200, 400, 404], "POST",
              "/api/auth/revoke-session", body={"token": "{bob_session}"}),
        entry("access/activity-detail-member", 403, "GET", "/api/activity/1"),
    ]
    callers = {"anon": 401, "tampered": 401, "expired": 401, "revoked": 401}
    routes = [("GET", "/api/tables"), ("GET", ITEMS), ("GET", ITEMS + "/{alice_item}"),
              ("POST", ITEMS), ("PATCH", ITEMS + "/{alice_item}"),
              ("DELETE", ITEMS + "/{alice_item}"), ("GET", "/api/auth/list-sessions"),
              ("POST", "/api/auth/update-user"), ("GET", "/api/buckets"),
              ("POST", "/api/buckets/files/sign"), ("GET", "/api/activity")]
    for caller, status in callers.items():
        for method, target in routes:
            body = {"fields": {"title": "x"}} if method in ("POST", "PATCH") else None
            if target.startswith("/api/auth/update-user"):
                body = {"name": "x"}
            if target.endswith("/sign"):
                body = {"path": "a.txt"}
            out.append(entry(f"access/{caller}{target}/{method}", status, method, target, caller,
                             body=body))
    bad_tokens = {
        "bearer-empty": "Bearer ",
        "bearer-spaces": "Bearer    ",
        "bearer-long": "Bearer " + "a" * 10000,
        "bearer-nul": "Bearer abc\\u0000",
        "bearer-sql": "Bearer ' OR 1=1 --",
        "basic-scheme": "Basic YWxpY2U6cGFzc3dvcmQ=",
        "bearer-lowercase-garbage": "bearer zzz",
        "bearer-dot-signed": "Bearer aaaa.bbbb",
    }
    for name, value in bad_tokens.items():
        out.append(entry("access/authorization/" + name, 401, "GET", "/api/tables", "anon",
                         headers={"Authorization": value.replace("\\u0000", "%00")}))
    cookies = {
        "unsigned": "better-auth.session_token=abc",
        "bad-signature": "better-auth.session_token=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.c2lnbmF0dXJl",
        "empty": "better-auth.session_token=",
        "huge": "better-auth.session_token=" + "a" * 8000,
        "many": "; ".join(f"c{i}=v" for i in range(500)),
        "percent-garbage": "better-auth.session_token=%ZZ%00",
    }
    for name, value in cookies.items():
        out.append(entry("access/cookie/" + name, 401, "GET", "/api/tables", "anon",
                         headers={"Cookie": value}))
    out.append(entry("access/cookie-write-without-origin", 403, "POST", ITEMS, "alice-cookie",
                     body={"fields": {"title": "csrf"}}, headers={"Origin": None}))
    out.append(entry("access/cookie-write-evil-origin", 403, "POST", ITEMS, "alice-cookie",
                     body={"fields": {"title": "csrf"}},
                     headers={"Origin": "https://evil.example"}))
    out.append(entry("access/two-authorization-headers", 400, "GET", "/api/tables", "alice",
                     headers={"authorization": "Bearer x"}))
    return out


# --- HTTP abuse -------------------------------------------------------------------------------

def http_entries():
    head = "Host: 127.0.0.1\r\nConnection: close\r\n"
    out = [
        raw("http/duplicate-content-length",
            "POST /api/auth/sign-in/email HTTP/1.1\r\n" + head +
            "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
            400),
        raw("http/content-length-list", "POST /api/health HTTP/1.1\r\n" + head +
            "Content-Length: 2, 2\r\n\r\n{}", [400, 404]),
        raw("http/cl-and-te", "POST /api/auth/sign-in/email HTTP/1.1\r\n" + head +
            "Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked"
            "\r\n\r\n0\r\n\r\n", 400),
        raw("http/te-identity", "POST /api/health HTTP/1.1\r\n" + head +
            "Transfer-Encoding: identity\r\n\r\n", 400),
        raw("http/te-chunked-twice", "POST /api/health HTTP/1.1\r\n" + head +
            "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400),
        raw("http/te-gzip-chunked", "POST /api/health HTTP/1.1\r\n" + head +
            "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400),
        raw("http/te-on-http10", "POST /api/health HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        raw("http/te-space-colon", "POST /api/health HTTP/1.1\r\n" + head +
            "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400),
        raw("http/bad-chunk-size", "POST " + ITEMS + " HTTP/1.1\r\n" + head +
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0"
            "\r\n\r\n", [400, 401]),
        raw("http/absolute-form", "GET http://evil.example/api/health HTTP/1.1\r\n" + head +
            "\r\n", [200, 400]),
        raw("http/asterisk-form", "OPTIONS * HTTP/1.1\r\n" + head + "\r\n", [400, 404]),
        raw("http/authority-form", "CONNECT 127.0.0.1:22 HTTP/1.1\r\n" + head + "\r\n",
            [400, 404]),
        raw("http/no-host", "GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
        raw("http/two-hosts", "GET /api/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n"
            "Connection: close\r\n\r\n", 400),
        raw("http/header-flood", "GET /api/health HTTP/1.1\r\n" + head +
            "".join(f"X-Flood-{i}: {'v' * 100}\r\n" for i in range(300)) + "\r\n", 431),
        raw("http/huge-header", "GET /api/health HTTP/1.1\r\n" + head + "X-Big: " +
            "v" * 20000 + "\r\n\r\n", 431),
        raw("http/huge-target", "GET /api/health?" + "a" * 20000 + " HTTP/1.1\r\n" + head +
            "\r\n", [400, 414, 431]),
        raw("http/invalid-method-space", "GE T /api/health HTTP/1.1\r\n" + head + "\r\n", 400),
        raw("http/unknown-method", "FOO /api/health HTTP/1.1\r\n" + head + "\r\n", [400, 404]),
        raw("http/lowercase-method", "get /api/health HTTP/1.1\r\n" + head + "\r\n", [400, 404]),
        raw("http/trace", "TRACE /api/health HTTP/1.1\r\n" + head + "\r\n", [400, 404]),
        raw("http/body-on-get", "GET /api/health HTTP/1.1\r\n" + head +
            "Content-Length: 5\r\n\r\nhello", [200, 400]),
        raw("http/bad-version", "GET /api/health HTTP/9.9\r\n" + head + "\r\n", [400, 505]),
        raw("http/no-version", "GET /api/health\r\n" + head + "\r\n", 400),
        raw("http/content-length-negative", "POST " + ITEMS + " HTTP/1.1\r\n" + head +
            "Content-Length: -1\r\n\r\n", 400),
        raw("http/content-length-text", "POST " + ITEMS + " HTTP/1.1\r\n" + head +
            "Content-Length: abc\r\n\r\n", 400),
        raw("http/content-length-huge", "POST " + ITEMS + " HTTP/1.1\r\n" + head +
            "Content-Length: 99999999999999999999\r\n\r\n", [400, 413]),
        raw("http/content-length-over-limit", "POST /api/auth/sign-in/email HTTP/1.1\r\n" +
            head + "Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n", 413),
        raw("http/obs-fold", "GET /api/health HTTP/1.1\r\n" + head + "X-A: a\r\n b\r\n\r\n",
            [200, 400]),
        raw("http/nul-in-header", "GET /api/health HTTP/1.1\r\n" + head + "X-A: a\x00b\r\n\r\n",
            400),
        raw("http/cr-in-header", "GET /api/health HTTP/1.1\r\n" + head + "X-A: a\rb\r\n\r\n",
            400),
        raw("http/space-before-colon", "GET /api/health HTTP/1.1\r\n" + head + "X-A : b\r\n\r\n",
            400),
        raw("http/empty-header-name", "GET /api/health HTTP/1.1\r\n" + head + ": b\r\n\r\n",
            400),
        raw("http/bare-lf", "GET /api/health HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n",
            [200, 400]),
        raw("http/expect-continue-huge", "POST /api/auth/sign-in/email HTTP/1.1\r\n" + head +
            "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "
            "104857600\r\n\r\n", 413),
        raw("http/expect-unknown", "GET /api/health HTTP/1.1\r\n" + head +
            "Expect: something\r\n\r\n", [200, 400, 417]),
        raw("http/nul-in-target", "GET /api/he\x00alth HTTP/1.1\r\n" + head + "\r\n", 400),
        raw("http/tab-in-target", "GET /api/he\talth HTTP/1.1\r\n" + head + "\r\n", 400),
        raw("http/utf8-in-target", "GET /api/héalth HTTP/1.1\r\n" + head + "\r\n", [400, 404]),
        raw("http/fragment-in-target", "GET /api/health#x HTTP/1.1\r\n" + head + "\r\n",
            [200, 400]),
        raw("http/garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + "A" * 100, 400),
        raw("http/only-crlf", "\r\n\r\n\r\n", [400, "close"]),
        raw("http/pipelined-smuggle", "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Length: 28\r\n\r\nGET /api/tables HTTP/1.1\r\n\r\n", [200, 400]),
    ]
    for header in ("Content-Length", "Host", "Transfer-Encoding", "Authorization", "Cookie"):
        out.append(raw("http/duplicate-with-case/" + header,
                       "GET /api/health HTTP/1.1\r\n" + head + f"{header}: a\r\n"
                       f"{header.lower()}: b\r\n\r\n",
                       [200, 400] if header == "Cookie" else 400))
    for method in ("PUT", "PATCH", "DELETE", "POST"):
        out.append(raw("http/wrong-method-health/" + method,
                       f"{method} /api/health HTTP/1.1\r\n" + head + "Content-Length: 0\r\n\r\n",
                       [404, 405]))
    return out


# --- path tricks ------------------------------------------------------------------------------

def path_entries():
    targets = {
        "dotdot-encoded": ITEMS + "/..%2F..%2Fvault",
        "dotdot-table": "/api/tables/%2e%2e/records",
        "dotdot-plain": "/api/tables/items/../vault/records",
        "dotdot-double-encoded": "/api/tables/%252e%252e/records",
        "dotdot-overlong": "/api/tables/%c0%ae%c0%ae/records",
        "dotdot-backslash": "/api/tables/..%5Cvault/records",
        "nul-segment": ITEMS + "/%00",
        "nul-in-table": "/api/tables/items%00/records",
        "slash-in-id": ITEMS + "/1%2F2",
        "empty-segment": "/api//tables",
        "trailing-slash": "/api/tables/items/records/",
        "id-sql": ITEMS + "/1%20OR%201%3D1",
        "id-negative": ITEMS + "/-1",
        "id-zero": ITEMS + "/0",
        "id-fraction": ITEMS + "/1.5",
        "id-huge": ITEMS + "/99999999999999999999999",
        "id-text": ITEMS + "/abc",
        "id-unicode": ITEMS + "/%D9%A1",
        "id-fullwidth": ITEMS + "/%EF%BC%91",
        "table-unicode-lookalike": "/api/tables/%C4%B1tems/records",
        "table-case": "/api/tables/ITEMS/records/{alice_item}",
        "table-sql": "/api/tables/items%22%3B%20DROP%20TABLE%20items%3B--/records",
        "table-long": "/api/tables/" + "t" * 5000 + "/records",
        "comment-id-text": ITEMS + "/{alice_item}/comments/abc",
        "comment-id-negative": ITEMS + "/{alice_item}/comments/-1",
        "history-bad-id": ITEMS + "/abc/history",
        "views-unknown": "/api/tables/items/views/nope",
        "views-dotdot": "/api/tables/items/views/..%2F..",
        "bucket-unknown": "/api/buckets/nope/files",
        "bucket-dotdot": "/api/buckets/..%2Ffiles/files",
        "file-dotdot": "/api/buckets/files/files/..%2F..%2Fetc%2Fpasswd",
        "file-dotdot-plain": "/api/buckets/files/files/../../etc/passwd",
        "file-absolute": "/api/buckets/files/files/%2Fetc%2Fpasswd",
        "file-backslash": "/api/buckets/files/files/..%5C..%5Cetc%5Cpasswd",
        "file-nul": "/api/buckets/files/files/a%00.txt",
        "file-overlong": "/api/buckets/files/files/%c0%ae%c0%ae%c0%afetc",
        "file-double-encoded": "/api/buckets/files/files/%252e%252e%252fetc",
        "file-long": "/api/buckets/files/files/" + "a" * 5000,
        "file-dot": "/api/buckets/files/files/.",
        "file-staging": "/api/buckets/files/files/.staging/x",
        "activity-id-text": "/api/activity/abc",
        "percent-truncated": "/api/tables/items%2/records",
        "percent-bad-hex": "/api/tables/%zz/records",
        "semicolon-param": "/api/tables/items;x=1/records",
        "unknown-api": "/api/nope",
        "unknown-root": "/nope",
        "root": "/",
        "api-root": "/api",
    }
    out = []
    for name, target in targets.items():
        expect = [400, 403, 404] if name.startswith("file-") else [400, 404]
        if name in ("table-case",):
            expect = 200
        if name in ("trailing-slash",):
            expect = [200, 404]
        as_ = "admin" if name.startswith("activity") else "alice"
        out.append(entry("paths/" + name, expect, "GET", target, as_))
        if not name.startswith(("file-", "bucket-", "activity")):
            out.append(entry("paths/" + name + "/patch", [400, 404] if expect != 200 else 200,
                             "PATCH", target, as_, body={"fields": {"title": "x"}}))
    return out


def main():
    write("json.jsonl", json_entries())
    write("types.jsonl", types_entries())
    write("query.jsonl", query_entries())
    write("access.jsonl", access_entries())
    write("http.jsonl", http_entries())
    write("paths.jsonl", path_entries())


if __name__ == "__main__":
    main()
