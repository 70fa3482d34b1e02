// Claiming a match from an opponent who is not playing it (POST /v1/matches/{id}/claim):
// when to offer it, and how the match ended once claimed. The server alone decides a
// claim: the view says how many turns in a row each seat timed out, but not whether the
// opponent is connected nor the grace period, so "away" here is only what this page saw
// (no move for a while on their turn); a claim too early is the server's 409, said in a toast.
import { api } from './api.js';

const params = new URLSearchParams(location.search);
/** No move from the opponent on their turn for this long (ms) and the page offers the claim:
 * the server's default grace (GINRUMMY_ABSENCE_GRACE_S, 120 s), as a claim before it is
 * refused (`?away=` shortens it, for tests). */
export const AWAY_AFTER_MS = Math.max(0, Number(params.get('away') ?? 120000));
const TIMEOUTS_TO_CLAIM = 3; // domain/clock.py

/** Whether the opponent keeps the table waiting: their move (or their "next hand"). */
export const opponentToAct = (view) => view.phase !== 'match_over' && view.to_act.includes(1 - view.seat);

/** What the page says, with a Claim button, when the opponent seems gone: null when it
 * does not. ``waitingSince``: when this page saw the opponent's turn begin (ms). Never
 * against the house AI (the server refuses: it never leaves). */
export function claimOffer(view, { againstHouse, waitingSince, now = Date.now() }) {
  if (againstHouse || view.phase === 'match_over') return null;
  const opp = 1 - view.seat;
  const name = view.players[opp];
  const timeouts = view.clock ? view.clock.timeouts_in_a_row : [0, 0];
  // A claimant whose own latest turn timed out is refused (domain/clock.py): not offered.
  if (timeouts[opp] >= TIMEOUTS_TO_CLAIM && timeouts[view.seat] === 0) {
    return `${name} timed out ${timeouts[opp]} turns in a row.`;
  }
  if (opponentToAct(view) && waitingSince !== null && now - waitingSince >= AWAY_AFTER_MS) {
    return `${name} seems to be away: no move for ${Math.round((now - waitingSince) / 1000)} s.`;
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
