"""How well guesses consistent with the opponent's history predict which discards meld with it.

The go/no-go of issue 21's session 19: ``domain.ai.history`` draws the opponent's hand as a
story checked against the hand it held at each past decision; before it is wired into
hard, its weighted meld share of each discardable card is compared, on the very same
decisions, with hard v2's guesses (``domain.ai.opponent``), against whether the card
completes a meld in the opponent's real hand (read from the game state for the label
only), as in ``benchmarks.meld_model`` (session 17/18: v2 0.774 AUC, a learned model 0.812).

``record`` plays hard against the levels (each deal twice, seats swapped) and stores each
of hard's discard decisions: its view, the options, v2's shares and the real hand.
``score`` re-guesses every stored decision with ``history`` under ``--set`` overrides
(as the tournament takes them) and prints log-loss, AUC and AUC within a decision, by
opponent.

    python -m benchmarks.history_auc record --seed s19-auc --deals 40 --out /tmp/h.jsonl
    python -m benchmarks.history_auc score --data /tmp/h.jsonl --set history.SLACK=0.5
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.meld_model import (
    OPPONENTS,
    GameJob,
    Row,
    add_record_arguments,
    auc,
    log_loss,
    record_games,
    within_decision_auc,
)
from benchmarks.tournament import hand_state, overridden, play_hand
from domain.ai import feed_model, hard, history, knowledge, opponent, tactics
from domain.ai.choose import seeded_rng
from domain.ai.clock import Clock
from domain.cards import CARD_INDEX, to_mask
from domain.commands import AnySeatCommand
from domain.state import MatchState
from domain.views import PlayerView


def record_game(job: GameJob) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    game_seed = f"{job.seed}:{job.deal}"
    seat = job.hard_seat
    levels = ("hard", job.opponent) if seat == 0 else (job.opponent, "hard")

    def watch(state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if view.seat != seat or view.phase != "discard" or state.hand is None:
            return
        know = knowledge.read(view)
        rng = seeded_rng("hard", view, f"{game_seed}:{seat}")
        guesses = opponent.guesses(know, rng, hard.GUESSES, Clock(None))
        options = [CARD_INDEX[card] for card in tactics.discardable(view)]
        out.append(
            {
                "opponent": job.opponent,
                "decision": f"{game_seed}:{seat}:{len(view.moves)}",
                "view": msgspec.json.encode(view).decode(),
                "options": options,
                "v2": [feed_model.meld_share(guesses, i) for i in options],
                "real": to_mask(state.hand.hands[1 - seat]),
            }
        )

    play_hand(hand_state(game_seed, job.deal % 2, levels, job.rules), levels, game_seed, watch)
    return out


def record(opts: argparse.Namespace) -> None:
    record_games(opts, record_game, dict)


def _score_one(item: tuple[str, list[str]]) -> tuple[list[float], float]:
    line, overrides = item
    d = json.loads(line)
    view = msgspec.json.decode(d["view"], type=PlayerView)
    with overridden(overrides):
        know = knowledge.read(view)
        rng = seeded_rng("hard", view, d["decision"])
        began = time.perf_counter()
        guesses = history.guesses(history.steps(view), know, rng, hard.GUESSES, Clock(None))
        spent = time.perf_counter() - began
    return [feed_model.meld_share(guesses, i) for i in d["options"]], spent


def score(opts: argparse.Namespace) -> None:
    lines = opts.data.read_text().splitlines()
    if opts.limit:
        lines = lines[: opts.limit]
    decisions = [json.loads(line) for line in lines]
    began = time.perf_counter()
    items = [(line, opts.set) for line in lines]
    if opts.workers > 1:
        with multiprocessing.Pool(min(opts.workers, 2)) as pool:
            results = pool.map(_score_one, items, chunksize=8)
    else:
        results = [_score_one(item) for item in items]
    times = sorted(t for _, t in results)
    print(
        f"{opts.set or 'defaults'}: {len(decisions)} decisions, {time.perf_counter() - began:.0f} s; "
        f"guessing median {times[len(times) // 2] * 1000:.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms"
    )
    rows: list[tuple[str, Row, float]] = []
    for d, (shares, _) in zip(decisions, results, strict=True):
        for index, old, new in zip(d["options"], d["v2"], shares, strict=True):
            label = int(knowledge.partners(d["real"], index) > 0)
            row = Row(d["opponent"], d["decision"], [], old, label, False, 0.0)
            rows.append((d["opponent"], row, new))
    print("| opponent | cards | meld | guesses | log-loss | AUC | AUC within a decision |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for group in ("all", *OPPONENTS):
        chosen = [(r, new) for level, r, new in rows if group in ("all", level)]
        if not chosen:
            continue
        group_rows = [r for r, _ in chosen]
        truth = [r.label for r in group_rows]
        for name, ps in (
            ("v2", [r.share for r in group_rows]),
            ("history", [n for _, n in chosen]),
        ):
            print(
                f"| {group} | {len(truth)} | {sum(truth) / len(truth):.1%} | {name} | "
                f"{log_loss(ps, truth):.3f} | {auc(ps, truth):.3f} | "
                f"{within_decision_auc(group_rows, ps):.3f} |"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_record_arguments(
        sub.add_parser("record", help="play and store hard's discard decisions"), 40
    )
    sc = sub.add_parser("score", help="re-guess the stored decisions with domain.ai.history")
    sc.add_argument("--data", type=Path, required=True)
    sc.add_argument("--set", action="append", default=[], help="module.NAME=value")
    sc.add_argument("--limit", type=int, default=0, help="only the first N decisions")
    sc.add_argument("--workers", type=int, default=2)
    opts = parser.parse_args(argv)
    if opts.command == "record":
        record(opts)
    else:
        score(opts)


if __name__ == "__main__":
    main()
