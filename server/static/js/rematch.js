// The rematch at match over: offering one (or accepting the opponent's) and waiting for
// the answer, and the opponent's offer shown on the table with its terms (rules, rated,
// clock), Accept and Decline, not only in the lobby. Our own offer shows its terms too:
// the server sets them (a clock raised to today's floor), not the old match. Both ask the
// server again every second or two while the match stays on the table and the tab is
// visible (poll.js); leaving it (stopRematch) stops them.
import { api, savedPlayer } from './api.js';
import { rememberTable } from './share.js';
import { problemText, toast } from './ui.js';
import { game, say } from './matchstate.js';
import { draw } from './matchdraw.js';
import { tableTerms } from './terms.js';
import { pollWhileVisible } from './poll.js';

let answerPoll = null; // the wait for the answer to our offer
let offerPoll = null; // the watch for the opponent's offer
let offerWatch = null; // the match whose opponent's offer is watched

/** Offer a rematch (or accept the opponent's); the new match opens once both agree. */
export async function rematch() {
  const old = game.matchId;
  try {
    const offer = await api.rematch(old);
    rememberTable(offer); // a private match's rematch is private too, with a code of its own
    if (game.matchId !== old) return; // the page left the match meanwhile
    if (offer.status === 'started') {
      location.hash = `#/match/${encodeURIComponent(offer.match_id)}`;
      return;
    }
    game.ui.rematch = { mine: offer }; // its terms are shown while it waits (actionbar.js)
    draw();
    say(`Rematch offered: ${tableTerms(offer)}; waiting for ${game.view.players[1 - game.view.seat]} to accept.`);
    if (answerPoll) answerPoll.stop();
    answerPoll = pollWhileVisible(
      async (poll) => {
        const latest = await api.getRematch(old).catch(() => null);
        if (game.matchId !== old) return;
        rememberTable(latest);
        if (latest && latest.status === 'started') {
          poll.stop();
          location.hash = `#/match/${encodeURIComponent(latest.match_id)}`;
        } else if (latest && latest.status !== 'open') {
          poll.stop();
          game.ui.rematch = null;
          draw();
          say(`The rematch was ${latest.status}.`);
        }
      },
      { every: 1000, first: 1000, alive: () => game.matchId === old },
    );
  } catch (err) {
    toast(problemText(err));
  }
}

/** At match over, the opponent's rematch offer, asked for now and every few seconds
 * while the match stays on the table: the offer is shown here, with Accept and Decline,
 * not only in the lobby. An offer is a challenge, so it is looked for among the player's
 * open challenges (GET /v1/challenges, its ``rematch_of`` this match). GET …/rematch,
 * asked before, is a 404 until somebody offers one: every ask of a match nobody offered
 * to play again was a refused request, a console error in the browser. */
export function watchRematchOffer() {
  const id = game.matchId;
  if (!id || offerWatch === id) return;
  offerWatch = id;
  const me = (savedPlayer() || {}).id;
  if (game.againstHouse) return; // the house AI offers no rematch: nothing to ask for
  if (offerPoll) offerPoll.stop();
  offerPoll = pollWhileVisible(async () => {
    const listed = await api.challenges().catch(() => null);
    if (game.matchId !== id || !listed) return;
    const theirs = listed.challenges.find((c) => c.rematch_of === id && c.status === 'open' && c.host && c.host.id !== me) || null;
    const shown = game.ui.rematch && game.ui.rematch.offer ? game.ui.rematch.offer.table_id : null;
    if (theirs && shown !== theirs.table_id && !(game.ui.rematch && game.ui.rematch.mine)) {
      game.ui.rematch = { offer: theirs };
      draw();
      say(`${game.view.players[1 - game.view.seat]} offers a rematch: ${tableTerms(theirs)}.`);
    } else if (!theirs && shown) {
      game.ui.rematch = null; // withdrawn, or expired
      draw();
    }
  }, { every: 2000, alive: () => game.matchId === id });
}

export async function declineRematch() {
  const offer = game.ui.rematch && game.ui.rematch.offer;
  if (!offer) return;
  try {
    await api.declineChallenge(offer.table_id);
    game.ui.rematch = null;
    draw();
    say('You declined the rematch.');
  } catch (err) {
    toast(problemText(err));
  }
}

/** The page left the match: nothing more is asked about its rematch. */
export function stopRematch() {
  game.ui.rematch = null;
  if (answerPoll) answerPoll.stop();
  if (offerPoll) offerPoll.stop();
  answerPoll = null;
  offerPoll = null;
  offerWatch = null;
}
