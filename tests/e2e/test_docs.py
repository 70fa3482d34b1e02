"""Every shell block of README.md and docs/*.md, run in order in bash against a real server.

A newcomer pastes these blocks as they are; a variable no step sets, a 404 that
``curl -s`` hides or a renamed field should fail here, not on their machine. Each
file's blocks run in one bash session, in order (a later block uses the variables an
earlier one set), under ``set -euo pipefail``, with ``localhost:8000`` and
``127.0.0.1:8000`` pointed at the test's server. Blocks written as a session
(``$ command`` then its output) run their commands only, and each key of the output
the document shows must appear in the real output. ``curl`` is wrapped so that every
HTTP status is recorded: a status of 400 or more fails the test unless the block shows
it (``"status":409``), which is how the docs demonstrate errors.

Blocks that cannot run here are skipped by name, with the reason, and the list is
checked, so a new block is never skipped silently. Python blocks are not run: the
WebSocket clients loop until a match ends, and tests/e2e/test_protocol.py drives the
same protocol.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.e2e.harness import ROOT, Player, ServerProcess, play_out

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}

#: A block containing one of these is not run, for the reason given.
SKIP_MARKERS = {
    "make run": (
        "starts a server on port 8000 (the test starts its own), and `make test` runs"
        " the whole suite, of which this test is a part"
    ),
    "make test": "runs the whole test suite, of which this test is a part",
    "ginrummy serve": "starts servers (one on PostgreSQL); the test starts its own",
    "examples/bot.py": (
        "the bot plays until it is stopped; tests/e2e/test_bots.py runs it as a subprocess"
    ),
}

#: Every skipped block (file, first line) with its reason, as the test expects them.
EXPECTED_SKIPS = {
    (
        "README.md",
        "make run    # installs the server into .venv, migrates ./data/ginrummy.sqlite3, serves http://127.0.0.1:8000",
    ): "make run",
    (
        "README.md",
        ".venv/bin/python examples/bot.py --name SimpleBot      # prints its id and token, then plays",
    ): "examples/bot.py",
    (
        "docs/configuration.md",
        ".venv/bin/ginrummy serve                         # SQLite at ./data/ginrummy.sqlite3, port 8000",
    ): "ginrummy serve",
}


class Block:
    def __init__(self, path: Path, line: int, text: str) -> None:
        self.path = path
        self.name = str(path.relative_to(ROOT))
        self.line = line
        self.text = text
        self.session = any(row.startswith("$ ") for row in text.splitlines())

    @property
    def skip_reason(self) -> str | None:
        for marker, reason in SKIP_MARKERS.items():
            if marker in self.text:
                return f"{marker}: {reason}"
        return None

    def commands(self) -> list[tuple[str, str]]:
        """(command, output shown after it); a script block is one command, no output."""
        if not self.session:
            return [(self.text, "")]
        result: list[tuple[str, str]] = []
        rows = self.text.splitlines()
        i = 0
        while i < len(rows):
            if not rows[i].startswith("$ "):
                raise AssertionError(f"{self.name}:{self.line}: output before any command")
            command = [rows[i][2:]]
            while command[-1].endswith("\\") and i + 1 < len(rows):
                i += 1
                command.append(rows[i])
            i += 1
            shown = []
            while i < len(rows) and not rows[i].startswith("$ "):
                shown.append(rows[i])
                i += 1
            result.append(("\n".join(command), "\n".join(shown)))
        return result


def shell_blocks(path: Path) -> list[Block]:
    blocks = []
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S):
        if match.group(1) in SHELL:
            line = text.count("\n", 0, match.start()) + 2
            blocks.append(Block(path, line, match.group(2)))
    return blocks


def script_for(blocks: list[Block], port: int) -> tuple[str, list[tuple[Block, str, str]]]:
    """One bash script for a file's blocks, and the (block, command, shown output) it runs."""
    lines = [
        "set -euo pipefail",
        "trap 'echo \"FAILED in block $DOC_BLOCK: $BASH_COMMAND (exit $?)\" >&2' ERR",
        'curl() { command curl -w "%{stderr}HTTP $DOC_BLOCK %{http_code}\\n" "$@"; }',
    ]
    ran: list[tuple[Block, str, str]] = []
    for block in blocks:
        if block.skip_reason:
            continue
        for command, shown in block.commands():
            command = re.sub(r"(localhost|127\.0\.0\.1):8000", f"127.0.0.1:{port}", command)
            lines += [f"DOC_BLOCK={len(ran)}", f"printf '\\n@@command {len(ran)}\\n'", command]
            ran.append((block, command, shown))
    return "\n".join(lines) + "\n", ran


