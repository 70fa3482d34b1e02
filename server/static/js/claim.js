// Claiming a match from an opponent who is not playing it (POST /v1/matches/{id}/claim):
// when to offer it, and how the match ended once claimed. The server alone decides a
// claim, and says when it would accept one (GET …/claim: this server's grace period,
// whether the opponent is connected and when it was last seen, from when a claim by
// absence is accepted), so the page offers Claim exactly when the server would accept
// it: not after a grace the page assumed, nor while the opponent is still connected.
import { api } from './api.js';

const TIMEOUTS_TO_CLAIM = 3; // domain/clock.py
const ASK_AT_MOST_EVERY_MS = 15000;

/** Whether the opponent keeps the table waiting: their move (or their "next hand"). */
export const opponentToAct = (view) => view.phase !== 'match_over' && view.to_act.includes(1 - view.seat);

/** The claim's state as the server last said it (``GET …/claim``), for the view at
 * ``version``, received at ``at`` on this page's clock. */
export async function askClaim(matchId, version) {
  const status = await api.claimStatus(matchId);
  return { ...status, version, at: Date.now() };
}

/** Whether the server settled the match in the same decision as ``event`` (the event
 * shown with ``view``): a resignation is followed at once by ``match_settled``, as a claim
 * is (it settles as the absent seat's resignation) and as a hand scored to the match's
 * target is (domain/match.py). The play-out shows the views between one at a time, the
 * opponent still to act in them; but the match is over on the server, which refuses to
 * say anything of a claim (422 ``match_over``): nothing is asked about those views. */
export function settlesTheMatch(event, view) {
  if (!event) return false;
  if (event.type === 'resigned' || event.type === 'match_claimed') return true;
  return event.type === 'hand_scored' && Math.max(...event.scores) >= view.rules.target;
}

/** When to ask again (ms from now): the opponent may leave or come back at any moment,
 * and only the server hears of it. Half the grace (1 to 15 s), so a claim by absence is
 * offered at most that late when the opponent leaves; and at the very moment the server
 * said such a claim would be accepted (its time converted to this page's: the clocks
 * may differ). */
export function askAgainIn(status, now = Date.now()) {
  const every = Math.min(ASK_AT_MOST_EVERY_MS, Math.max(1000, status ? status.grace_ms / 2 : ASK_AT_MOST_EVERY_MS));
  if (!status || status.claimable || status.absence_claim_at_ms === null) return every;
  const due = status.at + (status.absence_claim_at_ms - status.now_ms) - now;
  return Math.max(50, Math.min(every, due));
}

/** What the page says, with a Claim button, when the server would accept a claim: null
 * when it would not. ``status``: the server's latest answer (``askClaim``), used only for
 * the view it was asked for. Never against the house AI (the server refuses: it never
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

/** The match's ``match_claimed`` event, if it ended by a claim (null otherwise): a claim
 * settles as a resignation, and only the log says it was one. It comes just before the
 * absent seat's ``resigned`` and the ``match_settled`` that end the log. */
export async function findClaim(matchId, view) {
  const s = view.settlement;
  if (!s || s.resigned === null || s.resigned === undefined) return null;
  const page = await api.events(matchId, Math.max(0, view.version - 3), 3);
  const claimed = page.events.map((e) => e.event).find((e) => e.type === 'match_claimed');
  return claimed || null;
}
