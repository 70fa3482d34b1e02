"""The lobby lists the bots waiting for a challenge, in a real Chromium page: the example
bot (``examples/bot.py``) runs as a real subprocess, is listed while it is connected,
accepts the Challenge pressed on its row, and the match opens; once the program stops,
its row goes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.test_page import TIMEOUT_MS, browser, page, site  # noqa: F401  (fixtures)
from tests.e2e.test_page_friends import make_player, signed_in

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def test_a_listed_bot_is_challenged_from_the_lobby(site: str, page: Page) -> None:  # noqa: F811
    bot = subprocess.Popen(
        [sys.executable, str(BOT), "--server", site, "--name", "Listening Bot"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bot.stdout is not None
        created = json.loads(bot.stdout.readline())  # {"event": "created", "id": …}
        ada = make_player(site, "Ada Seeking")
        signed_in(page, site, ada)
        page.goto(f"{site}/#/lobby")
        row = page.locator(f"[data-testid=bot-online][data-player='{created['id']}']")
        # The bot prints "created" before its stream opens, and the lobby reads the list
        # every 5 s: expect's own 5 s (not the page's timeout) could miss the next read.
        expect(row).to_contain_text("Listening Bot (bot)", timeout=TIMEOUT_MS)
        expect(row).to_contain_text("rated 1500 ± 700 (provisional)")
        row.get_by_role("button", name="Challenge Listening Bot (bot)").click()
        page.wait_for_selector("body[data-screen=table]")  # the program accepted it
        # The screen shows before the match's view is read and drawn: wait for the names.
        expect(page.locator("#scorebar")).to_contain_text("Listening Bot", timeout=TIMEOUT_MS)
        assert page.locator("#scorebar").inner_text().count("Listening Bot") == 1
    finally:
        bot.kill()
        bot.wait()
    page.goto(f"{site}/#/lobby")
    expect(page.locator("[data-testid=bot-online]")).to_have_count(0, timeout=40_000)
    expect(page.locator("[data-testid=bots-online]")).to_contain_text("None right now")
