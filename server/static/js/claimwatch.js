// The claim on the table (claim.js says when the server would accept one): what the
// match's socket says of the opponent we wait for, and, once the match is over, whether it
// ended by a claim and the viewer's rating change. The claim itself is sent by moves.js.
//
// The page once asked GET …/claim again and again while the opponent kept the table
// waiting; every ask in flight when the opponent's deciding move landed came back 422
// (a console error). The seat's socket now says it without being asked: ``opponent_away``
// (from when a claim is accepted), ``opponent_back``, ``claimable``, each for the version
// it names, after that version's events; said again by a new socket as it connects.
import { api, savedPlayer } from './api.js';
import { awayNote, claimOffer, lookUpClaim, opponentToAct, settledWords } from './claim.js';
import { ratingChange, ratingChangeText } from './ratingchange.js';
import { game, say } from './matchstate.js';
import { draw } from './matchdraw.js';
import { announce, toast } from './ui.js';

export const PRESENCE_FRAMES = new Set(['opponent_away', 'opponent_back', 'claimable']);

let socketsOpened = 0; // the match's socket opened again: its word, not an older answer

/** A presence frame of the match's socket: the server's word on a claim for the view at
 * ``frame.version``, kept until a newer view is shown (the play-out may still be showing
 * an older one: the word waits for its view). Shaped as GET …/claim's answer was, received
 * at ``at`` on this page's clock. */
export function presenceFrame(frame) {
  const prior = game.claimStatus;
  if (prior && prior.version > frame.version) return;
  if (game.view && game.view.version > frame.version) return; // the match moved on since
  const seen = prior && prior.absence_claim_at_ms !== null ? prior : null; // said away, not back
  const status = {
    version: frame.version,
    at: Date.now(),
    now_ms: frame.now_ms,
    claimable: false,
    reason: null,
    opponent_seen_ms: seen ? seen.opponent_seen_ms : null,
    absence_claim_at_ms: seen ? seen.absence_claim_at_ms : null,
  };
  if (frame.type === 'opponent_away') {
    status.opponent_seen_ms = frame.seen_ms;
    status.absence_claim_at_ms = frame.claim_at_ms;
  } else if (frame.type === 'opponent_back') {
    status.opponent_seen_ms = null;
    status.absence_claim_at_ms = null;
    if (seen && game.view) announce(backText(game.view)); // the note goes silently otherwise
  } else {
    status.claimable = true;
    status.reason = frame.reason;
  }
  game.claimStatus = status;
  redrawIfOffered();
}

/** Redraw when what the table says of a claim changes: the offer, or the away note. */
function redrawIfOffered() {
  const status = game.claimStatus;
  if (!game.view) return;
  const said = { againstHouse: game.againstHouse, status };
  const claim = claimOffer(game.view, said);
  if (claim !== game.ui.claim || (claim ? null : awayNote(game.view, said)) !== game.ui.away) draw();
}

const backText = (view) => `${view.players[1 - view.seat]} is back: the match goes on.`;

/** A claim was refused as too early (``claim_too_early``): what the page offered no
 * longer holds (the opponent came back before the socket said so, as when it did on
 * another server process). GET …/claim says where things stand: the offer goes, and the
 * player is told why in plain words, not the server's rule text. */
export async function claimRefusedAsEarly(view) {
  const { open } = game;
  const status = await api.claimStatus(open.id).catch(() => null);
  if (game.open !== open || !game.view || game.view.version !== view.version) return;
  const name = view.players[1 - view.seat];
  if (!status) {
    game.claimStatus = null; // unknown: no offer until the server says it again
    toast(`The claim was not accepted: ${name} may be back. The match goes on.`, 'info');
  } else {
    game.claimStatus = { ...status, version: view.version, at: Date.now() };
    if (status.claimable) toast('The claim was not accepted yet: try again.', 'info');
    else if (status.opponent_connected || !opponentToAct(view)) toast(backText(view), 'info');
    else toast(`${name} is still away, but a claim is not accepted yet.`, 'info');
  }
  draw();
}

/** A match opened while the opponent keeps it waiting: GET …/claim once, for the offer
 * to stand from the first view, before the socket is up (or without it: a proxy may
 * refuse sockets). Once the socket opens its word stands over this answer: it looks at
 * the opponent as it connects, so an answer read before that look may be older. Never
 * asked again for this opening: the socket says what changes. */
