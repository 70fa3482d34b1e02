"""Text one person types for others to read: chat messages and display names.

One set of rules for both, so a character a chat message loses is one a name may not
hold. ``clean`` is what a chat message becomes; ``first_unclean`` is what a name is
refused for (a name is kept as typed, so it is refused rather than changed); both read
the same verdicts (``_verdicts``), character by character:

- control characters (C0, C1, DEL) and lone surrogates go;
- format characters (Unicode category Cf) go: the bidirectional embeddings, overrides
  and isolates (U+202A-U+202E, U+2066-U+2069), which can make "(drah) retupmoC" show as
  "Computer (hard)" or flip the rest of a line, the direction marks (U+200E, U+200F,
  U+061C), zero-width spaces, the byte-order mark;
- the zero-width joiner and non-joiner (U+200D, U+200C) stay only between two
  characters that show (as in an emoji family, or a Persian word), one at a time, or
  after a virama at a word's end (Malayalam's chillu letters, written "അവന്‍" before
  Unicode 5.1 and by some keyboards still); anywhere else (at either end, next to a
  space, doubled) they join nothing and go;
- tag characters (U+E0020-U+E007F, format characters too) stay after a black flag
  (U+1F3F4) or another tag: they spell the flags of Scotland, England and Wales;
- a run of combining marks longer than ``MAX_MARKS`` (counted after NFC composition) is
  cut there: "Zalgo" text stacks dozens and draws over the lines around it;
- line breaks and tabs become spaces in a message; a name may not hold them.

``length`` is how long a text is as its limits count it (a name's 40 characters, a
message's 280), ``visible`` says whether any of it shows, and ``comparable`` is the form in which two
texts that look alike compare equal (the house AIs' names are protected with it, and
``same_name`` tells two players who would pass for each other).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

MAX_MARKS = 4  # combining marks kept in a row
JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner, zero-width joiner
VIRAMA = 9  # the canonical combining class of a virama (a vowel killer)
BLACK_FLAG = "\U0001f3f4"
TAGS = range(0xE0020, 0xE0080)  # the tag letters and the cancel tag of a flag sequence
LINE_BREAKS = frozenset("\t\n\r\v\f\x1c\x1d\x1e\x1f\x85\u2028\u2029")
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# Characters that show nothing but are neither format characters (Cf) nor white space:
# fillers that count as letters (Hangul), combining joiners and variation selectors, and
# the braille blank (a symbol). Unicode's Default_Ignorable_Code_Point, plus U+2800.
# A variation selector (U+FE0F) stays in a text, as an emoji needs it; it is only not
# enough for a text to show something.
INVISIBLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),
)

# Letters of other scripts drawn like Latin ones, and a few colons and brackets drawn like
# ASCII ones: not all of Unicode's confusables (UTS #39), the ones that can spell the
# house AIs' names ("hard", "ai:", "Computer (") in common fonts. Applied after NFKC (which
# already folds full-width, mathematical and small-form letters) and before casefolding,
# as a letter may look Latin in one case only (Greek "Η" is an H, "η" is not).
CONFUSABLES = {
    # Cyrillic
    **dict(zip("АВЕЅІЈКМНОРСТУХҮӀԀ", "ABESIJKMHOPCTYXYlD", strict=True)),
    **dict(zip("аеѕіјорсухүӏԁһԛԝѵ", "aesijopcyxylhdqwv", strict=True)),
    # Greek
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹϿ", "ABEZHIKMNOPTYXCO", strict=True)),
    **dict(zip("αεικνορτυχγωϲϳ", "aeikvoptuxywcj", strict=True)),
    # Armenian
    **dict(zip("օսհոց", "ouhng", strict=True)),
    # Latin letters drawn as others: dotless i, alpha, script g, small capitals
    **dict(zip("ıɑɡᴀᴄᴅᴇʜɪᴋᴍɴᴏᴘʀᴛᴜ", "iagacdehikmnoprtu", strict=True)),
    # colons and brackets NFKC leaves alone
    **dict.fromkeys("\u02d0\u0589\u05c3\u2236\ua789", ":"),
    **dict.fromkeys("\u2768\u276a", "("),
}

# What cleaning does with a character: keep it, make it a space, or drop it (and why).
KEEP = None
SPACE = "a line break or tab"


def _shows(char: str) -> bool:
    """Whether a character next to a joiner gives it something to join."""
    return (
        bool(char) and not char.isspace() and unicodedata.category(char) not in ("Cc", "Cs", "Cf")
    )


def _verdicts(text: str) -> Iterator[tuple[str, str | None]]:
    """Each character of ``text`` in NFC with what cleaning does with it: ``KEEP``,
    ``SPACE``, or why it is dropped."""
    chars = unicodedata.normalize("NFC", text)
    marks = 0
    previous = ""  # the last character kept
    for index, char in enumerate(chars):
        if char in LINE_BREAKS:
            marks, previous = 0, " "
            yield char, SPACE
            continue
        category = unicodedata.category(char)
        if char in JOINERS:
            following = chars[index + 1] if index + 1 < len(chars) else ""
            after_virama = bool(previous) and unicodedata.combining(previous) == VIRAMA
            if _shows(previous) and (_shows(following) or after_virama):
                previous = char
                yield char, KEEP
            else:
                yield char, "a zero-width joiner with nothing on one side to join"
            continue
        if ord(char) in TAGS and (previous == BLACK_FLAG or (previous and ord(previous) in TAGS)):
            marks, previous = 0, char
            yield char, KEEP
        elif category == "Cc":
            yield char, "a control character"
        elif category == "Cs":
            yield char, "a lone surrogate"
        elif char in BIDI_CONTROLS:
            yield char, "a bidirectional control, which reorders the text around it"
        elif category == "Cf":
            yield char, "an invisible format character"
        elif category in ("Mn", "Me") and marks >= MAX_MARKS:
            yield char, f"more than {MAX_MARKS} combining marks in a row"
        else:
            marks = marks + 1 if category in ("Mn", "Me") else 0
            previous = char
            yield char, KEEP


def clean(text: str) -> str:
    """The text as a message is recorded: NFC, line breaks and tabs as spaces, what
    ``_verdicts`` drops removed, runs of white space made one, no space at either end."""
    kept = [
        " " if verdict is SPACE else char
        for char, verdict in _verdicts(text)
        if verdict in (KEEP, SPACE)
    ]
    return " ".join("".join(kept).split())


def first_unclean(text: str) -> str | None:
    """What ``clean`` would remove from or change in ``text`` first, in words (the
    character's code point and name, and why), or None: white space aside, a text with
    None here is shown as it is typed."""
    for char, verdict in _verdicts(text):
        if verdict is not KEEP:
            name = unicodedata.name(char, "") if unicodedata.category(char) != "Cs" else ""
            return f"U+{ord(char):04X}{f' {name}' if name else ''}, {verdict}"
    return None


def length(text: str) -> int:
    """The text's length as its limits count it: characters (code points) after NFC
    composition, so an accent typed after its letter ("e" and U+0301) counts once, as the
    precomposed "é" it shows as. Each part of an emoji sequence (a family, a flag) counts:
    the standard library has no grapheme clusters."""
    return len(unicodedata.normalize("NFC", text))


def shows_nothing(char: str) -> bool:
    """A character with no mark of its own: white space, a format or control character,
    a filler."""
    point = ord(char)
    return (
        char.isspace()
        or unicodedata.category(char) in ("Cf", "Cc", "Cs", "Zs", "Zl", "Zp")
        or any(low <= point <= high for low, high in INVISIBLE)
    )


def visible(text: str) -> bool:
    """Whether something in the text shows: a letter, digit, punctuation or symbol that
    is no filler (a combining mark alone, a variation selector, U+3164 or U+2800 are not)."""
    return any(
        unicodedata.category(char)[0] in "LNPS" and not shows_nothing(char)
        for char in unicodedata.normalize("NFKC", text)
    )


def comparable(text: str) -> str:
    """The text as two texts that look alike compare: NFKC (full-width letters, a no-break
    space become plain ones), without what shows nothing, letters of other scripts that
    look Latin as Latin ones (``CONFUSABLES``), casefolded."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(
        CONFUSABLES.get(char, char) for char in folded if not shows_nothing(char)
    ).casefold()


def same_name(one: str, other: str) -> bool:
    """Whether two display names would pass for each other: equal in ``comparable`` form
    ("Ada", "ada", "ＡＤＡ", "Аda" with a Cyrillic A, "A da")."""
    return comparable(one) == comparable(other)
