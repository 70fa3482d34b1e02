// The rematch as it happens: at match over against a person, the page follows the player
// stream (WS /v1/me/live), whose ``challenge`` and ``challenge_closed`` frames say at once
// that the opponent offered a rematch, withdrew it, or answered ours. Before, the page
// learnt it only by asking every second or two. rematch.js keeps asking, seldom, as the
// net under the stream: an offer that expires sends no frame, and a socket may drop.
// An open stream counts as present in the player's other matches, as the lobby's does;
// it closes as the page leaves the finished match (rematch.js's stopRematch).
import { savedPlayer } from './api.js';

let followed = null; // { socket, matchId }

/** Follow the player stream for the rematch of ``matchId``; each frame goes to ``onFrame``. */
export function followRematch(matchId, onFrame) {
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
  const mine = { socket, matchId };
  followed = mine;
  // Signed in by its first message, not ``?token=``: a proxy may log a URL.
  socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', token: player.token })));
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
  socket.addEventListener('close', () => {
    if (followed === mine) followed = null; // the next poll follows again
  });
}

/** Whether the stream is open, so that the polls may ask seldom. */
export const rematchFollowed = () => followed !== null && followed.socket.readyState === WebSocket.OPEN;

export function stopFollowingRematch() {
  if (!followed) return;
  const { socket } = followed;
  followed = null;
  socket.close();
}