async def _finished_match(server: ServerProcess) -> dict[str, str]:
    """What docs/fair-deal.md's shell block needs: URL, TOKEN and a finished MATCH."""
    player = await Player.create(server.url)
    try:
        match = await player.new_match(rules="arcadia", client_seed="docs")
        await play_out(player, match)
        log = await player.events(match["match_id"])
    finally:
        await player.close()
    commitments = [e["event"]["commitment"] for e in log["events"] if e["event"]["type"] == "dealt"]
    return {
        "URL": server.url,
        "TOKEN": player.token,
        "MATCH": match["match_id"],
        "EXPECTED_COMMITMENTS": "\n".join(commitments),
    }


def test_every_skipped_block_is_listed_with_its_reason() -> None:
    skipped = {
        (block.name, block.text.splitlines()[0]): block.skip_reason.split(":")[0]
        for path in DOCS
        for block in shell_blocks(path)
        if block.skip_reason
    }
    for (name, first), marker in sorted(skipped.items()):
        print(f"skipped {name}: {first!r}: {SKIP_MARKERS[marker]}")
    assert skipped == EXPECTED_SKIPS


def test_an_action_sends_a_written_version_only_in_a_seeded_match() -> None:
    """A fair deal draws the first dealer at random, so the version a player is at when
    the match starts (2, or later when the AI acts first) and its legal actions vary
    from run to run: a block may write them into an action only after a match whose
    ``seed`` fixes the deal; otherwise it must read them from the view."""
    creating = re.compile(r"-X POST \S*/v1/matches[\s\"'][^|)]*")
    fixed = re.compile(r'"action":\{[^}]*\}\s*,\s*"version":\s*\d+')
    for path in DOCS:
        text = "\n".join(block.text for block in shell_blocks(path))
        for action in fixed.finditer(text):
            created = [m.group(0) for m in creating.finditer(text, 0, action.start())]
            assert created, f"{path.name}: an action before any match: {action.group(0)}"
            assert '"seed"' in created[-1], (
                f"{path.name}: {action.group(0)!r} writes a version into an action of a"
                f" match dealt at random ({created[-1][:120]!r})"
            )


def test_the_rated_rule_names_every_condition_of_the_policy() -> None:
    """``domain.rating_policy.is_rated`` refuses a match that was declined, dealt from a
    chosen seed, played with hints or under custom rules: the rule as README.md and
    docs/ratings.md state it names each, so a reader can tell a rated match beforehand."""
    ratings = (ROOT / "docs" / "ratings.md").read_text(encoding="utf-8")
    section = ratings.split("## Which matches are rated", 1)[1].split("\n## ", 1)[0]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rule = readme.split("## Ratings and leaderboards", 1)[1].split("```", 1)[0]
    for name, text in (("docs/ratings.md", section), ("README.md", rule)):
        for condition in ('"rated": false', "seed", "hints", "preset"):
            assert condition in text, f"{name}: the rated rule does not name {condition!r}"


def _client_message_types(channel: str) -> set[str]:
    """The ``type`` of every message a client may send on an asyncapi.yaml channel (the
    document's ``send`` operations are the client's)."""
    document = yaml.safe_load((ROOT / "openapi" / "asyncapi.yaml").read_text(encoding="utf-8"))
    messages = document["components"]["messages"]
    types = set()
    for operation in document["operations"].values():
        if operation["action"] != "send" or not operation["channel"]["$ref"].endswith(channel):
            continue
        for ref in operation["messages"]:
            name = document["channels"][channel]["messages"][ref["$ref"].rsplit("/", 1)[1]]
            message = messages[name["$ref"].rsplit("/", 1)[1]]
            types.add(message["payload"]["properties"]["type"]["const"])
    return types


def test_the_socket_tables_name_every_message_a_client_may_send() -> None:
    """README.md's message table and docs/api.md's ``client → server`` table list every
    message the ``live`` socket takes (docs/api.md's lacked ``claim``)."""
    expected = _client_message_types("live")
    assert {"auth", "action", "chat", "claim", "ping", "pong", "resume"} <= expected
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| client → server \| (.+?) \|", readme, re.MULTILINE)
    assert set(re.findall(r"`([a-z_]+)`", " ".join(rows))) >= expected, "README.md"
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    table = api.split("| client → server | meaning |", 1)[1].split("\n\n", 1)[0]
    cells = re.findall(r"^\| `([a-z_]+)[ `{]", table, re.MULTILINE)
    cells += re.findall(r"^\| `[a-z_]+` / `([a-z_]+)`", table, re.MULTILINE)
    assert set(cells) >= expected, f"docs/api.md lists {sorted(cells)}"


