// The match on the table, as the page knows it: one object shared by the modules of the
// table screen (match.js opens and closes it, playout.js shows its events, moves.js sends
// the player's, matchdraw.js draws it). Whatever belongs to a match the page has left
// compares ``game.open`` and changes nothing.
import { $, fill } from './dom.js';
import { savedPlayer } from './api.js';
import { StandIn } from './standin.js';
import { displayName } from './words.js';
import { isolate, refName } from './names.js';

export const game = {
  matchId: null,
  view: null, // the view on screen
  latest: null, // the newest view known from any source
  views: new Map(), // version → view, from the WebSocket
  queue: [], // events still to show
  maxQueued: 0,
  running: false,
  inFlight: false,
  // The match on the table: a token made by each openMatch and dropped by closeMatch.
  // Whatever belongs to a match the page has left (an answer, a play-out still sleeping, a
  // socket frame) compares it and changes nothing. ``loading``: its first view is not drawn.
  open: null,
  feed: null,
  // ``selected``: the card chosen to discard; ``suggested``: chosen by the hint, not yet by
  // the player; ``confirmDiscard``: the card and version of a discard asked about once,
  // as it gives up a gin or knock (actionbar.js).
  // ``order``: the player's own order of the hand after a drag (null: the chosen sort);
  // ``orderOf``: the match and hand that order belongs to (a new deal starts afresh).
  ui: { selected: null, suggested: false, confirmDiscard: null, layout: null, busy: false, flash: null, flashCard: null, fresh: null, onTable: false, confirmResign: false, rematch: null, order: null, orderOf: null, claim: null, claimed: null, claimKnown: false, rating: null },
  // The answer's ``rated`` and whether a house AI sits (it cannot be claimed from), and the
  // server's latest word on a claim (the socket's, claimwatch.js; null: none for this view).
  rated: false,
  againstHouse: false,
  claimStatus: null,
  ended: null, // the match whose end (claim, rating change) was looked up
  standIn: new StandIn(), // which events the server made for a timed-out seat
  standInOf: null, // the match and hand ``ui.standIn`` (those moves' indices) belongs to
  names: new Map(), // player id → the name shown (people's names; bots and the computer marked)
};

/** The names of the seats, from the answer's ``seats``: bots and the house AI marked. */
export function learnNames(seats) {
  for (const ref of seats || []) game.names.set(ref.id, refName(ref, seats));
}

/** Whether ``seats`` (an answer's, in seat order) names a seat otherwise than the page does. */
export const seatsRenamed = (seats) => Array.isArray(seats) && seats.some((ref) => game.names.get(ref.id) !== refName(ref, seats));

/** A seat's player renamed (the socket's ``seats`` frame, in seat order): the names are
 * learnt again and every view kept names its seats anew, so the table, its notes and the
 * views still to be played out all show the new name. Our own seat takes the frame's
 * name too: renamed here, the frame comes before the rename's answer saves the name in
 * this browser, and the saved (old) name stayed on the table until the next move. */
export function renameSeats(seats) {
  if (!Array.isArray(seats)) return;
  learnNames(seats);
  const me = savedPlayer();
  const names = seats.map((ref) => (me && ref.id === me.id ? isolate(ref.name) : game.names.get(ref.id)));
  const views = new Set([...game.views.values(), game.view, game.latest].filter(Boolean));
  for (const view of views) view.players = names.slice();
}

/** Keep ``view`` (from an answer or a frame), its players named as the page shows them. */
export function remember(view) {
  if (!view) return;
  const me = savedPlayer();
  view.players = view.players.map((p) => (me && p === me.id ? isolate(me.name) : game.names.get(p) || displayName(p, me)));
  game.views.set(view.version, view);
  if (!game.latest || view.version > game.latest.version) game.latest = view;
}

/** The narration line under the piles (a live region: a screen reader says it). */
export function say(text) {
  fill($('#narration'), text);
}
