// What the table tells a screen reader once, when it appears (ui.js's announce()): the
// claim offer, the note that the opponent left, and the no-progress note. All are drawn anew at every redraw (the claim's
// "not connected for N s" changes as it waits), so a live region of their own would be
// read again at each redraw, or never (a region inserted with its words already in is
// not announced); the lines said are remembered instead.
import { announce } from './ui.js';
import { progressNote } from './table.js';

let claimShown = false; // the claim notice is on the table
let awayShown = false; // the away note is on the table
let progressHand = null; // the hand ('match:hand') whose no-progress note was said

/** ``claim``: the claim notice drawn now (claimOffer's words), or null for none. */
export function noticeClaim(claim) {
  if (claim && !claimShown) announce(claim);
  claimShown = Boolean(claim);
}

/** ``away``: the away note drawn now (awayNote's words), or null: said as it appears, not
 * again while it stays (its time may move by a second as the socket and GET …/claim
 * each date it on this page's clock). */
export function noticeAway(away) {
  if (away && !awayShown) announce(away);
  awayShown = Boolean(away);
}

/** The no-progress note, said the first time a hand shows it (its count may grow after). */
export function noticeProgress(matchId, view) {
  const note = progressNote(view);
  const hand = `${matchId}:${view.hand_number}`;
  if (!note || progressHand === hand) return;
  progressHand = hand;
  announce(note);
}

/** The page left the match: what it shows next time is said anew. */
export function forgetNotices() {
  claimShown = false;
  awayShown = false;
  progressHand = null;
}
