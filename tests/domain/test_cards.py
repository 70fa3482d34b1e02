"""Card text: exactly the 52 rank-then-suit forms are cards; everything else is refused."""

import pytest

from domain.cards import (
    CARD_VALUE,
    DECK,
    RANKS,
    SUITS,
    from_mask,
    parse_card,
    parse_cards,
    to_mask,
)
from domain.errors import DomainError, InvalidCard


def test_the_deck_is_the_52_rank_suit_pairs() -> None:
    expected = {r + s for r in "A23456789TJQK" for s in "CDHS"}
    assert set(DECK) == expected
    assert len(DECK) == 52


@pytest.mark.parametrize("card", sorted({r + s for r in RANKS for s in SUITS}))
def test_every_card_parses_to_itself(card: str) -> None:
    assert parse_card(card) == card


@pytest.mark.parametrize(
    "text",
    ["1H", "10H", "7h", "h7", "H7", "XX", "", " 7H", "7H ", "7", "7HH", "0S", "1", "TX", "ah"],
)
def test_malformed_text_is_refused(text: str) -> None:
    with pytest.raises(InvalidCard, match="not a card"):
        parse_card(text)


@pytest.mark.parametrize("value", [None, 7, 7.0, b"7H", ("7", "H"), ["7H"], {"7H"}])
def test_non_strings_are_refused(value: object) -> None:
    with pytest.raises(InvalidCard):
        parse_card(value)


def test_invalid_card_is_a_domain_error_with_a_rule_code() -> None:
    with pytest.raises(DomainError) as caught:
        parse_card("1H")
    assert caught.value.rule == "invalid_card"


def test_parse_cards_keeps_order_and_refuses_duplicates() -> None:
    assert parse_cards(["7H", "TD", "AS"]) == ("7H", "TD", "AS")
    with pytest.raises(InvalidCard, match="duplicate"):
        parse_cards(["7H", "TD", "7H"])
    with pytest.raises(InvalidCard):
        parse_cards(["7H", "10D"])


def test_values_ace_one_pips_face_value_tens_and_faces_ten() -> None:
    assert CARD_VALUE["AS"] == 1
    assert CARD_VALUE["2C"] == 2
    assert CARD_VALUE["9D"] == 9
    for face in ("TH", "JH", "QH", "KH"):
        assert CARD_VALUE[face] == 10
    assert sum(CARD_VALUE.values()) == 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 * 4)


def test_masks_are_suit_major_bits_and_round_trip() -> None:
    assert to_mask(["AC"]) == 1
    assert to_mask(["KC"]) == 1 << 12
    assert to_mask(["AD"]) == 1 << 13
    assert to_mask(["KS"]) == 1 << 51
    assert from_mask(to_mask(DECK)) == DECK
    hand = ("KS", "7H", "AC", "TD")
    assert set(from_mask(to_mask(hand))) == set(hand)
