"""A table whose server's store went back (restored from a backup) shows the store's match.

The page's socket reconnects asking for the events after the version on screen; a store
restored from an older copy has not reached it, and the server refuses (an ``error`` frame,
``version_out_of_range``). The page then asked for a snapshot, but showed one only if newer
than its view and dropped every event at or below the newest it had queued: it stayed on a
view of a future the store no longer has, the moves made from the restored version on were
never shown, and the player read a raw toast ("after: N is past…"). It now reads the match
again and shows it as the store has it. Real server on a SQLite file, backed up with
SQLite's online backup, restored with the server stopped, started again on the same port;
real headless Chromium.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from playwright.sync_api import Browser

from tests.e2e.test_page import browser, restartable_site, settle, wait_until  # noqa: F401
from tests.e2e.test_page_friends import joined, make_player, private_table, signed_in
from tests.e2e.test_page_match_end import act, simple_move
from tests.e2e.test_page_match_end_reopened import view_of

# Every toast's words, as each is shown (one shown and gone before a check is still seen).
TOASTS_SEEN = r"""
window.__toasts = [];
new MutationObserver(() => {
  const el = document.getElementById('toast');
  const text = el && !el.hidden ? el.textContent.trim() : '';
  if (text && window.__toasts[window.__toasts.length - 1] !== text) window.__toasts.push(text);
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""

RECONNECT_MS = 45_000


def move_once(site: str, players: tuple[dict[str, str], ...], match_id: str) -> int:
    """The seat to act makes a simple move over HTTP; the match's version after it."""
    views = [view_of(site, p, match_id) for p in players]
    to_act = next(i for i, v in enumerate(views) if v["seat"] in v["to_act"])
    version: int = act(site, players[to_act], match_id, simple_move(views[to_act], knock=False))[
        "version"
    ]
    return version


def shown_version(expected: int) -> str:
    return f"document.body.dataset.version === '{expected}'"


def test_a_store_restored_from_a_backup_is_shown_as_it_is(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    with restartable_site(browser, tmp_path) as served:
        site, page, db = served.base, served.page, tmp_path / "page.db"
        page.add_init_script(TOASTS_SEEN)
        host, guest = make_player(site, "Ida"), make_player(site, "Max")
        players = (host, guest)
        match_id = joined(site, private_table(site, host, hints=True), guest)
        move_once(site, players, match_id)
        backed_up = move_once(site, players, match_id)
        signed_in(page, site, host)
        page.goto(f"{site}/?delay=0#/match/{match_id}")
        wait_until(page, shown_version(backed_up))
        settle(page)
        backup = tmp_path / "backup.db"
        with sqlite3.connect(db) as live, sqlite3.connect(backup) as copy:
            live.backup(copy)  # SQLite's online backup, as the server runs

        for _ in range(3):
            ahead = move_once(site, players, match_id)
        wait_until(page, shown_version(ahead))  # the page's socket brought them
        settle(page)

        served.stop()
        for extra in ("-wal", "-shm", "-journal"):
            Path(f"{db}{extra}").unlink(missing_ok=True)
        shutil.copyfile(backup, db)
        served.start()
        assert view_of(site, host, match_id)["version"] == backed_up, "the store went back"

        # The socket's retries back off (up to 10 s apart) while the server is down.
        wait_until(page, shown_version(backed_up), timeout=RECONNECT_MS)
        settle(page)
        # And it plays on from there: a move made now is shown, not dropped as old news.
        next_version = move_once(site, players, match_id)
        assert next_version == backed_up + 1
        wait_until(page, shown_version(next_version))
        toasts = page.evaluate("window.__toasts")
        assert not [t for t in toasts if "past" in t], f"no raw refusal is shown: {toasts}"
