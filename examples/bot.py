"""A complete Gin Rummy bot: it takes a seat, accepts challenges and plays for ever.

It reads one player stream (newline-delimited JSON over plain HTTP) and acts on each
``your_turn`` with a simple strategy: knock or go gin as soon as it may, take a face-up
card only when it makes a meld, lay off what fits, throw its highest unmelded card.
The frame carries the match as its seat sees it, so a turn is one request: the move.
If the stream breaks (a server restart, say) it reconnects, and the server tells it
again what is open, so no match is forgotten. While an opponent keeps it waiting, the
stream says when it left (``opponent_away``, with the time from which a claim would be
accepted), when it came back, and when a claim is accepted (``claimable``): the bot
claims the match then, rather than let the house stand-in play out a match its opponent
abandoned. With ``--think S`` it takes S seconds over each move (a slower strategy
would search then), never so long that its move clock runs out: the time left is the
server's (``deadline_ms - now_ms`` of the frame), counted down from when the frame came,
so a computer clock that is wrong does not matter. It paces its moves on the
``RateLimit`` header of each answer: once a limit has no request left, its next move
waits for the window's end instead of being refused (``--no-pace`` leaves that to the
429's ``Retry-After``). Needs only httpx.

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
    seconds or more: 30 s fast, a bot would think it had 30 s less than it has.
    Between hands the deadline to say "ready" is ``next_hand_deadline_ms``: the clock
    runs for no seat then, but a seat that has not said it by then has timed out."""
    clock = answer["view"]["clock"]
    if clock is None:
        return None
    if clock["next_hand_deadline_ms"] is not None:
        deadline_ms = clock["next_hand_deadline_ms"]
    elif clock["deadline_ms"] is not None and clock["running"] == answer["seat"]:
        deadline_ms = clock["deadline_ms"]
    else:
        return None
    return (deadline_ms - answer["now_ms"]) / 1000


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


def quotas(header: str) -> list[tuple[int, int]]:
    """``(requests left, seconds to the window's end)`` of each limit in a ``RateLimit``
    header: ``"actions-player";r=0;t=42, "actions-address";r=49;t=42``."""
    found = []
    for item in header.split(","):
        params = dict(p.strip().split("=", 1) for p in item.split(";")[1:] if "=" in p)
        if "r" in params and "t" in params:
            found.append((int(params["r"]), int(params["t"])))
    return found