@pytest.mark.parametrize("channel", ["live", "watch"])
def test_a_match_channel_lists_every_message_its_socket_answers(channel: str) -> None:
    """Both match sockets dispatch every type of ``server.ws.live.FIELDS`` (a spectator's
    ``action``, ``chat``, ``claim`` and ``auth`` are answered with an ``error`` frame), so
    both channels list them all: the ``watch`` channel lacked ``action`` and ``claim``."""
    from server.ws.live import FIELDS

    listed = _client_message_types(channel)
    assert set(FIELDS) <= listed, f"{channel} does not list {sorted(set(FIELDS) - listed)}"


def _nothing_to_run(path: Path) -> str | None:
    """Why none of a file's shell blocks runs, if none does."""
    blocks = shell_blocks(path)
    if [b for b in blocks if not b.skip_reason]:
        return None
    reasons = "; ".join(f"line {b.line}: {b.skip_reason}" for b in blocks)
    return f"{path.name}: " + (
        f"every shell block is skipped ({reasons})" if blocks else "no shell block"
    )


# A file with nothing to run is skipped by a mark, decided as the tests are collected,
# so that its test starts no server (six of the nine files have no block to run).
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            path,
            id=str(path.relative_to(ROOT)),
            marks=[pytest.mark.skip(reason=why)] if (why := _nothing_to_run(path)) else [],
        )
        for path in DOCS
    ],
)
async def test_shell_blocks_run_as_written(
    path: Path, server: ServerProcess, tmp_path: Path
) -> None:
    blocks = shell_blocks(path)
    env = {**os.environ, "HOME": str(tmp_path)}  # no ~/.curlrc of the machine's
    if path.name == "fair-deal.md":  # it checks a finished match's decks
        env |= await _finished_match(server)
    script, ran = script_for(blocks, server.port)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    where = "\n".join(
        f"  command {i}: {b.name}:{b.line}: {c[:90]!r}" for i, (b, c, _) in enumerate(ran)
    )
    assert done.returncode == 0, f"{done.stderr}\n{done.stdout}\ncommands:\n{where}"

    statuses = [
        (int(i), code) for i, code in re.findall(r"^HTTP (\d+) (\d{3})$", done.stderr, re.M)
    ]
    assert statuses, "the blocks made no HTTP call"
    for index, (block, command, shown) in enumerate(ran):
        errors = Counter(code for i, code in statuses if i == index and int(code) >= 400)
        allowed = Counter(re.findall(r'"status":\s*(\d{3})', shown or block.text))
        assert not errors - allowed, (
            f"{block.name}:{block.line}: HTTP {dict(errors)} from {command[:300]!r}, "
            "which the document does not show as an expected error"
        )
        assert not [c for i, c in statuses if i == index and c == "000"], (
            f"no answer to {command!r}"
        )

    outputs = dict(_split_outputs(done.stdout))
    for index, (block, command, shown) in enumerate(ran):
        keys = set(re.findall(r'"(\w+)":', shown))
        missing = {k for k in keys if f'"{k}":' not in outputs.get(index, "")}
        assert not missing, (
            f"{block.name}:{block.line}: {command!r} printed no {sorted(missing)}:\n"
            f"{outputs.get(index, '')[:2000]}"
        )
        # A problem's type and rule are what clients compare: shown, they must be exact.
        for code in re.findall(r'"type":"[^"]*/problems/[^"]*"|"rule":"[^"]*"', shown):
            assert code in outputs.get(index, ""), (
                f"{block.name}:{block.line}: {command!r} printed no {code}:\n"
                f"{outputs.get(index, '')[:2000]}"
            )
    if path.name == "fair-deal.md":
        printed = [line for line in done.stdout.splitlines() if line and not line.startswith("@@")]
        expected = env["EXPECTED_COMMITMENTS"].splitlines()
        hexes = [line for line in printed if re.fullmatch(r"[0-9a-f]{64}", line)]
        assert hexes == expected, "each deck matches its deal"
        assert any(line.startswith("the server seed matches ") for line in printed)
        verified = f"fair deal verified: {len(expected)} hands"
        assert any(line.startswith(verified) for line in printed), printed


def _split_outputs(stdout: str) -> list[tuple[int, str]]:
    """The script's stdout cut at each ``@@command N`` marker: (N, what it printed)."""
    parts = re.split(r"^@@command (\d+)\n", stdout, flags=re.M)[1:]
    return [(int(index), text) for index, text in zip(parts[0::2], parts[1::2], strict=True)]
