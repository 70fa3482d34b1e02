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
// The end is the server's: the match's ``finished_at_ms`` in its answer (GET
// /v1/matches/{id}), on the server's clock (servertime.js), for a match the page was
// shown over; one the page saw end is followed from then. The window once began when the
// page saw the match over, so a match reopened from History days later was followed for
// 10 minutes too (and its player counted as present); one that ended FOLLOW_FOR_MS ago
// or more opens no stream at all, nor does one opened over whose end is not known. Once
// the window is over the polls ask seldom (rematchWindowOver); the fast pace is kept for a
// stream refused or dropped within it.
import { savedPlayer } from './api.js';
import { serverNow } from './servertime.js';
import { holdPlayerStream } from './playerstream.js';

const FOLLOW_FOR_MS = 10 * 60 * 1000;

let followed = null; // { stream, matchId, onDrop }: our hold on the page's player stream
// { matchId, until, refused }: until when (on the server's clock), and whether, a match
// may be followed
let allowed = null;

/** Follow the player stream for the rematch of ``matchId``, if it may be followed now;
 * each frame goes to ``onFrame``, and ``onDrop()`` is called if it closes on its own.
 * ``endedAt``: the match's ``finished_at_ms``, if the page was shown it over;
 * ``seenEnding``: the page saw the match end (it was not over when opened). */
export function followRematch(matchId, onFrame, onDrop = () => {}, { seenEnding = false, endedAt = null } = {}) {
  if (!allowed || allowed.matchId !== matchId) {
    const from = typeof endedAt === 'number' ? endedAt : seenEnding ? serverNow() : null;
    const span = (allowed = { matchId, until: from === null ? -Infinity : from + FOLLOW_FOR_MS, refused: false, passed: false });
    // Closed as the window ends, not at the next poll's ask (15 s on, while followed).
    const end = () => allowed === span && ((span.passed = true), stopFollowingRematch());
    if (from !== null) span.timer = setTimeout(end, Math.max(0, span.until - serverNow()) + 1);
  }
  if (document.hidden || allowed.refused || windowPassed(allowed)) {
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

/** Whether the stream is open, so that the polls may ask seldom. */
export const rematchFollowed = () => followed !== null && followed.stream.open;

/** Whether the window to follow the match's rematch is over: FOLLOW_FOR_MS have passed
 * since its end (or the match was opened over with no end known). The server still
 * takes an offer then (it sets no limit on when a settled match may be played again), so
 * the polls still ask, but seldom, as with the stream: an opponent is unlikely to offer a
 * rematch of a match long over, and a tab left open on one asked every 2 s for as long as
 * it stayed open. */
export const rematchWindowOver = () => allowed !== null && windowPassed(allowed);

/** Whether ``span``'s window has passed; once it has, it stays passed: the server's time
 * as the page knows it is set anew by each answer (servertime.js), and a page whose own
 * clock ran fast since the last would otherwise see the window open again. */
function windowPassed(span) {
  if (!span.passed && serverNow() > span.until) span.passed = true;
  return span.passed;
}

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
