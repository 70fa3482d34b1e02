"""The text rules names and chat share: what is cleaned away, what shows, what compares alike."""

from __future__ import annotations

import unicodedata

import pytest

from domain import text as t


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("ok\u200d\u200d", "ok"),  # joiners that join nothing
        ("\u200dhi", "hi"),
        ("a \u200d b", "a b"),
        ("a\u200d\u200db", "a\u200db"),  # one at a time
        (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        ("\u2764\ufe0f\u200d\U0001f525", "\u2764\ufe0f\u200d\U0001f525"),  # after a selector
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        ),
        ("\u202e(drah) retupmoC\u202c", "(drah) retupmoC"),
        ("a" + "\u0301" * 39, "\u00e1" + "\u0301" * t.MAX_MARKS),  # composed, then capped
    ],
)
def test_clean_keeps_joiners_only_where_they_join(raw: str, cleaned: str) -> None:
    assert t.clean(raw) == cleaned


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("\u202e(drah) retupmoC\u202c", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control"),
        ("Ada\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE, a bidirectional control"),
        ("a" + "\u0301" * 39, "U+0301 COMBINING ACUTE ACCENT, more than 4 combining marks"),
        ("Ada\u200b", "U+200B ZERO WIDTH SPACE, an invisible format character"),
        ("Ada\u200d", "U+200D ZERO WIDTH JOINER, a zero-width joiner with nothing"),
        ("Ada\tL", "U+0009, a line break or tab"),
        ("a\x00b", "U+0000, a control character"),
        ("\ud800", "U+D800, a lone surrogate"),
    ],
)
def test_a_name_learns_what_chat_would_remove_from_it(raw: str, why: str) -> None:
    found = t.first_unclean(raw)
    assert found is not None and found.startswith(why), found
    assert t.clean(raw) != raw


@pytest.mark.parametrize(
    "name",
    [
        "Ada",
        "Ada\u00a0Lovelace",
        "  Ada  ",
        "Zo\u00eb",
        "Zoe\u0308",
        "\u2800Zo\u00eb",
        "a" + "\u0301" * 4,
        "\U0001f468\u200d\U0001f469",
        "\u0645\u06cc\u200c\u062e\u0648",
        # a joiner after a virama at a word's end: Malayalam's chillu letters (a review
        # found these refused), with ZWJ and with ZWNJ
        "\u0d05\u0d35\u0d28\u0d4d\u200d",
        "\u0d38\u0d41\u0d30\u0d47\u0d37\u0d4d\u200c Nair",
        # the flag of Scotland: a black flag and tag letters, format characters too
        "Ada \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    ],
)
def test_what_chat_keeps_a_name_may_hold(name: str) -> None:
    assert t.first_unclean(name) is None
    assert t.clean(name) == " ".join(unicodedata.normalize("NFC", name).split())


@pytest.mark.parametrize("raw", ["\U000e0067abc", "ab\U000e0067", "a\u200d", "\u0d4d \u200d"])
def test_tags_and_joiners_with_nothing_to_belong_to_still_go(raw: str) -> None:
    assert t.first_unclean(raw) is not None


@pytest.mark.parametrize(
    "blank", ["\u3164\u3164\u3164", "\u2800\u2800", "\u115f", "\ufe0f", "\u0301", " \u00a0"]
)
def test_fillers_selectors_and_lone_marks_show_nothing(blank: str) -> None:
    assert not t.visible(blank)


@pytest.mark.parametrize("shown", ["a", "\u2764\ufe0f", "7", "!", "\ud55c", "\u2800x"])
def test_a_letter_digit_punctuation_or_symbol_shows(shown: str) -> None:
    assert t.visible(shown)


@pytest.mark.parametrize(
    ("lookalike", "plain"),
    [
        ("h\u0430rd", "hard"),  # Cyrillic a
        ("\u041d\u0410rd", "hard"),  # Cyrillic capitals En and A
        ("\u0420\u0410\u041d", "pah"),  # Cyrillic Er is drawn as a P, not an R
        ("\u0421omputer (hard)", "computer(hard)"),  # Cyrillic Es
        ("\u0391\u0399:\u0397ARD", "ai:hard"),  # Greek capitals
        ("ai\ua789hard", "ai:hard"),  # a modifier-letter colon
        ("\uff28\uff41\uff52\uff44", "hard"),  # full width (NFKC)
        ("\u0435\u0430s\u0443", "easy"),
        ("m\u0435d\u0456um", "medium"),
    ],
)
def test_letters_that_look_latin_compare_as_latin(lookalike: str, plain: str) -> None:
    assert t.comparable(lookalike) == plain


def test_a_letter_looks_latin_in_the_case_it_is_drawn_in() -> None:
    assert t.comparable("\u0397") == "h"  # Greek capital Eta is drawn as H...
    assert t.comparable("\u03b7") == "\u03b7"  # ...its small letter is not


def test_every_confusable_maps_one_character_to_one_ascii_one() -> None:
    for char, latin in t.CONFUSABLES.items():
        assert len(char) == 1 and len(latin) == 1 and latin.isascii() and not char.isascii()


@pytest.mark.parametrize(
    ("one", "other", "alike"),
    [
        ("Ada", "ada", True),
        ("Ada", "ADA", True),
        ("Ada", "A da", True),  # a space shows nothing between two letters
        ("Ada", "\u0410da", True),  # a Cyrillic capital A
        ("Ada", "\uff21\uff24\uff21", True),  # full-width
        ("Ada", "Ada\u00a0", True),
        ("Ada", "Ada Lovelace", False),
        ("Ada", "Adá", False),  # an accent shows
        ("Bob", "Bo b", True),
    ],
)
def test_same_name_is_equality_in_comparable_form(one: str, other: str, alike: bool) -> None:
    assert t.same_name(one, other) is alike
    assert t.same_name(other, one) is alike


@pytest.mark.parametrize(
    ("typed", "counted"),
    [
        ("e\u0301" * 40, 40),  # an accent typed after its letter counts with it...
        ("\u00e9" * 40, 40),  # ...as the precomposed letter does
        ("\u1100\u1161\u11a8", 1),  # a Hangul syllable typed as its three jamo
        ("a" + "\u0301\u0302", 2),  # a second mark has no precomposed letter to join
        ("\U0001f468\u200d\U0001f469", 3),  # each part of an emoji sequence counts
    ],
)
def test_a_texts_length_counts_after_nfc_composition(typed: str, counted: int) -> None:
    assert t.length(typed) == counted
