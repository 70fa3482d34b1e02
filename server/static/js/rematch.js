// The rematch at match over: offering one (or accepting the opponent's) and waiting for
// the answer, and the opponent's offer shown on the table with its terms (rules, rated,
// clock), Accept and Decline, not only in the lobby. Our own offer shows its terms too:
// the server sets them (a clock raised to today's floor), not the old match. The player
// stream says each at once (rematchstream.js); both are also asked of the server while the
// match stays on the table and the tab is visible (poll.js), every second or two without
// the stream and seldom with it; leaving the match (stopRematch) stops them. Once the
// stream's window is over (10 minutes after the match's end) the opponent's offer is asked
// for seldom too: a tab left open on an old match asked every 2 s for as long as it stayed.
import { api, savedPlayer } from './api.js';
import { rememberTable } from './share.js';
import { problemText, toast } from './ui.js';
import { game, say } from './matchstate.js';
import { draw } from './matchdraw.js';
import { tableTerms } from './terms.js';
import { pollWhileVisible } from './poll.js';
import { followRematch, forgetRematchWindow, rematchFollowed, rematchWindowOver } from './rematchstream.js';

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
    const closed = closedOffers.get(offer.table_id);
    if (closed) return heardAnswer({ ...offer, status: closed.status, match_id: closed.match_id });
    stopAnswerPoll();
    answerPoll = pollWhileVisible(
      async () => {
        const latest = await api.getRematch(old).catch(() => null);
        if (game.matchId === old) heardAnswer(latest);
      },
      { every: pace(1000), first: pace(1000)(), alive: () => game.matchId === old },
    );
  } catch (err) {
    toast(problemText(err));
  }
}

/** How often a poll asks: ``ms`` without the player stream, seldom while it is open.
 * ``afterWindow``: seldom too once the window to follow it is over (rematchstream.js). */
const pace = (ms, afterWindow = false) => () => (rematchFollowed() || (afterWindow && rematchWindowOver()) ? SELDOM_MS : ms);
const SELDOM_MS = 15000;

/** Our offer's answer, asked (GET …/rematch) or heard (the stream's ``challenge_closed``). */
function heardAnswer(latest) {
  rememberTable(latest);
  if (!latest || latest.status === 'open') return;
  stopAnswerPoll();
  if (latest.status === 'started') {
    location.hash = `#/match/${encodeURIComponent(latest.match_id)}`;
    return;
  }
  game.ui.rematch = null;
  draw();
  say(`The rematch was ${latest.status}.`);
}

/** The opponent's offer, shown with Accept and Decline (or taken away: ``null``). */
function heardTheirs(theirs) {
  const shown = game.ui.rematch && game.ui.rematch.offer ? game.ui.rematch.offer.table_id : null;
  if (theirs && shown !== theirs.table_id && !(game.ui.rematch && game.ui.rematch.mine)) {
    game.ui.rematch = { offer: theirs };
    draw();
    say(`${game.view.players[1 - game.view.seat]} offers a rematch: ${tableTerms(theirs)}.`);
  } else if (!theirs && shown) {
    game.ui.rematch = null; // withdrawn, declined elsewhere, or expired
    draw();
  }
}

/** A frame of the player stream: only the rematch of the match on the table matters here. */
function heardFrame(frame, id, me) {
  if (game.matchId !== id) return;
  if (frame.type === 'challenge') {
    const c = frame.challenge;
    if (c.rematch_of === id && c.status === 'open' && c.host && c.host.id !== me) {
      offersHeard += 1;
      heardTheirs(c);
    }
  } else if (frame.type === 'challenge_closed') {
    closedOffers.set(frame.table_id, frame);
    const { mine, offer } = game.ui.rematch || {};
    if (mine && mine.table_id === frame.table_id) heardAnswer({ ...mine, status: frame.status, match_id: frame.match_id });
    else if (offer && offer.table_id === frame.table_id) {
      if (frame.status === 'started') location.hash = `#/match/${encodeURIComponent(frame.match_id)}`; // accepted in another tab
      else heardTheirs(null);
    }
  }
}

// The offers the stream said were closed: our offer's answer may come before our own
// request's (the opponent accepted at once), and is found here when it does.
const closedOffers = new Map();
// How many times the stream said an offer of the opponent's is open: an ask sent before
// the last of them may have been read before the offer was made.
let offersHeard = 0;

/** At match over against a person, the opponent's rematch offer: heard on the player
 * stream as it is made, and asked for now and now and then while the match stays on the
 * table: the offer is shown here, with Accept and Decline, not only in the lobby. An offer
 * is a challenge, so it is looked for among the player's open challenges (GET
 * /v1/challenges, its ``rematch_of`` this match). GET …/rematch, asked before, is a 404
 * until somebody offers one: every ask of a match nobody offered to play again was a
 * refused request, a console error in the browser. */
export function watchRematchOffer() {
  const id = game.matchId;
  if (!id || offerWatch === id) return;
  offerWatch = id;
  const me = (savedPlayer() || {}).id;
  if (game.againstHouse) return; // the house AI offers no rematch: nothing to ask for
  // Dropped or refused, the stream no longer says what happens: ask at once, then at the
  // pace of a page without it.
  const dropped = () => [offerPoll, answerPoll].forEach((poll) => poll && poll.soon());
  const seenEnding = Boolean(game.open && !game.open.openedOver); // its end is now
  const endedAt = game.open ? game.open.finishedAtMs : null; // as the server recorded it
  const follow = () => followRematch(id, (frame) => heardFrame(frame, id, me), dropped, { seenEnding, endedAt });
  follow();
  if (offerPoll) offerPoll.stop();
  offerPoll = pollWhileVisible(
    async () => {
      follow(); // again, if the stream dropped
      const heard = offersHeard;
      const listed = await api.challenges().catch(() => null);
      if (game.matchId !== id || !listed) return;
      // An answer read before the stream said the offer closed must not bring it back.
      const open = (c) => c.rematch_of === id && c.status === 'open' && c.host && c.host.id !== me && !closedOffers.has(c.table_id);
      const theirs = listed.challenges.find(open) || null;
      // Nor one read before the stream said an offer came take it away (for 15 s).
      if (theirs || offersHeard === heard) heardTheirs(theirs);
    },
    { every: pace(2000, true), alive: () => game.matchId === id },
  );
}

function stopAnswerPoll() {
  if (answerPoll) answerPoll.stop();
  answerPoll = null;
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
  stopAnswerPoll();
  if (offerPoll) offerPoll.stop();
  offerPoll = null;
  offerWatch = null;
  closedOffers.clear();
  forgetRematchWindow();
}
