// Claiming a match from an opponent who is not playing it (POST /v1/matches/{id}/claim):
// when to offer it, and how the match ended once claimed. The server alone decides a
// claim, and says when it would accept one (the seat's socket: ``opponent_away`` with
// when the opponent was last seen and from when a claim by absence is accepted,
// ``claimable`` once it is; claimwatch.js), so the page offers Claim exactly when the
// server would accept it: not after a grace the page assumed, nor while the opponent is
// still connected. Nor when it is gone a moment (a page reloading, or going from the
// lobby to the table): the socket and GET …/claim both wait out a short settle before
// saying so (server/claim_watch.py's leave_settle_ms), so their word is taken as it comes.
import { api } from './api.js';
import { narrate } from './words.js';

const TIMEOUTS_TO_CLAIM = 3; // domain/clock.py

/** Whether the opponent keeps the table waiting: their move (or their "next hand"). */
export const opponentToAct = (view) => view.phase !== 'match_over' && view.to_act.includes(1 - view.seat);

/** What the page says, with a Claim button, when the server would accept a claim: null
 * when it would not. ``status``: the socket's latest word (claimwatch.js), used only for
 * the view it was said of. Never against the house AI (the server refuses: it never
 * leaves). */
export function claimOffer(view, { againstHouse, status, now = Date.now() }) {
  if (againstHouse || view.phase === 'match_over') return null;
  const opp = 1 - view.seat;
  const name = view.players[opp];
  const timeouts = view.clock ? view.clock.timeouts_in_a_row : [0, 0];
  // A claimant whose own latest turn timed out is refused (domain/clock.py): not offered.
  if (timeouts[opp] >= TIMEOUTS_TO_CLAIM && timeouts[view.seat] === 0) {
    return `${name} timed out ${timeouts[opp]} turns in a row.`;
  }
  if (status && status.version === view.version && status.claimable && status.reason === 'absence') {
    const seen = status.opponent_seen_ms === null ? now : status.at + (status.opponent_seen_ms - status.now_ms);
    return `${name} seems to be away: not connected for ${Math.max(0, Math.round((now - seen) / 1000))} s.`;
  }
  return null;
}

/** What the page says while the opponent, to act, is away and a claim is not yet accepted:
 * that they seem to have left, and from when (a local time, on this page's clock) the
 * player may claim if they do not come back; null otherwise. A time, not a countdown: it
 * is read once, not every second, and stays the same until the server says otherwise. */
export function awayNote(view, { againstHouse, status }) {
  if (againstHouse || !opponentToAct(view) || !status || status.version !== view.version) return null;
  if (status.claimable || status.absence_claim_at_ms === null || status.absence_claim_at_ms === undefined) return null;
  const claimAt = new Date(status.at + (status.absence_claim_at_ms - status.now_ms));
  const time = claimAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return `${view.players[1 - view.seat]} seems to have left the table. If they do not come back, you may claim the match from ${time}.`;
}

/** The match's ``match_claimed`` event, if it ended by a claim (null otherwise): a claim
 * settles as a resignation, and only the log says it was one. It comes just before the
 * absent seat's ``resigned`` and the ``match_settled`` that end the log. ``code``: a
 * private match's watch code, for a spectator (a finished match's log is open to anyone
 * who may watch it). */
export async function findClaim(matchId, view, code = null) {
  const s = view.settlement;
  if (!s || s.resigned === null || s.resigned === undefined) return null;
  const page = await api.events(matchId, Math.max(0, view.version - 3), 3, code);
  const claimed = page.events.map((e) => e.event).find((e) => e.type === 'match_claimed');
  return claimed || null;
}

/** ``findClaim``'s answer as ``{ claim, known }``: a lookup that failed leaves the claim
 * not known (the match is then told without who resigned), never an error. */
export const lookUpClaim = (matchId, view, code = null) =>
  findClaim(matchId, view, code).then((claim) => ({ claim, known: true }), () => ({ claim: null, known: false }));

/** How a settled match ended, in words ("Ada won the match (Bob resigned), 120 to 80."):
 * with who resigned or was claimed from once the claim is known (``{ claim, known }``);
 * not known (looked up still, or the lookup failed), who won and the score alone, never a
 * claim told as a resignation. */
export function settledWords(settlement, names, me, { claim, known }) {
  const settled = { ...settlement, type: 'match_settled' };
  return narrate(known ? settled : { ...settled, resigned: null }, names, me, claim);
}
