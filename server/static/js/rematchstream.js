// The rematch as it happens: at match over against a person, the page follows the player
// stream (WS /v1/me/live), whose ``challenge`` and ``challenge_closed`` frames say at once
// that the opponent offered a rematch, withdrew it, or answered ours. Before, the page
// learnt it only by asking every second or two. rematch.js keeps asking, seldom, as the
// net under the stream: an offer that expires sends no frame, and a socket may drop.
//
// An open stream counts as present in every match of the player's, as the lobby's does,
// so an opponent elsewhere could not claim by absence while it is open. So it is held
// only while it can matter: while the tab is shown (a hidden tab closes it; shown again,
// the polls ask at once and follow again), for FOLLOW_FOR_MS after the match's own end
// (a rematch is offered then, or not at all: an offer lives 10 minutes by default), and
// not after the server refused it (a revoked token, too many connections, a database
// down); then the polls ask every second or two, as they did without it.
//
// The end is the server's: the match's ``finished_at`` in the player's list of finished
// matches (GET /v1/matches?status=finished, never behind the log), on the server's clock
// (servertime.js). The window once began when the page saw the match over, so a match
// reopened from History days later was followed for 10 minutes too (and its player
// counted as present); one that ended FOLLOW_FOR_MS ago or more opens no stream at all.
// Until the end is known no stream opens. Not found (the list's first page holds the
// newest 100) or not read: a match the page saw end is followed from now, one opened over
// is not followed. Once the window is over the polls ask seldom (rematchWindowOver); the
// fast pace is kept for a stream refused or dropped within it.
import { api, savedPlayer } from './api.js';
import { serverNow } from './servertime.js';
import { holdPlayerStream } from './playerstream.js';

const FOLLOW_FOR_MS = 10 * 60 * 1000;

let followed = null; // { stream, matchId, onDrop }: our hold on the page's player stream
// { matchId, until, refused }: how long (on the server's clock; null while the match's end
// is looked up), and whether, a match may be followed
let allowed = null;

/** Follow the player stream for the rematch of ``matchId``, if it may be followed now;
 * each frame goes to ``onFrame``, and ``onDrop()`` is called if it closes on its own.
 * ``seenEnding``: the page saw the match end (it was not over when opened). */
export function followRematch(matchId, onFrame, onDrop = () => {}, { seenEnding = false } = {}) {
  if (!allowed || allowed.matchId !== matchId) {
    const span = (allowed = { matchId, until: null, refused: false });
    const seen = serverNow();
    lookUpEnd(matchId).then((end) => {
      if (allowed !== span) return; // the page left the match meanwhile
      const from = end !== null ? end : seenEnding ? seen : null;
      span.until = from === null ? -Infinity : from + FOLLOW_FOR_MS;
      // Closed as the window ends, not at the next poll's ask (15 s on, while followed).
      if (from !== null) span.timer = setTimeout(() => allowed === span && stopFollowingRematch(), Math.max(0, span.until - serverNow()) + 1);
      followRematch(matchId, onFrame, onDrop);
    });
  }
  if (document.hidden || allowed.refused || allowed.until === null || serverNow() > allowed.until) {
    stopFollowingRematch();
    return;
  }
  if (followed && followed.matchId === matchId) return;
  stopFollowingRematch();
  const player = savedPlayer();
  if (!player) return;
  let stream;
  // The page's one stream (playerstream.js): the lobby's, if a table of ours waits there.
  const mine = { matchId, onDrop };
  try {
    stream = holdPlayerStream(player, {
      onFrame: (frame) => followed === mine && onFrame(frame),
      onClose: (event) => {
        if (followed !== mine) return;
        followed = null;
        // Refused (4401, 4429, 4503...): asked again, it would be refused again.
        if (event.code >= 4000 && allowed && allowed.matchId === matchId) allowed.refused = true;
        onDrop();
      },
    });
  } catch {
    return; // the polls ask as often as they did without a stream
  }
  mine.stream = stream;
  followed = mine;
}

/** When match ``matchId`` ended, in ms on the server's clock: its ``finished_at`` in the
 * player's newest finished matches; null if not there, or not read. */
async function lookUpEnd(matchId) {
  const listed = await api.listMatches('finished').catch(() => null);
  const found = listed && listed.matches.find((m) => m.match_id === matchId);
  const end = found && found.finished_at ? Date.parse(found.finished_at) : NaN;
  return Number.isFinite(end) ? end : null;
}

/** Whether the stream is open, so that the polls may ask seldom. */
export const rematchFollowed = () => followed !== null && followed.stream.open;

/** Whether the window to follow the match's rematch is over: FOLLOW_FOR_MS have passed
 * since its end, or it ended too long ago to be found (a match opened over whose end is
 * not known, too). The server still takes an offer then (it sets no limit on when a
 * settled match may be played again), so the polls still ask, but seldom, as with the
 * stream: an opponent is unlikely to offer a rematch of a match long over, and a tab left
 * open on one asked every 2 s for as long as it stayed open. */
export const rematchWindowOver = () => allowed !== null && allowed.until !== null && serverNow() > allowed.until;

export function stopFollowingRematch() {
  if (!followed) return;
  const { stream } = followed;
  followed = null;
  stream.close(); // the socket closes with its last holder
}

/** The page left the finished match: the next one is followed afresh. */
export function forgetRematchWindow() {
  stopFollowingRematch();
  if (allowed) clearTimeout(allowed.timer);
  allowed = null;
}

// A hidden tab holds no stream (it would count as present); shown again, the polls ask
// at once (poll.js) and follow again.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) stopFollowingRematch();
});
