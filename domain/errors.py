"""The domain's error family: every refusal names the rule it enforces.

Each error carries a stable ``rule`` code; the server maps it to an RFC 9457 problem
``type`` in one place, so renaming a message never breaks a client.
"""

from __future__ import annotations

QUOTED_LIMIT = 64  # characters of a client's text that an error quotes


def shortened(text: str) -> str:
    """``text`` cut at ``QUOTED_LIMIT`` characters, with "…" where it was cut: an error
    that quotes what a client sent (an id in a path, a key) echoed 5,000 characters."""
    return text if len(text) <= QUOTED_LIMIT else text[:QUOTED_LIMIT] + "…"


def quoted(text: str) -> str:
    """``text`` as an error quotes it: ``repr`` of it ``shortened``."""
    return repr(shortened(text))


class DomainError(ValueError):
    """Base of every refusal the rules engine gives."""

    rule = "domain_error"


class InvalidCard(DomainError):
    """A text that is not one of the 52 cards, or a repeated card."""

    rule = "invalid_card"


class InvalidRules(DomainError):
    """A custom rule set with a field out of range or of the wrong kind."""

    rule = "invalid_rules"


class InvalidClock(InvalidRules):
    """A move clock with both a time per move and a bank, or neither, or a time out of range."""

    rule = "invalid_clock"


class IllegalCommand(DomainError):
    """A command the rules do not allow in this state; the state is unchanged."""

    rule = "illegal_command"


class MatchNotStarted(IllegalCommand):
    """Only StartMatch is accepted before the match exists."""

    rule = "match_not_started"


class MatchAlreadyStarted(IllegalCommand):
    """StartMatch on a match that already has events."""

    rule = "match_already_started"


class MatchOver(IllegalCommand):
    """The match has been settled; no further play."""

    rule = "match_over"


class NotYourTurn(IllegalCommand):
    """The seat is not the one to act."""

    rule = "not_your_turn"


class WrongPhase(IllegalCommand):
    """The command does not belong to the current phase of the hand."""

    rule = "wrong_phase"


class CardNotInHand(IllegalCommand):
    """The seat does not hold the card it names."""

    rule = "card_not_in_hand"


class CannotDiscardTakenCard(IllegalCommand):
    """A card taken from the discard pile cannot be discarded on the same turn."""

    rule = "cannot_discard_taken_card"


class MustDrawFromStock(IllegalCommand):
    """After both players pass the up-card, the non-dealer must draw from the stock."""

    rule = "must_draw_from_stock"


class DiscardPileEmpty(IllegalCommand):
    """There is no discard to draw."""

    rule = "discard_pile_empty"


class OverKnockLimit(IllegalCommand):
    """Knocking needs deadwood at most the knock limit after the discard."""

    rule = "over_knock_limit"


class NotGin(IllegalCommand):
    """Gin needs zero deadwood after the discard."""

    rule = "not_gin"


class BigGinNotAllowed(IllegalCommand):
    """Big gin is off in this rule set, or the eleven cards do not all meld."""

    rule = "big_gin_not_allowed"


class LayoffDoesNotFit(IllegalCommand):
    """The card extends none of the knocker's melds (or not the one named)."""

    rule = "layoff_does_not_fit"


class NoLayoffsAgainstGin(IllegalCommand):
    """Gin and big gin allow no layoffs."""

    rule = "no_layoffs_against_gin"


class TableError(DomainError):
    """A refusal from a table in the lobby; the table is unchanged."""

    rule = "table_error"


class TableNotOpened(TableError):
    """Only OpenTable is accepted before the table exists."""

    rule = "table_not_found"


class TableAlreadyOpened(TableError):
    """A table id is opened once."""

    rule = "table_already_opened"


class TableFull(TableError):
    """Both seats are taken: the table's match has started."""

    rule = "table_full"


class TableStarted(TableError):
    """Cancelling or declining a table (or challenge) whose match has already started."""

    rule = "table_started"


class TableCancelled(TableError):
    """The host cancelled the table before anyone joined."""

    rule = "table_cancelled"


class TableExpired(TableError):
    """Nobody joined before the table's time ran out."""

    rule = "table_expired"


class TableDeclined(TableError):
    """The challenged player declined."""

    rule = "challenge_declined"


class NotInvited(TableError):
    """A challenge is accepted (or declined) only by the player it is addressed to."""

    rule = "not_invited"


