// The rematch as it happens: at match over against a person, the page follows the player
// stream (WS /v1/me/live), whose ``challenge`` and ``challenge_closed`` frames say at once
// that the opponent offered a rematch, withdrew it, or answered ours. Before, the page
// learnt it only by asking every second or two. rematch.js keeps asking, seldom, as the
// net under the stream: an offer that expires sends no frame, and a socket may drop.
//
// An open stream counts as present in every match of the player's, as the lobby's does,
// so an opponent elsewhere could not claim by absence while it is open. So it is held
// only while it can matter: while the tab is shown (a hidden tab closes it; shown again,
// the polls ask at once and follow again), for FOLLOW_FOR_MS after the page saw the
// match end (a rematch is offered then, or not at all: an offer lives 10 minutes by
// default), and not after the server refused it (a revoked token, too many connections,
// a database down); then the polls ask every second or two, as they did without it.
import { savedPlayer } from './api.js';

const FOLLOW_FOR_MS = 10 * 60 * 1000;

let followed = null; // { socket, matchId, onDrop }
let allowed = null; // { matchId, until, refused }: how long, and whether, a match may be followed

/** Follow the player stream for the rematch of ``matchId``, if it may be followed now;
 * each frame goes to ``onFrame``, and ``onDrop()`` is called if it closes on its own. */
export function followRematch(matchId, onFrame, onDrop = () => {}) {
  if (!allowed || allowed.matchId !== matchId) allowed = { matchId, until: Date.now() + FOLLOW_FOR_MS, refused: false };
  if (document.hidden || allowed.refused || Date.now() > allowed.until) {
    stopFollowingRematch();
    return;
  }
  if (followed && followed.matchId === matchId) return;
  stopFollowingRematch();
  const player = savedPlayer();
  if (!player) return;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/v1/me/live`);
  } catch {
    return; // the polls ask as often as they did without a stream
  }
  const mine = { socket, matchId, onDrop };
  followed = mine;
  // Signed in by its first message, not ``?token=``: a proxy may log a URL.
  socket.addEventListener('open', () => {
    if (followed === mine) socket.send(JSON.stringify({ type: 'auth', token: player.token }));
  });
  socket.addEventListener('message', (message) => {
    if (followed !== mine) return;
    let frame;
    try {
      frame = JSON.parse(message.data);
    } catch {
      return;
    }
    onFrame(frame);
  });
  socket.addEventListener('close', (event) => {
    if (followed !== mine) return;
    followed = null;
    // Refused (4401, 4429, 4503...): asked again, it would be refused again.
    if (event.code >= 4000 && allowed && allowed.matchId === matchId) allowed.refused = true;
    onDrop();
  });
}

/** Whether the stream is open, so that the polls may ask seldom. */
export const rematchFollowed = () => followed !== null && followed.socket.readyState === WebSocket.OPEN;

export function stopFollowingRematch() {
  if (!followed) return;
  const { socket } = followed;
  followed = null;
  // One still connecting is closed once open: closed before, the browser logs an error.
  if (socket.readyState === WebSocket.CONNECTING) socket.addEventListener('open', () => socket.close());
  else socket.close();
}

/** The page left the finished match: the next one is followed afresh. */
export function forgetRematchWindow() {
  stopFollowingRematch();
  allowed = null;
}

// A hidden tab holds no stream (it would count as present); shown again, the polls ask
// at once (poll.js) and follow again.
document.addEventListener('visibilitychange', () => {
  if (document.hidden) stopFollowingRematch();
});
