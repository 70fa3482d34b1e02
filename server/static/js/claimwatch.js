// The claim on the table (claim.js says when the server would accept one): asking the
// server while the opponent keeps the table waiting, and, once the match is over, whether
// it ended by a claim and the viewer's rating change. The claim itself is sent by moves.js.
import { savedPlayer } from './api.js';
import { askAgainIn, askClaim, claimOffer, findClaim, opponentToAct } from './claim.js';
import { ratingChange, ratingChangeText } from './ratingchange.js';
import { game } from './matchstate.js';
import { draw } from './matchdraw.js';

let claimTimer = null;

/** While the opponent keeps the table waiting (never the house AI), ask the server
 * whether it would accept a claim: at each new view, again and again while it waits
 * (the opponent may leave or come back), and at the moment the server said a claim by
 * absence would be accepted. A tab nobody looks at asks nothing until it is looked at. */
export function watchClaim(view) {
  clearTimeout(claimTimer);
  game.claimStatus = null;
  if (game.againstHouse || !opponentToAct(view)) return;
  followClaim(game.open, view.version);
}

async function followClaim(open, version) {
  const current = () => game.open === open && game.view && game.view.version === version;
  if (!current()) return;
  if (!document.hidden) {
    const status = await askClaim(open.id, version).catch(() => null);
    if (!current()) return; // a newer view asks for itself
    game.claimStatus = status;
    if (claimOffer(game.view, { againstHouse: game.againstHouse, status }) !== game.ui.claim) draw();
  }
  clearTimeout(claimTimer);
  claimTimer = setTimeout(() => followClaim(open, version), askAgainIn(game.claimStatus));
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && game.open && game.view && !game.againstHouse && opponentToAct(game.view)) {
    clearTimeout(claimTimer);
    followClaim(game.open, game.view.version);
  }
});

/** The page left the match: nothing more is asked about a claim. */
export function stopClaimWatch() {
  clearTimeout(claimTimer);
}

/** Once a match is over: whether it was claimed, and the viewer's rating change in a rated
 * one (the header's rating is redrawn too). Looked up once per match; drawn when known. */
export async function learnEnd(view) {
  const open = game.open;
  if (!open || game.ended === open) return;
  game.ended = open;
  const me = savedPlayer();
  const [claimed, change] = await Promise.all([
    game.ui.claimed ? game.ui.claimed : findClaim(open.id, view).catch(() => null),
    game.rated && me ? ratingChange(me.id, open.id).catch(() => null) : null,
  ]);
  if (game.open !== open) return;
  game.ui.claimed = claimed;
  game.ui.rating = change ? ratingChangeText(change) : null;
  draw();
  if (change) document.dispatchEvent(new CustomEvent('ginrummy:rating-changed'));
}