class OwnTable(TableError):
    """A host cannot take the other seat at its own table."""

    rule = "own_table"


class NameTaken(TableError):
    """Two players who would be seen together (the seats of a match, the two ends of a
    challenge) would show the same name, compared as ``domain.text.comparable`` does:
    the opponent and the spectators could not tell them apart. Refused when a player
    renames to such a name, and when a challenge or a seat would bring two such names
    together; nothing is recorded."""

    rule = "name_taken"


class InviteCodeRequired(TableError):
    """A private table is joined only with its invite code."""

    rule = "invite_code_required"


class NotTheHost(TableError):
    """Only the host may cancel a table."""

    rule = "not_the_host"


class TableNotDue(TableError):
    """A table expires only once its time has run out."""

    rule = "table_not_due"


class TooManyOpenTables(TableError):
    """A host has at most ``MAX_OPEN_TABLES`` tables (public, private or open seeks)
    waiting for an opponent at once (``domain.table.check_room``)."""

    rule = "too_many_open_tables"


class AlreadyChallenged(TableError):
    """A sender has at most one open challenge (a rematch offer included) to one player."""

    rule = "already_challenged"


class TooManyOpenChallenges(TableError):
    """A sender has at most ``MAX_OPEN_CHALLENGES`` challenges open at once, to everyone."""

    rule = "too_many_open_challenges"


class OpponentRefused(TableError):
    """The player challenged, or the host of the table, does not take this player as an
    opponent (it blocks it). Said without the reason: the blocked are not told."""

    rule = "opponent_refused"


class YouBlockThisPlayer(TableError):
    """A challenge to a player one blocks: it could never be accepted (a blocked player
    takes no seat at the blocker's tables). Unblock first."""

    rule = "you_block_this_player"


class InvalidClientSeed(IllegalCommand):
    """A client seed that is not 1-64 letters, digits or ``._~-`` (docs/fair-deal.md)."""

    rule = "invalid_client_seed"


class ChatError(DomainError):
    """A refusal from a match's chat; nothing is recorded."""

    rule = "chat_error"


class EmptyMessage(ChatError):
    """Nothing is left of the message once control and format characters are removed."""

    rule = "empty_message"


class MessageTooLong(ChatError):
    """A chat message is at most 280 characters, counted after cleaning."""

    rule = "message_too_long"


class ChatFlood(ChatError):
    """A seat posted its fill of messages in the window; ``retry_after_ms`` says when to
    try again (the server sends it as ``Retry-After``)."""

    rule = "chat_flood"

    def __init__(self, detail: str, retry_after_ms: int = 1000) -> None:
        super().__init__(detail)
        self.retry_after_ms = retry_after_ms

    @property
    def retry_after_s(self) -> int:
        return max(1, -(-self.retry_after_ms // 1000))  # whole seconds, rounded up


class ClockError(IllegalCommand):
    """A timeout or a claim the match's clock does not allow yet."""

    rule = "clock_error"


class ClockNotDue(ClockError):
    """No seat's time has run out (or the match has no clock running)."""

    rule = "clock_not_due"


class ClaimTooEarly(ClockError):
    """The opponent has neither timed out three turns in a row nor been away past the grace."""

    rule = "claim_too_early"


class ClaimAgainstHouse(ClockError):
    """The house AI never leaves its seat: a match against it cannot be claimed."""

    rule = "claim_against_house"


class InvalidLayout(IllegalCommand):
    """A knocker's layout that is not the ten cards kept split into sets and runs."""

    rule = "invalid_layout"


class LayoutNotLeastDeadwood(InvalidLayout):
    """A knocker's layout leaves more deadwood than the least those cards can leave."""

    rule = "layout_not_least_deadwood"


class BlockError(DomainError):
    """A refusal from a player's block list; nothing is recorded."""

    rule = "block_error"


class CannotBlockSelf(BlockError):
    """A player cannot block itself."""

    rule = "cannot_block_self"


class CannotBlockHouse(BlockError):
    """The house AI (``ai:<level>``) cannot be blocked: it never challenges, joins or chats."""

    rule = "cannot_block_house_ai"


class TooManyBlocks(BlockError):
    """A player blocks at most ``MAX_BLOCKED`` players (``domain.blocks``) at once."""

    rule = "too_many_blocks"
