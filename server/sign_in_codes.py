"""One-time sign-in codes: the text a person reads on one device and types on another.

Ten characters of Crockford's base32 (50 bits), shown as two groups of five
(``7KQ2M-XW9TD``): short enough to type on a phone, and with at most one live code per
player for ``GINRUMMY_SIGN_IN_CODE_TTL_S`` (ten minutes) and redeems counted per client
address, a guess has no real chance. Stored only as the SHA-256 of its canonical form,
as a token is. That is no shield for long: 50 bits without a key or salt can be
searched in a day on one graphics card, so a stolen copy of the table is safe only
because its codes expire within minutes (and die with the token that made them).

What a person types is read as Crockford means it to be: any case, spaces and dashes
ignored, ``I`` and ``L`` as ``1``, ``O`` as ``0``.
"""

from __future__ import annotations

import hashlib
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's: no I, L, O, U
LENGTH = 10
_GROUP = 5
_READ_AS = str.maketrans({"I": "1", "L": "1", "O": "0"})


def new_code() -> str:
    """A fresh code in its canonical form (``shown`` writes it for people)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    """A canonical code as people are shown it, in two groups: ``ABCDE-FGHJK``."""
    return f"{code[:_GROUP]}-{code[_GROUP:]}"


def canonical(typed: str) -> str | None:
    """The code as stored (ten upper-case characters of the alphabet), or None if what
    was typed cannot be one."""
    text = "".join(typed.split()).replace("-", "").upper().translate(_READ_AS)
    if len(text) != LENGTH or any(char not in ALPHABET for char in text):
        return None
    return text


def hash_code(code: str) -> str:
    """The SHA-256 of a canonical code (``canonical``), as the table keeps it."""
    return hashlib.sha256(code.encode("ascii")).hexdigest()
