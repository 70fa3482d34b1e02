// What a rated match did to the player's rating, from GET /v1/players/{id}/rating: its
// history has the rating before and after each rated match (read-your-writes: the server
// catches its ratings up first). The numbers are the server's, rounded as it shows them.
import { api } from './api.js';

/** ``{ before, after }`` for ``playerId`` in ``matchId`` (whole points), or null when the
 * match moved no rating of theirs. */
export async function ratingChange(playerId, matchId) {
  const record = await api.rating(playerId);
  const row = record.history.find((r) => r.match_id === matchId);
  return row ? { before: Math.round(row.rating_before), after: Math.round(row.rating) } : null;
}

/** "Rating: 1500 → 1662 (+162)". */
export function ratingChangeText({ before, after }) {
  const diff = after - before;
  return `Rating: ${before} → ${after} (${diff >= 0 ? '+' : ''}${diff})`;
}
