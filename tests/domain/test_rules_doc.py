"""docs/rules.md's worked examples and preset table, recomputed by the engine.

The rules document is what players and client authors read instead of the code, so
every number in its examples is checked here: a change to scoring, layoffs or a preset
that the document does not follow fails this test rather than misleading a reader.
The examples are parsed from the document itself (fenced ``worked-example`` and
``worked-settlement`` blocks), so there is no second copy to keep in step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain.melds import arrange, best_layoffs
from domain.rules import PRESETS
from domain.scoring import score_hand, settle

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")
OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def _blocks(kind: str) -> list[dict[str, str]]:
    """Each fenced block with that info string, as its ``key: value`` lines."""
    found = re.findall(rf"^```{kind}\n(.*?)^```", TEXT, flags=re.M | re.S)
    return [
        {
            key.strip(): value.strip()
            for key, value in (line.split(":", 1) for line in block.splitlines())
        }
        for block in found
    ]


HANDS = _blocks("worked-example")
SETTLEMENTS = _blocks("worked-settlement")


def _pair(text: str) -> tuple[int, int]:
    """``Ada 104, Bo 62`` -> (104, 62): the first player is seat 0."""
    numbers = [int(n) for n in re.findall(r"-?\d+", text)]
    assert len(numbers) == 2, text
    return numbers[0], numbers[1]


def test_the_document_has_its_examples() -> None:
    """A renamed fence would silently skip every check below."""
    assert len(HANDS) >= 5 and len(SETTLEMENTS) >= 4
    outcomes = {ex["result"].split(",")[0] for ex in HANDS}
    assert outcomes == {"knock", "undercut", "gin", "big gin"}


@pytest.mark.parametrize("ex", HANDS, ids=[ex["result"] for ex in HANDS])
def test_worked_hand(ex: dict[str, str]) -> None:
    rules = PRESETS[ex["rules"]]
    knocker = ex["knocker keeps"].split()
    arranged = arrange(knocker)
    stated_melds = [tuple(m.split()) for m in ex["knocker melds"].split("|")]
    assert sorted(sorted(m) for m in arranged.melds) == sorted(sorted(m) for m in stated_melds)
    assert arranged.deadwood_points == int(ex["knocker deadwood"])

    outcome, _, who = ex["result"].partition(",")
    kind = {"big gin": "big_gin", "gin": "gin"}.get(outcome, "knock")
    assert (len(knocker) == 11) == (kind == "big_gin")
    defender = ex["defender holds"].split()
    assert len(defender) == 10 and not set(defender) & set(knocker)
    if kind == "knock":
        plan = best_layoffs(defender, arranged.melds)
        laid = [card for card, _ in plan.layoffs]
        defender_deadwood = plan.arrangement.deadwood_points
    else:  # no layoffs against gin or big gin
        laid = []
        defender_deadwood = arrange(defender).deadwood_points
    stated_laid = [] if ex["defender lays off"] == "none" else ex["defender lays off"].split()
    assert sorted(laid) == sorted(stated_laid)
    assert defender_deadwood == int(ex["defender deadwood"])

    points = score_hand(rules, kind, arranged.deadwood_points, defender_deadwood)  # type: ignore[arg-type]
    assert points.outcome == outcome.replace(" ", "_")
    match = re.fullmatch(r"the (knocker|defender) scores (\d+)", who.strip())
    assert match, who
    assert points.knocker_wins == (match.group(1) == "knocker")
    assert points.points == int(match.group(2))


@pytest.mark.parametrize("ex", SETTLEMENTS, ids=[ex["rules"] for ex in SETTLEMENTS])
def test_worked_settlement(ex: dict[str, str]) -> None:
    names = re.findall(r"[A-Z][a-z]+", ex["hand points"])
    result = settle(PRESETS[ex["rules"]], _pair(ex["hand points"]), _pair(ex["hands won"]))
    assert result.box_points == _pair(ex["box points"])
    kind, amount = ex["bonus"].split()
    assert (result.bonus_kind, result.bonus) == (kind, int(amount))
    assert result.totals == _pair(ex["totals"])
    assert names[result.winner] == ex["winner"]


def test_preset_table_matches_the_engine() -> None:
    """The presets table, column by column, against domain.rules.PRESETS."""
    section = TEXT.split("## The presets", 1)[1].split("\n\n", 2)[1]
    rows = {
        cells[0]: cells[1:]
        for cells in (
            [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
        )
    }
    header = [name.split()[0].strip("`") for name in rows.pop("parameter")]
    assert header == list(PRESETS)

    def number(cell: str) -> int | None:
        found = re.search(r"\d+", cell)
        return int(found.group()) if found else None

    for i, name in enumerate(header):
        rules = PRESETS[name]
        assert number(rows["knock limit"][i]) == rules.knock_limit
        assert number(rows["gin bonus"][i]) == rules.gin_bonus
        assert number(rows["undercut bonus (a tie is an undercut)"][i]) == rules.undercut_bonus
        assert number(rows["big gin"][i]) == rules.big_gin_bonus
        assert number(rows["box bonus per hand won"][i]) == rules.box_bonus
        assert number(rows["target"][i]) == rules.target
        assert (number(rows["match bonus"][i]) or 0) == rules.match_bonus
        assert number(rows["shutout bonus"][i]) == rules.shutout_bonus
        winner = rows["match winner (`winner_by`)"][i]
        assert (
            winner
            == {
                "first_to_target": "first to target",
                "highest_total": "highest settled total",
            }[rules.winner_by]
        )


def test_custom_rule_fields_are_the_ones_a_request_may_send() -> None:
    """The custom rule set table, row by row, against the API's ``CustomRules`` schema
    (the committed OpenAPI document): the same fields, the same bounds, ``null`` where
    the API takes it. A field the API refuses must not be offered here."""
    section = TEXT.split("### Custom rule sets", 1)[1].split("\n\n", 2)[1]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()][2:]
    schema = json.loads(OPENAPI.read_text())["components"]["schemas"]["CustomRules"]
    fields = {name: spec for name, spec in schema["properties"].items() if name != "preset"}
    documented: dict[str, str] = {}
    for names, allowed in rows:
        for name in re.findall(r"`(\w+)`", names):
            documented[name] = allowed
    assert sorted(documented) == sorted(fields)
    for name, spec in fields.items():
        allowed = documented[name]
        types = {option.get("type") for option in spec.get("oneOf", [spec])}
        assert ("`null`" in allowed) == ("null" in types), name
        if "integer" in types:
            low = spec["minimum"] if "minimum" in spec else spec["exclusiveMinimum"] + 1
            assert allowed.startswith(f"{low} to {spec['maximum']}"), (name, allowed)
