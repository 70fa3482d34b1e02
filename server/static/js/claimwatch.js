// The claim on the table (claim.js says when the server would accept one): asking the
// server while the opponent keeps the table waiting, and, once the match is over, whether
// it ended by a claim and the viewer's rating change. The claim itself is sent by moves.js.
import { savedPlayer } from './api.js';
import { askAgainIn, askClaim, claimOffer, findClaim, opponentToAct, settlesTheMatch } from './claim.js';
import { ratingChange, ratingChangeText } from './ratingchange.js';
import { game } from './matchstate.js';
import { draw } from './matchdraw.js';
import { pollWhileVisible } from './poll.js';

let claimPoll = null;

/** While the opponent keeps the table waiting (never the house AI), ask the server
 * whether it would accept a claim: at each new view, again and again while it waits
 * (the opponent may leave or come back), and at the moment the server said a claim by
 * absence would be accepted. A tab nobody looks at asks nothing until it is looked at
 * (poll.js). ``event``: the one shown with ``view`` (null: none).
 *
 * Only the present is asked about: not a view of the play-out that a newer one already
 * follows (it asks for itself when shown), nor one whose event the server settled the
 * match with (claim.js ``settlesTheMatch``), nor while the player's own action is on its
 * way (a resignation, a claim: its answer brings a new view). Each of those was asked
 * about once the match was over, and the server's refusal (422) was a console error. */
export function watchClaim(view, event = null) {
  stopClaimWatch();
  game.claimStatus = null;
  if (game.againstHouse || !opponentToAct(view) || settlesTheMatch(event, view)) return;
  if (game.latest && game.latest.version > view.version) return;
  const { open } = game;
  const { version } = view;
  const current = () => game.open === open && game.view && game.view.version === version;
  claimPoll = pollWhileVisible(
    async () => {
      if (game.inFlight) return; // asked again after ``every``, or the answer's view asks
      const status = await askClaim(open.id, version).catch(() => null);
      if (!current()) return; // a newer view asks for itself
      game.claimStatus = status;
      if (claimOffer(game.view, { againstHouse: game.againstHouse, status }) !== game.ui.claim) draw();
    },
    { every: () => askAgainIn(game.claimStatus), alive: current },
  );
}

/** The page left the match: nothing more is asked about a claim. */
export function stopClaimWatch() {
  if (claimPoll) claimPoll.stop();
  claimPoll = null;
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
