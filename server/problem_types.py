"""Every problem type the server sends: the one registry its answers and its pages use.

A problem's ``type`` is ``/problems/<slug>``, a URI relative to the server (RFC 9457
§3.1.1 allows it) that this server itself serves as a page explaining the problem
(server/http/problem_pages.py). Each type carries exactly one ``rule`` code, the
plain string clients compare; the codes are the ones the error classes declare and
never change. The status and title here are what ``make_problem`` sends, so the
answers, the pages and the OpenAPI schema cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.blocks import MAX_BLOCKED
from domain.table import MAX_OPEN_CHALLENGES, MAX_OPEN_TABLES

PROBLEMS_PATH = "/problems/"


@dataclass(frozen=True)
class ProblemType:
    """One kind of refusal: its code, its HTTP status and what a client should know."""

    rule: str
    status: int
    title: str
    meaning: str
    sent_when: str
    client_should: str

    @property
    def slug(self) -> str:
        return self.rule.replace("_", "-")

    @property
    def uri(self) -> str:
        return PROBLEMS_PATH + self.slug


_RETRY_LATER = "Retry the same request after a short wait; it may succeed once the server recovers."
_REPORT = "Nothing the client can change fixes it: report it to the server's operator."
_READ_LEGAL = (
    "Fetch the view again and send one of the actions its `legal` list offers; "
    "the match is unchanged."
)
_FIX_BODY = "Correct the request as `detail` says and send it again."
_REFRESH = "Read the table or challenge again (`GET`) to see its state, then choose another."


def _p(
    rule: str, status: int, title: str, meaning: str, sent_when: str, client_should: str
) -> ProblemType:
    return ProblemType(rule, status, title, meaning, sent_when, client_should)


# Grouped as a reader looks for them; the order is the index page's. Kept as a table
# (one entry, one block) rather than as the formatter would spread it.
# fmt: off
_TYPES: tuple[ProblemType, ...] = (
    # The request itself
    _p("malformed_json", 400, "The request body is not valid JSON",
       "The body could not be parsed as JSON.",
       "Any request with a body (or a WebSocket message) that is not well-formed JSON, or "
       "that nests arrays or objects too deeply to read.",
       _FIX_BODY),
    _p("bad_request", 400, "Malformed request",
       "The request could not be read as HTTP the server understands.",
       "A request Litestar refuses before any handler runs, for a reason other than JSON.",
       _FIX_BODY),
    _p("invalid_request", 422, "The request does not match the schema",
       "The JSON is well formed but a field is missing, of the wrong type or out of range; "
       "`detail` names the field.",
       "Any request whose body, query or headers break the OpenAPI schema, whose JSON "
       "gives a key twice in one object or whose query gives a parameter twice (on a "
       "socket too: close 4422) or whose headers give `Idempotency-Key` twice, and a socket message of an unknown type, without "
       "its fields or with a key given twice, an `auth` first message of the wrong shape (a "
       "field it has not, an `after` that is no version), or an `auth` message on a socket "
       "signed in already.",
       _FIX_BODY),
    _p("invalid_card", 422, "Not a card",
       "A card text that is not one of the 52 cards (`7H`, `TS`, `AC`…), or a repeated card.",
       "An action that names a card, such as `discard` or `lay_off`.",
       "Send a card from your own `hand`, written as the view writes it."),
    _p("invalid_rules", 422, "Invalid rule set",
       "A custom rule set with a field out of range or of the wrong kind, or an unknown preset.",
       "Creating a match, table or challenge with `rules`.",
       "Send a preset name or a rule set within the ranges docs/rules.md gives."),
    _p("invalid_clock", 422, "Not a move clock",
       "A move clock with both a time per move and a bank, or neither; or, offering a rematch, "
       "a clock recorded before the 1 s floor (a time out of range in a request is refused by "
       "the schema, as `invalid_request`).",
       "Creating a match, table or challenge with `clock`, or offering a rematch.",
       "Send either `per_move_ms` or `bank_ms` (with an optional `increment_ms`) in range."),
    _p("invalid_client_seed", 422, "Not a usable client seed",
       "A client seed that is not 1 to 64 letters, digits or `._~-`.",
       "Creating, joining or accepting with `client_seed` (docs/fair-deal.md).",
       "Send a seed of 1 to 64 such characters, or none."),
    _p("payload_too_large", 413, "The request body is too large",
       "The body (or socket message) is larger than the server accepts.",
       "A body over `GINRUMMY_MAX_BODY_BYTES`, or a socket message over "
       "`GINRUMMY_WS_MAX_MESSAGE_BYTES`.",
       "Send a smaller request; no valid request comes near the limit."),
    _p("uri_too_long", 414, "The request's address is too long",
       "The path and query string together are longer than the server reads.",
       "A request whose path and query are over 8,192 bytes, however long (no valid request "
       "comes near that).",
       "Send a shorter address; a long value belongs in a request body, where a route takes one."),
    _p("request_header_fields_too_large", 431, "The request's headers are too large",
       "The request's headers together are larger than the server reads.",
       "A request whose headers (the request line and every header line, less the path and "
       "query) are over 32 KiB, however large; a WebSocket's handshake as well. No client "
       "of the API comes near that: a bearer token and the usual headers are well under "
       "1 KiB.",
       "Send fewer or smaller headers (a proxy or a browser extension may be adding them); "
       "the connection is closed after this answer."),
    _p("unsupported_media_type", 415, "The body is not sent as JSON",
       "The request body is not labelled as JSON (its `Content-Type`), is labelled in a "
       "charset other than UTF-8 with a byte past ASCII, or is sent encoded.",
       "A request to a route that reads a JSON body, labelled `text/plain`, "
       "`application/x-www-form-urlencoded` (curl's `-d` without `-H`) or anything but "
       "`application/json` or a `+json` type, or with no `Content-Type` at all; or labelled "
       "JSON in a charset other than UTF-8 (`charset=iso-8859-1`: JSON is UTF-8, RFC 8259) "
       "with a byte past ASCII in the body (an ASCII body reads the same), or in UTF-16 or "
       "a charset the server does not know. "
       "Or a body sent with a `Content-Encoding` other than `identity` (`gzip`, say): the "
       "server decodes none, and says so with `Accept-Encoding: identity`.",
       "Send `Content-Type: application/json` (with no charset, or `charset=utf-8`), and "
       "the body in UTF-8, unencoded."),
    _p("request_timeout", 408, "The request body did not arrive in time",
       "The body did not finish arriving within `GINRUMMY_BODY_TIMEOUT_S`; the server closed "
       "the connection.",
       "A request whose body is sent too slowly.",
       "Send the whole body promptly, on a new connection."),
    _p("client_disconnected", 400, "The client left before sending the whole body",
       "The connection closed before the body was complete; nothing was done.",
       "Logged when a client goes away mid-body; nobody is left to read the answer.",
       "Send the request again on a new connection."),
    _p("method_not_allowed", 405, "Method not allowed",
       "The path exists but not with this method; the `Allow` header lists those it takes.",
       "Any request with a method the path does not serve.",
       "Use one of the methods in `Allow`."),
    _p("not_found", 404, "No such resource",
       "No route answers this path.",
       "A request to a path the API does not have.",
       "Check the path against openapi.json (`/schema`)."),
    _p("upgrade_required", 426, "This is a WebSocket; connect with an Upgrade",
       "The address is a WebSocket and was asked with plain HTTP.",
       "A plain `GET` of `…/live`, `…/watch`, `/v1/me/live` or `/v1/lobby/live`.",
       "Open a WebSocket to the same address (asyncapi.yaml describes its messages)."),
    _p("unstorable_text", 422, "Text the database cannot hold",
       "A text (a name, a chat message, an id) holds a character the database refuses, "
       "such as U+0000.",
       "Any request carrying free text.",
       "Remove the control character and send it again."),
    # Who you are
    _p("unauthorized", 401, "Missing or invalid bearer token",
       "No bearer token, or one that matches no player (revoked, rotated or expired).",
       "Any request or socket that needs a player; the `WWW-Authenticate` header says "
       "whether a token was sent.",
       "Send `Authorization: Bearer TOKEN`; if the token is gone, get a new one "
       "(`POST /v1/players`)."),
    _p("not_your_match", 403, "You hold no seat in this match",
       "The token is valid but its player holds no seat in this match.",
       "Reading a seat's view, acting or chatting in someone else's match.",
       "Use the match's spectator view (`…/spectator`, `…/watch`) instead."),
    _p("not_you", 403, "A player can change only itself",
       "The token is valid but names another player than the one the request changes.",
       "`PATCH /v1/players/{id}` with another player's id.",
       "Change only your own player (`GET /v1/me` gives its id)."),
    _p("invalid_sign_in_code", 400, "No such sign-in code",
       "The sign-in code is not one the server has live: it was mistyped, has expired "
       "(`GINRUMMY_SIGN_IN_CODE_TTL_S` after it was made, ten minutes by default) or was "
       "used already. The three are not told apart.",
       "`POST /v1/sign-in-codes/redeem`.",
       "Check the code as the other device shows it; if it is right, make a new one there "
       "(`POST /v1/me/sign-in-codes`)."),
    # What you asked for
    _p("match_not_found", 404, "No such match",
       "No match has that id.",
       "Any request naming a match id.",
       "Check the id; `GET /v1/matches` lists yours."),
    _p("stream_not_found", 404, "No such match",
       "The event store holds no events for that id.",
       "Reading or appending to a match the store does not know.",
       "Check the id; `GET /v1/matches` lists yours."),
    _p("player_not_found", 404, "No such player",
       "No player has that id.",
       "Reading a player, its statistics or rating, or challenging it.",
       "Check the id; `GET /v1/players?name=` finds players by name."),
    _p("table_not_found", 404, "No such table",
       "No table or challenge has that id.",
       "Reading, joining, cancelling or answering a table or challenge.",
       "Check the id; `GET /v1/tables` and `GET /v1/challenges` list them."),
    _p("no_rematch", 404, "Nobody has offered a rematch of this match",
       "No rematch of this match has been offered.",
       "`GET /v1/matches/{id}/rematch` before either player offered one.",
       "Offer one (`POST …/rematch`) or wait for the opponent's."),
    # Timing and retries
    _p("stale_version", 409, "Not the match's current version",
       "The client acted on a `version` of the match that is not its current one: an "
       "old one, or one the match has not reached.",
       "An action sent with a `version` other than the match's, or a claim (over "
       "HTTP or the socket's `claim` message) the match moved past while it was decided.",
       "Fetch the view (or read the socket's frames), then decide again on the new version."),
    _p("concurrency_conflict", 409, "The match changed concurrently; retry",
       "Another request changed the same match at the same moment; this one changed nothing.",
       "Two requests racing on one match, table or chat.",
       "Fetch the current state and send the request again if it still applies."),
    _p("idempotency_key_reused", 422, "Idempotency-Key reused with a different request",
       "The `Idempotency-Key` already named another request (another match or body) of "
       "this player.",
       "An action over HTTP or the socket whose key was used before for something else.",
       "Use a fresh key for each new request; reuse a key only to retry the very same one."),
    _p("idempotency_mismatch", 422, "Idempotency-Key reused with a different request",
       "A command id the store already holds was sent again with a different payload.",
       "A retried command whose content changed between the tries.",
       "Use a fresh key for each new request; reuse a key only to retry the very same one."),
    _p("already_exists", 409, "It exists already",
       "A row with that unique key (a player id, a token) is stored already.",
       "Creating something whose id is taken; practically never with server-made ids.",
       "Send the request again; the server picks a new id."),
    _p("too_many_connections", 429, "Too many open sockets and streams from this address",
       "This client address already holds as many WebSockets and NDJSON player streams on "
       "this server process as `GINRUMMY_CONNECTIONS_PER_ADDRESS` allows.",
       "Opening a socket (an `error` frame, then close 4429) or `GET /v1/me/stream` past "
       "the limit.",
       "Close a socket or stream you no longer need (one per match you follow, one player "
       "stream per player is enough), then open it again."),
    _p("rate_limited", 429, "Too many requests; retry after the time in Retry-After",
       "This player, client address or socket made too many requests of this kind in the window.",
       "Creating players, matches, tables, challenges, tokens (a rotation too) or sign-in "
       "codes, redeeming sign-in codes, acting, "
       "claiming, chatting, and joining, accepting, declining or cancelling a table or "
       "challenge, blocking and unblocking, past the limits in docs/configuration.md; a "
       "socket's `resume` past 5 in "
       "any 10 seconds.",
       "Wait the seconds `Retry-After` says (a socket's `error` frame says `retry_after`)."),
    # Matches
    _p("match_not_finished", 409, "The match is not finished",
       "A complete replay is for a finished match only: the hands are still secret.",
       "`GET /v1/matches/{id}/replay` of a match still in play.",
       "Wait until the match is over, or read your own view meanwhile."),
    _p("version_out_of_range", 422, "That version is outside the match",
       "A position (`at`, `after`) beyond the match's last event.",
       "A replay `at`, an events page's `after` (`GET /v1/matches/{id}/events?after=`), or "
       "a socket's `after`/`resume`, past the end of the log (on a socket opening: an "
       "`error` frame and close 4422; a `resume`: an `error` frame, the socket stays open).",
       "Ask for a version between 0 and the match's `version`."),
    _p("not_ratable", 422, "This match cannot be rated",
       "`rated: true` asked of a match that cannot count: a chosen seed, custom rules or hints.",
       "Creating a match, table or challenge with `rated: true` and such options.",
       "Leave out `rated`, or the seed, custom rules and hints."),
    _p("not_house_ai", 422, "Both seats of a watched match must be house AIs",
       "A match to watch names a seat that is not a house AI (`ai:<level>`) of a known level.",
       "`POST /v1/house-matches`.",
       "Name two seats from the levels `detail` lists."),
    # The game's rules
    _p("domain_error", 422, "Domain error",
       "The rules engine refused the request for a reason it has no more specific code for.",
       "Any request the game's rules decide.",
       _READ_LEGAL),
    _p("illegal_command", 422, "Illegal command",
       "The action is not allowed in this state; `detail` says why.",
       "An action, or a match set up in a way the rules refuse.",
       _READ_LEGAL),
    _p("match_not_started", 422, "Match not started",
       "The match has no events yet, so only its start is accepted.",
       "An action on a match that has not been dealt.",
       _READ_LEGAL),
    _p("match_already_started", 422, "Match already started",
       "The match exists already and cannot be started again.",
       "A second start of the same match.",
       "Use the match as it is; read its view."),
    _p("match_over", 422, "Match over",
       "The match is settled; no more play.",
       "Any action after the match ended.",
       "Read the final view; offer a rematch to play on."),
    _p("not_your_turn", 422, "Not your turn",
       "Your seat is not the one to act (`to_act` in the view).",
       "An action while the opponent is to act.",
       "Wait for the opponent's move (the socket tells you), then act."),
    _p("wrong_phase", 422, "Wrong phase",
       "The action belongs to another phase of the hand (up card, draw, discard, layoff…).",
       "An action the current `phase` does not take.",
       _READ_LEGAL),
    _p("card_not_in_hand", 422, "Card not in hand",
       "Your seat does not hold the card it names.",
       "A `discard`, `knock` or `lay_off` naming a card not in your `hand`.",
       "Name a card from your `hand`."),
    _p("cannot_discard_taken_card", 422, "Cannot discard taken card",
       "A card taken from the discard pile cannot be discarded on the same turn.",
       "A `discard` of the card just drawn from the pile.",
       "Discard another card."),
    _p("must_draw_from_stock", 422, "Must draw from stock",
       "Both players passed the up card, so the non-dealer must draw from the stock.",
       "A `draw_discard` on the first turn after both passed.",
       "Send `draw_stock`."),
    _p("discard_pile_empty", 422, "Discard pile empty",
       "There is no card on the discard pile to draw.",
       "A `draw_discard` with an empty pile.",
       "Send `draw_stock`."),
    _p("over_knock_limit", 422, "Over knock limit",
       "Knocking needs deadwood at most the knock limit after the discard.",
       "A `knock` with too much deadwood.",
       "Discard instead, or knock with a discard that leaves less deadwood."),
    _p("not_gin", 422, "Not gin",
       "Gin needs zero deadwood after the discard.",
       "A `gin` whose hand does not all meld.",
       "Knock instead, or discard and play on."),
    _p("invalid_layout", 422, "Not a layout of the ten cards kept into sets and runs",
       "A knock's or gin's `layout` names a card the knocker does not keep (the discard "
       "included), a card twice, or a group that is not a set or a run.",
       "A `knock` or `gin` with a `layout`.",
       "Send one of the view's `knock_layouts` for that discard, or leave `layout` out "
       "for the default; the match is unchanged."),
    _p("layout_not_least_deadwood", 422, "A knocker lays out the least deadwood the cards allow",
       "The layout's melds leave more deadwood than the least the ten cards kept can leave; "
       "a knocker chooses only among the least-deadwood layouts (docs/rules.md, Knocking).",
       "A `knock` or `gin` with a `layout`.",
       "Send one of the view's `knock_layouts` for that discard, or leave `layout` out "
       "for the default; the match is unchanged."),
    _p("big_gin_not_allowed", 422, "Big gin not allowed",
       "Big gin is off in this rule set, or the eleven cards do not all meld.",
       "A `big_gin` action.",
       "Check the match's `rules`; play gin or a knock instead."),
    _p("layoff_does_not_fit", 422, "Layoff does not fit",
       "The card extends none of the knocker's melds (or not the one named).",
       "A `lay_off` after a knock.",
       "Lay off a card the view's legal layoffs list, or finish."),
    _p("no_layoffs_against_gin", 422, "No layoffs against gin",
       "Gin and big gin allow no layoffs.",
       "A `lay_off` after the opponent went gin.",
       "Finish the hand."),
    # Tables and challenges
    _p("table_error", 422, "Table error",
       "The lobby refused the request for a reason it has no more specific code for; "
       "`detail` says why.",
       "Opening, joining or answering a table or challenge.",
       _REFRESH),
    _p("table_full", 409, "Both seats at this table are taken",
       "Both seats are taken: the table's match has started (of two racing for the last "
       "seat, one is seated).",
       "Joining a table or accepting a challenge someone else took first.",
       "Join another table from the list."),
    _p("table_started", 409, "The table's match has started",
       "The table was joined (or the challenge accepted) and its match is under way, so it "
       "can no longer be cancelled or declined.",
       "Cancelling a table, or cancelling or declining a challenge, after someone took the "
       "seat.",
       "Resign the match to leave it; the table's `match_id` names it."),
    _p("table_cancelled", 409, "The table was cancelled",
       "The host cancelled the table before anyone joined.",
       "Joining, accepting or cancelling a cancelled table or challenge.",
       _REFRESH),
    _p("table_expired", 409, "The table has expired",
       "Nobody joined before the table's time ran out.",
       "Joining or accepting after the table's expiry.",
       _REFRESH),
    _p("table_already_opened", 409, "The table is already open",
       "A table id is opened once.",
       "Opening a table whose id is taken; practically never with server-made ids.",
       "Open it again; the server picks a new id."),
    _p("table_not_due", 409, "The table is still open",
       "A table expires only once its time has run out.",
       "Recording the expiry of a table too early (the server's own sweep).",
       "Nothing; the table expires when its time comes."),
    _p("own_table", 409, "This is your own table",
       "A host cannot take the other seat at its own table, or challenge itself.",
       "Joining your own table or challenging yourself.",
       "Wait for another player to join."),
    _p("invite_code_required", 403, "A private table needs its invite code",
       "A private table is joined only with its invite code.",
       "Joining a private table without the right `invite_code`.",
       "Ask the host for the invite code and send it."),
    _p("not_the_host", 403, "Only the table's host may do that",
       "Only the host may cancel a table or challenge.",
       "Cancelling someone else's table or challenge.",
       "Only the host can; leave it."),
    _p("not_invited", 403, "Only the challenged player may do that",
       "A challenge is accepted or declined only by the player it names; a table that "
       "challenges nobody (a seek, a public or a private table) is declined by nobody: "
       "its host cancels it.",
       "Accepting or declining a challenge sent to someone else, or declining a table that "
       "challenges nobody.",
       "Answer only challenges addressed to you (`GET /v1/challenges`)."),
    _p("challenge_declined", 409, "The challenge was declined",
       "The challenged player declined.",
       "Accepting, declining or cancelling a declined challenge.",
       "Send a new challenge, or challenge someone else."),
    _p("too_many_open_tables", 409, "You have as many open tables as a host may",
       f"A host has at most {MAX_OPEN_TABLES} tables (public, private or open seeks) waiting "
       "for an opponent "
       "at once; this one was not opened and nothing changed. Challenges you were sent "
       "never count.",
       f"`POST /v1/tables`, or `POST /v1/challenges` with `to: null`, while {MAX_OPEN_TABLES} of "
       "yours are open.",
       "Cancel one of yours (`POST /v1/tables/{id}/cancel`; `detail` names them) or wait "
       "until one is joined or expires, then open again."),
    _p("already_challenged", 409, "You already have an open challenge to this player",
       "A sender has at most one open challenge (a rematch offer included) to the same "
       "player; this one was not sent and nothing changed.",
       "`POST /v1/challenges`, or offering a rematch, while a challenge of yours to that "
       "player waits for an answer.",
       "Wait for the answer to the one `detail` names, or withdraw it "
       "(`POST /v1/challenges/{id}/cancel`) and send the new one."),
    _p("too_many_open_challenges", 409, "You have as many open challenges as a player may",
       f"A sender has at most {MAX_OPEN_CHALLENGES} challenges (rematch offers included) waiting "
       "for an answer "
       "at once, to everyone together; this one was not sent and nothing changed. "
       "Challenges you were sent never count.",
       f"`POST /v1/challenges`, or offering a rematch, while {MAX_OPEN_CHALLENGES} of yours are "
       "open.",
       "Withdraw one (`GET /v1/challenges` lists yours; `POST /v1/challenges/{id}/cancel`) "
       "or wait until one is answered or expires."),
    _p("opponent_refused", 403, "This player does not take you as an opponent",
       "The player you challenged, or the host of the table you tried to join, does not take "
       "you as an opponent now. Nothing was recorded, and they are not told you tried.",
       "`POST /v1/challenges` (or offering a rematch) to such a player; joining a table "
       "(public or private) or accepting a challenge or rematch offer such a player hosts.",
       "Challenge or join someone else; asking again gets the same answer."),
    _p("you_block_this_player", 409, "You block this player",
       "You block the player you challenged, so they could not accept: a blocked player takes "
       "no seat at your tables. Nothing was sent.",
       "`POST /v1/challenges` (or offering a rematch) to a player you block.",
       "Unblock them first (`DELETE /v1/me/blocks/{player_id}`), or leave it."),
    _p("name_taken", 409, "That name passes for the name of a player you would be seen with",
       "Two players seen together (the seats of a match in play, the sender and the receiver of "
       "an open challenge or rematch offer) never go by names that pass for each other: "
       "compared without case, spaces, what shows nothing and letters of other scripts drawn "
       "like Latin ones (\"Ada\", \"ada\", \"A da\", \"Аda\" with a Cyrillic A). The opponent, "
       "the spectators and the page could not tell them apart. Nothing changed: a rename "
       "keeps the old name, a seat stays free, a challenge is not sent. Names are not unique "
       "otherwise: players who never meet may share one.",
       "`PATCH /v1/players/{id}` to the name of such a player; joining a table, accepting a "
       "challenge or rematch offer, or challenging (or offering a rematch to) a player whose "
       "name passes for yours.",
       "Choose another name (`PATCH /v1/players/{id}`), or play someone else; a rename's "
       "`detail` names the player whose name it passes for (a seat's is the table's host, a "
       "challenge's the player challenged)."),
    _p("watch_code_required", 403, "A private match is watched only with its watch code",
       "A match from a private table is watched only with its watch code.",
       "A spectator view or `watch` socket of such a match without `watch_code`.",
       "Ask a player for the watch code and send it as `?watch_code=`."),
    _p("spectators_cannot_act", 403, "A spectator cannot act",
       "A spectator's socket reads the match; it cannot move or claim it.",
       "An `action` or `claim` message on a `watch` socket.",
       "Act from a seat's `live` socket or `POST …/actions` with that seat's token."),
    # Chat
    _p("chat_error", 422, "Not a chat message",
       "The chat refused the message for a reason it has no more specific code for.",
       "Posting to a match's chat.",
       "Check `detail`; only the two seats of a match chat."),
    _p("empty_message", 422, "The message is empty",
       "Nothing is left once control and format characters are removed.",
       "Posting a chat message.",
       "Send some visible text."),
    _p("message_too_long", 422, "The message is too long",
       "A chat message is at most 280 characters, counted after cleaning.",
       "Posting a chat message.",
       "Send a shorter message."),
    _p("chat_flood", 429, "Too many messages; wait as Retry-After says",
       "The seat posted its fill of messages in the window (5 per 10 seconds).",
       "Posting a chat message too soon after the last ones.",
       "Wait the seconds `Retry-After` (or the frame's `retry_after`) says."),
    _p("spectators_cannot_chat", 403, "A spectator cannot chat",
       "Spectators read the chat but do not write.",
       "A `chat` message on a `watch` socket, or posting without a seat.",
       "Chat from one of the match's seats."),
    # Blocks
    _p("block_error", 422, "Block list error",
       "Your block list refused the request for a reason it has no more specific code for.",
       "Blocking or unblocking a player.",
       _FIX_BODY),
    _p("cannot_block_self", 422, "You cannot block yourself",
       "A player cannot block itself; nothing changed.",
       "`POST /v1/me/blocks` with your own id.",
       "Send the id of the player you mean to block."),
    _p("cannot_block_house_ai", 422, "The house AI cannot be blocked",
       "The house AI (`ai:<level>`) never challenges, joins a table or chats, so there is "
       "nothing to block; nothing changed.",
       "`POST /v1/me/blocks` with an `ai:<level>` id.",
       "Leave its match (resign) or play it out; start no other."),
    _p("too_many_blocks", 409, "You block as many players as one may",
       f"A player blocks at most {MAX_BLOCKED} players at once; this one was not blocked and "
       "nothing changed.",
       f"`POST /v1/me/blocks` while you block {MAX_BLOCKED} players.",
       "Unblock one (`GET /v1/me/blocks` lists them; `DELETE /v1/me/blocks/{player_id}`), "
       "then block again."),
    # Clocks
    _p("clock_error", 422, "Clock error",
       "The match's clock does not allow this timeout or claim, for a reason it has no "
       "more specific code for.",
       "Timeouts and claims.",
       "Read the view's `clock` and try when it allows."),
    _p("clock_not_due", 409, "No seat's time has run out",
       "No seat's time has run out, or the match has no clock running.",
       "Recording a timeout too early (the server's own sweep).",
       "Nothing; the clock fires when its time comes."),
    _p("claim_too_early", 409,
       "The opponent is neither timed out three times nor away long enough",
       "A claim needs three timeouts in a row or an absence past the grace while the "
       "opponent is to act.",
       "`POST /v1/matches/{id}/claim`, or a `claim` message on the match's `live` socket "
       "(as an `error` frame).",
       "Keep playing or wait; the view's `clock` shows the timeouts in a row."),
    _p("claim_against_house", 409,
       "The house AI never leaves; a match against it cannot be claimed",
       "The house AI never leaves its seat.",
       "`POST /v1/matches/{id}/claim`, or a `claim` message on the `live` socket, in a "
       "match against the house AI.",
       "Play the match out, or resign."),
    # The server's own troubles
    _p("store_unavailable", 503, "The database is unavailable; retry",
       "The database could not be reached or the connection was lost; nothing was recorded "
       "half-way.",
       "Any request while the database is down.",
       _RETRY_LATER),
    _p("busy", 503, "Another request holds what this one needs; retry",
       "A step that holds players' names still (a rename, a seat, a new table or "
       "challenge) waited longer than 10 s for another step on the same player, or on any "
       "rename, to finish: nothing was done. `Retry-After` says when to try again.",
       "Renaming, opening or joining a table, challenging or accepting while another "
       "request on the same player is stuck.",
       "Retry the same request after `Retry-After` seconds."),
    _p("projections_behind", 503, "This server's read models are behind the log",
       "This process's read models (the lobby, lists, ratings, statistics) have fallen further "
       "behind the match log than the operator allows (`GINRUMMY_READY_MAX_BEHIND`); "
       "`detail` says by how many events.",
       "`GET /readyz` only, so a load balancer sends requests to another process.",
       "Nothing: it is for load balancers. Requests to this process still work."),
    _p("server_restarting", 503, "The server is restarting; reconnect",
       "The server process holding your stream was asked to stop (a restart or a deploy). "
       "The stream ends with this line rather than being cut; nothing of yours is lost.",
       "The last line of `GET /v1/me/stream` (NDJSON) when its process stops; a WebSocket "
       "is closed with 1012 instead.",
       "Reconnect, to this or another process: the stream starts again from what is open now."),
    _p("internal_error", 500, "Internal server error",
       "An unexpected error in the server; it is logged.",
       "Any request that meets a bug.",
       _REPORT),
    _p("undecodable_event", 500, "A stored event could not be read",
       "A stored event does not decode as a known event type.",
       "Reading a match whose log holds an event this server version does not know.",
       _REPORT),
    _p("bad_database_url", 500, "The server's database URL is not usable",
       "`GINRUMMY_DATABASE_URL` names no database this server can use.",
       "At start-up, or any request, on a misconfigured server.",
       _REPORT),
    _p("schema_too_new", 500, "Schema too new",
       "The database's schema revision is a newer server's.",
       "At start-up of an older server on a newer database.",
       _REPORT),
    _p("migration_failed", 500, "Migration failed",
       "A migration was refused by the database; the schema is as it was.",
       "At start-up, while migrating.",
       _REPORT),
    _p("infra_error", 500, "Infra error",
       "The storage failed for a reason it has no more specific code for.",
       "Any request that reads or writes the database.",
       _REPORT),
    _p("server_error", 400, "Server error",
       "The server refused the request for a reason it has no more specific code for.",
       "Any request.",
       "Read `detail`; correct the request if it says how."),
)
# fmt: on

PROBLEM_TYPES: dict[str, ProblemType] = {problem.rule: problem for problem in _TYPES}
BY_SLUG: dict[str, ProblemType] = {problem.slug: problem for problem in _TYPES}
