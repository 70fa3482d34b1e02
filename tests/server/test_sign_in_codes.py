"""What a person types for a sign-in code is read as Crockford's base32 means it."""

from __future__ import annotations

from server.sign_in_codes import ALPHABET, LENGTH, canonical, new_code, shown


def test_a_code_is_ten_characters_of_the_alphabet_shown_in_two_groups() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == LENGTH and set(code) <= set(ALPHABET)
        assert shown(code) == f"{code[:5]}-{code[5:]}"
        assert canonical(shown(code)) == code


def test_case_spaces_dashes_and_look_alike_letters_are_forgiven() -> None:
    for typed in ("7KQ2M-XW9TD", "7kq2m-xw9td", " 7kq2m xw9td ", "7KQ2MXW9TD", "7-K-Q-2-M-XW9TD"):
        assert canonical(typed) == "7KQ2MXW9TD", typed
    assert canonical("1l1i0-oO0AB") == "11110000AB"
    for wrong in ("", "7KQ2M-XW9T", "7KQ2M-XW9TDD", "7KQ2M-XW9TU", "7KQ2M_XW9TD", "７KQ2M-XW9TD"):
        assert canonical(wrong) is None, wrong