class Bot:
    def __init__(self, server: str, token: str, me: str, args: argparse.Namespace) -> None:
        self.http = httpx.Client(
            base_url=server, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        self.me, self.args = me, args
        self.finished: set[str] = set()
        self.watched: set[str] = set()  # matches of two house AIs its owner started to watch
        # the stream's frames, each with when (monotonic) it came, read by a thread
        self.frames: queue.Queue[tuple[dict, float]] = queue.Queue()
        self.turns: dict[str, tuple[dict, float]] = {}  # match id -> its turn's match, when
        self.retries: dict[str, float] = {}  # match id -> when to try a failed turn again
        # match id -> when to claim again, why, whether a refusal is tried once more then
        self.claims: dict[str, tuple[float, str, bool]] = {}
        self.thinking: dict[str, tuple[int, float]] = {}  # match id -> (version, move when)
        self.paused_until = 0.0  # monotonic: a move limit is spent until then

    def say(self, **fields: object) -> None:
        print(json.dumps(fields), flush=True)  # one line per thing done: easy to follow

    def play_turn(self, match_id: str) -> None:
        """The stream says ``your_turn`` once: a turn whose request fails on the way (a
        timeout, a 5xx, a restart) is tried again in a moment, or it would wait for ever."""
        self.retries[match_id] = time.monotonic() + 2  # stays if a request fails
        if self.take_turn(match_id):
            self.retries.pop(match_id, None)

    def take_turn(self, match_id: str) -> bool:
        """False if it must be tried again (a 429: at the time ``Retry-After`` says)."""
        answer, received = self.turns[match_id]  # the your_turn frame's match
        view = answer["view"]
        if not view["legal"]:
            return True
        due = max(self.move_when(match_id, answer, received), self.paused_until)
        if due > time.monotonic():  # still thinking, or paced: the move goes then
            self.retries[match_id] = due
            return False
        body = {"action": choose(view), "version": answer["version"]}
        reply = self.http.post(f"/v1/matches/{match_id}/actions", json=body)
        self.pace(reply)
        if reply.status_code == 409:  # the match moved first: the stream will say so again
            return True
        if reply.status_code == 429:  # too many moves this window: the problem says when
            wait_s = float(reply.headers.get("Retry-After", 5))
            self.retries[match_id] = time.monotonic() + wait_s
            self.say(event="rate_limited", match_id=match_id, retry_after=wait_s)
            return False
        reply.raise_for_status()
        return True

    def pace(self, reply: httpx.Response) -> None:
        """Hold the next move until the window ends once a limit this answer counted has
        no request left (``RateLimit: "actions-player";r=0;t=42``), rather than be
        refused with a 429 and try again."""
        if self.args.no_pace:
            return
        wait_s = max(
            (float(t) for r, t in quotas(reply.headers.get("RateLimit", "")) if r == 0),
            default=0.0,
        )
        if wait_s > 0:
            self.paused_until = time.monotonic() + wait_s
            self.say(event="paced", wait_s=wait_s)

    def move_when(self, match_id: str, answer: dict, received: float) -> float:
        """When (monotonic) to send the move of this version: ``--think`` seconds after
        the bot first saw it, but ``SAFETY_S`` before its clock runs out, counted down
        from when that frame came (``received``) with the time the server said was left."""
        version = answer["version"]
        if match_id not in self.thinking or self.thinking[match_id][0] != version:
            budget = self.args.think
            left = time_left_s(answer)
            if left is not None:
                budget = min(budget, left - SAFETY_S)
            self.thinking[match_id] = (version, received + max(budget, 0.0))
        return self.thinking[match_id][1]

    def claim(self, match_id: str, reason: str, again: bool = True) -> None:
        """The stream said a claim is accepted now (``claimable``). If the opponent came
        back or moved meanwhile, it is refused and changes nothing: the stream says again
        when it is claimable. A refusal is tried once more a second later all the same
        (the process that said it and the one that decides may differ in their clocks by
        a little); a 429 when ``Retry-After`` says, a 5xx in a moment."""
        self.claims.pop(match_id, None)
        reply = self.http.post(f"/v1/matches/{match_id}/claim")
        if reply.status_code == 200:
            self.say(event="claimed", match_id=match_id, reason=reason)
        elif reply.status_code == 409 and again:
            self.claims[match_id] = (time.monotonic() + 1, reason, False)
        elif reply.status_code == 429:
            wait_s = float(reply.headers.get("Retry-After", 5))
            self.claims[match_id] = (time.monotonic() + wait_s, reason, again)
        elif reply.status_code >= 500:
            self.claims[match_id] = (time.monotonic() + 2, reason, again)

    def handle(self, frame: dict, received: float) -> bool:
        """Act on one frame (``received``: when it came, monotonic); False once the bot
        has played its matches."""
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
        elif kind == "your_turn":
            self.turns[frame["match_id"]] = (frame["match"], received)
            self.play_turn(frame["match_id"])
        elif kind == "opponent_away":  # nothing to do yet: "claimable" comes at claim_at_ms
            wait_s = (frame["claim_at_ms"] - frame["now_ms"]) / 1000
            self.say(event="opponent_away", match_id=frame["match_id"], claim_in_s=wait_s)
        elif kind == "opponent_back":
            self.say(event="opponent_back", match_id=frame["match_id"])
        elif kind == "claimable":
            self.claim(frame["match_id"], frame["reason"])
        elif kind == "match_finished" and frame["match_id"] in self.watched:
            self.watched.discard(frame["match_id"])
            self.say(event="watched_finished", match_id=frame["match_id"], winner=frame["winner"])
        elif kind == "match_finished" and frame["match_id"] not in self.finished:
            self.finished.add(frame["match_id"])
            self.turns.pop(frame["match_id"], None)
            self.claims.pop(frame["match_id"], None)
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
        (in a thread, so the bot can also keep its appointments: a move it thinks over, a
        request to try again)."""
        headers = self.http.headers
        with httpx.Client(base_url=self.http.base_url, headers=headers, timeout=60) as http:
            while True:
                try:
                    with http.stream("GET", "/v1/me/stream") as stream:
                        if stream.status_code == 401:
                            self.frames.put(({"type": "unknown_token"}, time.monotonic()))
                            return
                        for line in stream.iter_lines():
                            if line:
                                self.frames.put((json.loads(line), time.monotonic()))
                except (httpx.HTTPError, json.JSONDecodeError) as error:
                    broken = {"type": "broken", "reason": type(error).__name__}
                    self.frames.put((broken, time.monotonic()))
                time.sleep(1)

    def run(self) -> None:
        if self.args.challenge:
            body = {"to": self.args.challenge, "rules": {"target": self.args.target}}
            self.http.post("/v1/challenges", json=body).raise_for_status()
        threading.Thread(target=self.read_stream, daemon=True).start()
        while True:
            appointments = [*self.retries.values(), *(c[0] for c in self.claims.values())]
            due = min(appointments, default=time.monotonic() + 60)
            try:
                frame, received = self.frames.get(timeout=max(due - time.monotonic(), 0))
            except queue.Empty:
                frame, received = None, time.monotonic()
            if frame is not None and frame["type"] == "unknown_token":
                sys.exit("the server does not know this token (401); make a new bot")
            try:
                if frame is not None and frame["type"] == "broken":
                    self.say(event="reconnecting", reason=frame["reason"])
                elif frame is not None and not self.handle(frame, received):
                    return
                self.keep_appointments()
            except httpx.HTTPError as error:  # a refusal, or the server out of reach
                self.say(event="request_failed", reason=str(error).split("\n")[0])

    def keep_appointments(self) -> None:
        for match_id, when in list(self.retries.items()):
            if when <= time.monotonic():
                self.play_turn(match_id)
        for match_id, (when, reason, again) in list(self.claims.items()):
            if when <= time.monotonic():
                self.claim(match_id, reason, again)


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
    parser.add_argument(
        "--no-pace", action="store_true", help="ignore RateLimit headers (429s say when)"
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