export function askOnOpening(view) {
  const opened = socketsOpened;
  return askServer(view, () => opened === socketsOpened && !game.claimStatus);
}

/** The socket is down (socketless.js): GET …/claim for the view shown, as the socket
 * would have said it; an answer that comes back after the socket opened is dropped. */
export function askClaimStatus(view) {
  return askServer(view, () => !(game.feed && game.feed.open));
}

/** GET …/claim while the opponent keeps ``view`` waiting; the answer kept if it is
 * still of the view shown and ``stillWanted()``. */
async function askServer(view, stillWanted) {
  if (game.againstHouse || !opponentToAct(view)) return;
  const { open } = game;
  const status = await api.claimStatus(open.id).catch(() => null);
  if (!status || game.open !== open || !game.view || game.view.version !== view.version) return;
  if (!stillWanted()) return;
  game.claimStatus = { ...status, version: view.version, at: Date.now() };
  redrawIfOffered();
}

/** A view is shown: the socket's word on an older one no longer holds, but for an
 * absence: while the opponent stays to act, the server says ``opponent_away`` again only
 * if its ``claim_at_ms`` changes (not when we acknowledge a hand's end as it stays away),
 * and its ``claimable`` for this view is to say since when it has been away. */
export function watchClaim(view) {
  const prior = game.claimStatus;
  if (!prior || prior.version >= view.version) return;
  game.claimStatus = null;
  if (prior.absence_claim_at_ms === null || !opponentToAct(view)) return;
  game.claimStatus = { ...prior, version: view.version, claimable: false, reason: null };
}

/** The match's socket (re)connected: what an older socket said may have changed while
 * none was open (the opponent came back); the new one says where things stand. */
export function forgetPresence() {
  socketsOpened += 1;
  if (game.claimStatus === null) return;
  game.claimStatus = null;
  if (game.view && (game.ui.claim || game.ui.away)) draw();
}

/** The page left the match: nothing more is known of a claim. */
export function stopClaimWatch() {
  game.claimStatus = null;
}

/** Once a match is over: whether it was claimed, and the viewer's rating change in a rated
 * one (the header's rating is redrawn too). Looked up once per match; drawn when known.
 * The claim's lookup is kept on the opening (``open.claimLookup``: ``{ claim, known }``),
 * for the narration of a match opened over to wait for it (sayHowItEnded). */
export async function learnEnd(view) {
  const open = game.open;
  if (!open || game.ended === open) return;
  game.ended = open;
  const me = savedPlayer();
  // Never claimed from the house AI (the server refuses it): nothing to look up.
  open.claimLookup = game.ui.claimed || game.againstHouse
    ? Promise.resolve({ claim: game.ui.claimed, known: true })
    : lookUpClaim(open.id, view);
  const [{ claim: claimed, known }, change] = await Promise.all([
    open.claimLookup,
    game.rated && me && !(view.settlement && view.settlement.abandoned) // abandoned: rates nobody
      ? ratingChange(me.id, open.id).catch(() => null)
      : null,
  ]);
  if (game.open !== open) return;
  game.ui.claimed = claimed;
  game.ui.claimKnown = known;
  game.ui.rating = change ? ratingChangeText(change) : null;
  draw();
  if (change) document.dispatchEvent(new CustomEvent('ginrummy:rating-changed'));
}

/** The narration of a match shown already over (opened so, or jumped to without the
 * socket): how it ended, in the words the play-out's last event says it ("Ada won the
 * match (Bob resigned), 120 to 80."), not the last card move of its last hand, which the
 * result beside it made stale ("Jon discarded J♠." beside "The match is over"). A match
 * ended early settles as a resignation even when it was claimed: only the log says so,
 * so the line waits for learnEnd's lookup of the claim (saying nothing meanwhile), and
 * if that lookup failed it says who won and the score, not a resignation it cannot vouch
 * for. */
export async function sayHowItEnded(view) {
  const open = game.open;
  const s = view.settlement;
  if (!open || !s) return;
  say('');
  const early = s.resigned !== null && s.resigned !== undefined;
  const lookup = early && open.claimLookup ? await open.claimLookup : { claim: null, known: true };
  if (game.open !== open) return;
  say(settledWords(s, view.players, view.seat, lookup));
}
