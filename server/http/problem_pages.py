"""The pages a problem's ``type`` URI names: ``/problems/`` and ``/problems/<slug>``.

RFC 9457 asks that a type URI, when dereferenced, give human-readable documentation
of the problem. Both the index and each page are rendered from the registry in
server/problem_types.py, so a new refusal has its page the moment it exists and no
page can describe a status or code the server does not send. Plain HTML with no
script, stylesheet or font from elsewhere: it reads offline, as `/schema` does.
"""

from __future__ import annotations

import html
import re

import msgspec
from litestar import Response, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath

from domain.errors import quoted
from server.problem_types import BY_SLUG, PROBLEM_TYPES, PROBLEMS_PATH, ProblemType

_CODE = re.compile(r"`([^`]+)`")
_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
code, pre { font-family: ui-monospace, monospace; background: #f3f3f3; border-radius: 3px; }
code { padding: 0 .2em; } pre { padding: .75rem; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem .5rem; }
tr:nth-child(even) { background: #f7f7f7; } dt { font-weight: 600; margin-top: 1rem; }
"""


def _inline(text: str) -> str:
    """Escape ``text`` and set its `backticked` words as code, as the registry writes them."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text))


def _page(title: str, body: str) -> Response[str]:
    document = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )
    return Response(document, media_type="text/html")


def _example(problem: ProblemType) -> str:
    body = {
        "type": problem.uri,
        "title": problem.title,
        "status": problem.status,
        "detail": "…what happened this time, in words",
        "rule": problem.rule,
    }
    return msgspec.json.encode(body).decode()


@get(PROBLEMS_PATH, include_in_schema=False, sync_to_thread=False)
def problem_index() -> Response[str]:
    """Every problem type the server sends, with its status and rule code."""
    rows = "".join(
        f'<tr><td><a href="{p.uri}">{html.escape(p.title)}</a></td>'
        f"<td>{p.status}</td><td><code>{p.rule}</code></td></tr>"
        for p in PROBLEM_TYPES.values()
    )
    body = (
        "<h1>Problem types</h1>"
        "<p>Every refusal of this server is an RFC 9457 problem "
        "(<code>application/problem+json</code>). Its <code>type</code> is one of the "
        "addresses below, relative to the server, and its <code>rule</code> carries the "
        "same code as a plain string: compare either, never the <code>title</code> or "
        "<code>detail</code>, whose words may change. A WebSocket sends the same problems "
        "in its <code>error</code> frames: resolve their <code>type</code> against the "
        "server's <code>http(s)://</code> address, not the socket's <code>ws://</code> "
        "one.</p>"
        "<table><thead><tr><th>problem</th><th>status</th><th><code>rule</code></th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
        '<p>The API itself: <a href="/schema">/schema</a>.</p>'
    )
    return _page("Problem types", body)


@get(f"{PROBLEMS_PATH}{{slug:str}}", include_in_schema=False, sync_to_thread=False)
def problem_page(slug: FromPath[str]) -> Response[str]:
    """One problem type: what it means, when it is sent, and what a client should do."""
    problem = BY_SLUG.get(slug)
    if problem is None:
        raise NotFoundException(f"no problem type {quoted(slug)}; {PROBLEMS_PATH} lists them")
    body = (
        f'<p><a href="{PROBLEMS_PATH}">All problem types</a></p>'
        f"<h1>{html.escape(problem.title)}</h1>"
        "<dl>"
        f"<dt>Type</dt><dd><code>{problem.uri}</code></dd>"
        f"<dt>Status</dt><dd>{problem.status}</dd>"
        f"<dt>Rule code</dt><dd><code>{problem.rule}</code> (the <code>rule</code> member, "
        "always exactly this string)</dd>"
        f"<dt>What it means</dt><dd>{_inline(problem.meaning)}</dd>"
        f"<dt>When it is sent</dt><dd>{_inline(problem.sent_when)}</dd>"
        f"<dt>What a client should do</dt><dd>{_inline(problem.client_should)}</dd>"
        "</dl>"
        f"<h2>Example</h2><pre>{html.escape(_example(problem))}</pre>"
    )
    return _page(problem.title, body)
