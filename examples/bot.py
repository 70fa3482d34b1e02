"""A complete Gin Rummy bot: it takes a seat, accepts challenges and plays for ever.

It reads one player stream (newline-delimited JSON over plain HTTP) and acts on each
``your_turn`` with a simple strategy: knock or go gin as soon as it may, take a face-up
card only when it makes a meld, lay off what fits, throw its highest unmelded card.
If the stream breaks (a server restart, say) it reconnects, and the server tells it
again what is open, so no match is forgotten. While an opponent keeps it waiting, it
asks the server (``GET …/claim``) when a claim would be accepted, and claims the match
then, rather than let the house stand-in play out a match its opponent abandoned. The
stream says nothing of presence, so it asks: once half the server's grace period after
its own move, then at the time the server names. With ``--think S`` it takes S seconds
over each move (a slower strategy would search then), never so long that its move clock
runs out: the time left is the server's (``deadline_ms - now_ms`` of one answer), counted
down from when the answer came, so a computer clock that is wrong does not matter.
Needs only httpx.

    python examples/bot.py --server http://127.0.0.1:8000            # a new bot account
    python examples/bot.py --token TOKEN --challenge PLAYER_ID --matches 3 --rematch
    python examples/bot.py --token TOKEN --think 5                   # 5 s a move, clock allowing
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time

import httpx

RANKS = "A23456789TJQK"
# A move sent this long before the clock runs out still arrives in time: the trip there
# and the server's work, with room to spare.
SAFETY_S = 1.0
VALUE = {rank: min(i + 1, 10) for i, rank in enumerate(RANKS)}


def makes_meld(card: str, hand: list[str]) -> bool:
    """Would ``card`` complete a set or a run with two cards of ``hand``?"""
    rank, suit = RANKS.index(card[0]), card[1]
    if sum(c[0] == card[0] for c in hand) >= 2:
        return True
    near = {RANKS.index(c[0]) - rank for c in hand if c[1] == suit}
    return any({a, b} <= near for a, b in ((-2, -1), (-1, 1), (1, 2)))


def time_left_s(answer: dict) -> float | None:
    """The seconds this seat had to move when the server answered (None: no clock runs
    for it). The deadline is on the server's clock, so it is counted against the
    answer's own ``now_ms``, never against this computer's clock, which may be wrong by
    seconds or more: 30 s fast, a bot would think it had 30 s less than it has."""
    clock = answer["view"]["clock"]
    if clock is None or clock["deadline_ms"] is None or clock["running"] != answer["seat"]:
        return None
    return (clock["deadline_ms"] - answer["now_ms"]) / 1000


def choose(view: dict) -> dict:
    """One legal action for this view, as the API takes it (no ``seat``)."""
    options: dict[str, list[dict]] = {}
    for command in view["legal"]:
        options.setdefault(command["type"], []).append(command)
    pick = None
    for kind in ("big_gin", "gin", "knock", "lay_off", "finish_layoffs", "next_hand"):
        if kind in options:
            pick = options[kind][0]
            break
    if pick is None and view["discard_pile"]:
        top = view["discard_pile"][-1]
        wanted = makes_meld(top, view["hand"])
        for kind in ("take_up_card", "draw_discard") if wanted else ("pass_up_card",):
            if kind in options:
                pick = options[kind][0]
                break
    if pick is None and "draw_stock" in options:
        pick = options["draw_stock"][0]
    if pick is None and "discard" in options:
        deadwood = set(view["arrangement"]["deadwood"])
        throws = options["discard"]
        pick = max(throws, key=lambda c: (c["card"] in deadwood, VALUE[c["card"][0]]))
    if pick is None:
        pick = view["legal"][0]
    return {k: v for k, v in pick.items() if k != "seat" and v is not None}


class Bot:
    def __init__(self, server: str, token: str, me: str, args: argparse.Namespace) -> None:
        self.http = httpx.Client(
            base_url=server, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        self.me, self.args = me, args
        self.finished: set[str] = set()
        self.watched: set[str] = set()  # matches of two house AIs its owner started to watch
        self.frames: queue.Queue[dict] = queue.Queue()  # the stream's, read by a thread
        self.checks: dict[str, float] = {}  # match id -> when (monotonic) to ask GET …/claim
        self.retries: dict[str, float] = {}  # match id -> when to try a failed turn again
        self.grace_s = 0.0  # the server's absence grace, learned from its first claim answer
        self.thinking: dict[str, tuple[int, float]] = {}  # match id -> (version, move when)

    def say(self, **fields: object) -> None:
        print(json.dumps(fields), flush=True)  # one line per thing done: easy to follow

    def play_turn(self, match_id: str) -> None:
        """The stream says ``your_turn`` once: a turn whose request fails on the way (a
        timeout, a 5xx, a restart) is tried again in a moment, or it would wait for ever."""
        self.retries[match_id] = time.monotonic() + 2  # stays if a request fails
        self.checks.pop(match_id, None)  # the opponent moved: it is not away
        if self.take_turn(match_id):
            self.retries.pop(match_id, None)

    def take_turn(self, match_id: str) -> bool:
        """False if it must be tried again (a 429: at the time ``Retry-After`` says)."""
        answer = self.http.get(f"/v1/matches/{match_id}").raise_for_status().json()
        received = time.monotonic()
        view = answer["view"]
        clock = view["clock"]
        stood_in = clock is not None and clock["timeouts_in_a_row"][1 - answer["seat"]] >= 3
        if stood_in and self.check_claim(match_id):  # its last three turns were not its own
            return True
        if not view["legal"]:
            return True
        due = self.move_when(match_id, answer, received)
        if due > time.monotonic():  # still thinking: the move goes then
            self.retries[match_id] = due
            return False
        body = {"action": choose(view), "version": answer["version"]}
        reply = self.http.post(f"/v1/matches/{match_id}/actions", json=body)
        if reply.status_code == 409:  # the match moved first: the stream will say so again
            return True
        if reply.status_code == 429:  # too many moves this window: the problem says when
            wait_s = float(reply.headers.get("Retry-After", 5))
            self.retries[match_id] = time.monotonic() + wait_s
            self.say(event="rate_limited", match_id=match_id, retry_after=wait_s)
            return False
        reply.raise_for_status()
        if not reply.json()["view"]["legal"]:  # the opponent's turn: is it still there?
            self.checks[match_id] = time.monotonic() + self.grace_s / 2
        return True

    def move_when(self, match_id: str, answer: dict, received: float) -> float:
        """When (monotonic) to send the move of this version: ``--think`` seconds after
        the bot first saw it, but ``SAFETY_S`` before its clock runs out, counted down
        from when that answer came (``received``) with the time the server said was left."""
        version = answer["version"]
        if match_id not in self.thinking or self.thinking[match_id][0] != version:
            budget = self.args.think
            left = time_left_s(answer)
            if left is not None:
                budget = min(budget, left - SAFETY_S)
            self.thinking[match_id] = (version, received + max(budget, 0.0))
        return self.thinking[match_id][1]

    def check_claim(self, match_id: str) -> bool:
        """Claim the match if the server would accept it now, else note when to ask again:
        at ``absence_claim_at_ms`` if the opponent is away, in half the grace period if it
        is connected (it may leave), never while the move is this bot's. True if claimed."""
        self.checks[match_id] = time.monotonic() + 5  # stays if a request fails
        answer = self.http.get(f"/v1/matches/{match_id}/claim")
        if answer.status_code != 200:  # match_over, say: nothing left to claim
            self.checks.pop(match_id, None)
            return False
        status = answer.json()
        self.grace_s = status["grace_ms"] / 1000
        if status["claimable"]:
            claim = self.http.post(f"/v1/matches/{match_id}/claim")
            if claim.status_code == 200:
                self.checks.pop(match_id, None)
                self.say(event="claimed", match_id=match_id, reason=status["reason"])
                return True
            status["absence_claim_at_ms"] = None  # it moved meanwhile: ask again later
        if status["absence_claim_at_ms"] is not None:
            wait_s = (status["absence_claim_at_ms"] - status["now_ms"]) / 1000
            self.checks[match_id] = time.monotonic() + max(wait_s, 0) + 0.1
        elif status["opponent_connected"] or status["claimable"]:
            self.checks[match_id] = time.monotonic() + max(self.grace_s / 2, 1)
        else:  # its own move: the opponent is waiting for it, not away
            self.checks.pop(match_id, None)
        return False

    def handle(self, frame: dict) -> bool:
        """Act on one frame; False once the bot has played its matches."""
        kind = frame["type"]
        if kind == "challenge":
            challenge = frame["challenge"]
            invitee = challenge["invitee"]
            if invitee is not None and invitee["id"] == self.me:
                self.http.post(f"/v1/challenges/{challenge['table_id']}/accept")
        elif kind == "error":  # the stream's last line: a restart, or a dead token
            problem = frame["problem"]
            if problem["rule"] == "unauthorized":
                sys.exit(f"the stream ended: {problem['detail']}")
            self.say(event="reconnecting", reason=problem["rule"])
        elif kind == "match_started" and frame["seat"] is None:
            # Watched, not played (POST /v1/house-matches with this bot's token): it has
            # no turn to take, and its end is neither one of --matches nor to rematch.
            self.watched.add(frame["match_id"])
            self.say(event="watching", match_id=frame["match_id"], players=frame["players"])
        elif kind == "match_started":
            self.say(event="match_started", match_id=frame["match_id"], seat=frame["seat"])
            # The opponent may be to act first, or have left while the stream was down;
            # the house AI never leaves (and is never claimed from).
            if not frame["players"][1 - frame["seat"]].startswith("ai:"):
                self.checks[frame["match_id"]] = time.monotonic() + self.grace_s / 2
        elif kind == "your_turn":
            self.play_turn(frame["match_id"])
        elif kind == "match_finished" and frame["match_id"] in self.watched:
            self.watched.discard(frame["match_id"])
            self.say(event="watched_finished", match_id=frame["match_id"], winner=frame["winner"])
        elif kind == "match_finished" and frame["match_id"] not in self.finished:
            self.finished.add(frame["match_id"])
            self.checks.pop(frame["match_id"], None)
            self.retries.pop(frame["match_id"], None)
            self.thinking.pop(frame["match_id"], None)
            self.say(event="match_finished", match_id=frame["match_id"], winner=frame["winner"])
            if self.args.matches and len(self.finished) >= self.args.matches:
                return False
            if self.args.rematch:
                self.http.post(f"/v1/matches/{frame['match_id']}/rematch")
        return True

    def read_stream(self) -> None:
        """The player stream, line by line into ``frames``, reconnecting when it breaks
        (in a thread, so the bot can also keep an appointment to ask about a claim)."""
        headers = self.http.headers
        with httpx.Client(base_url=self.http.base_url, headers=headers, timeout=60) as http:
            while True:
                try:
                    with http.stream("GET", "/v1/me/stream") as stream:
                        if stream.status_code == 401:
                            self.frames.put({"type": "unknown_token"})
                            return
                        for line in stream.iter_lines():
                            if line:
                                self.frames.put(json.loads(line))
                except (httpx.HTTPError, json.JSONDecodeError) as error:
                    self.frames.put({"type": "broken", "reason": type(error).__name__})
                time.sleep(1)

    def run(self) -> None:
        if self.args.challenge:
            body = {"to": self.args.challenge, "rules": {"target": self.args.target}}
            self.http.post("/v1/challenges", json=body).raise_for_status()
        threading.Thread(target=self.read_stream, daemon=True).start()
        while True:
            due = min(
                [*self.checks.values(), *self.retries.values()], default=time.monotonic() + 60
            )
            try:
                frame = self.frames.get(timeout=max(due - time.monotonic(), 0))
            except queue.Empty:
                frame = None
            if frame is not None and frame["type"] == "unknown_token":
                sys.exit("the server does not know this token (401); make a new bot")
            try:
                if frame is not None and frame["type"] == "broken":
                    self.say(event="reconnecting", reason=frame["reason"])
                elif frame is not None and not self.handle(frame):
                    return
                self.keep_appointments()
            except httpx.HTTPError as error:  # a refusal, or the server out of reach
                self.say(event="request_failed", reason=str(error).split("\n")[0])

    def keep_appointments(self) -> None:
        for match_id, when in list(self.retries.items()):
            if when <= time.monotonic():
                self.play_turn(match_id)
        for match_id, when in list(self.checks.items()):
            if when <= time.monotonic():
                self.check_claim(match_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", help="a bot account's token (default: make a new bot)")
    parser.add_argument("--name", default="SimpleBot")
    parser.add_argument("--challenge", help="challenge this player id once connected")
    parser.add_argument("--target", type=int, default=100, help="points to win (a challenge)")
    parser.add_argument("--matches", type=int, default=0, help="stop after this many (0: never)")
    parser.add_argument("--rematch", action="store_true", help="offer a rematch after each")
    parser.add_argument(
        "--think", type=float, default=0, help="seconds to take a move (never past the clock)"
    )
    args = parser.parse_args()
    token = args.token
    if token is None:
        made = httpx.post(f"{args.server}/v1/players", json={"name": args.name, "kind": "bot"})
        made.raise_for_status()
        token = made.json()["token"]
        print(json.dumps({"event": "created", "id": made.json()["id"], "token": token}), flush=True)
    me = httpx.get(f"{args.server}/v1/me", headers={"Authorization": f"Bearer {token}"})
    Bot(args.server, token, me.raise_for_status().json()["id"], args).run()


if __name__ == "__main__":
    sys.exit(main())
