// The page's one player stream (WS /v1/me/live), shared by whoever follows it: the lobby
// (lobbylive.js: a match of ours that starts, a challenge that comes or closes, held off
// the lobby while a table or challenge of ours waits) and the table at a match's end
// (rematchstream.js: the rematch). Each once opened a socket of its own, so a match that
// ended while a table of ours waited in the lobby left the page holding two streams: the
// server said everything twice (the presence frames of the player's other matches, each
// challenge), and the page counted twice against the address's sockets. The socket opens
// with the first holder and closes when the last lets go; a holder that comes while it is
// open has missed its first frames (what was open as it connected), so each holder asks
// the server for those itself (the lobby's reads, the rematch watch's asks).

let shared = null; // { socket, token, holders: Set }

/** Hold the player stream of ``player``: ``onFrame(frame)`` for each frame from now on,
 * ``onClose(event)`` if it closes while held (dropped, or refused: ``event.code``). Gives
 * ``{ close(), open }``: ``close()`` lets go (the socket closes with its last holder),
 * ``open`` says whether the socket is open now. */
export function holdPlayerStream(player, { onFrame = () => {}, onClose = () => {} } = {}) {
  if (shared && shared.token !== player.token) letGoOfAll(); // another player signed in here
  if (!shared) shared = connect(player);
  const stream = shared;
  const holder = { onFrame, onClose };
  stream.holders.add(holder);
  return {
    close() {
      if (!stream.holders.delete(holder)) return;
      if (stream.holders.size === 0) closeSocket(stream);
    },
    get open() {
      return stream.holders.has(holder) && stream.socket.readyState === WebSocket.OPEN;
    },
  };
}

function connect(player) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${scheme}://${location.host}/v1/me/live`);
  const stream = { socket, token: player.token, holders: new Set() };
  // Signed in by its first message, not ``?token=``: a proxy may log a URL.
  socket.addEventListener('open', () => {
    if (stream.holders.size) socket.send(JSON.stringify({ type: 'auth', token: player.token }));
  });
  socket.addEventListener('message', (message) => {
    let frame;
    try {
      frame = JSON.parse(message.data);
    } catch {
      return;
    }
    for (const holder of [...stream.holders]) if (stream.holders.has(holder)) holder.onFrame(frame);
  });
  socket.addEventListener('close', (event) => {
    if (shared === stream) shared = null;
    const holders = [...stream.holders];
    stream.holders.clear();
    for (const holder of holders) holder.onClose(event);
  });
  return stream;
}

function closeSocket(stream) {
  if (shared === stream) shared = null;
  const { socket } = stream;
  // One still connecting is closed once open: closed before, the browser logs an error.
  if (socket.readyState === WebSocket.CONNECTING) socket.addEventListener('open', () => socket.close());
  else socket.close();
}

function letGoOfAll() {
  const stream = shared;
  const holders = [...stream.holders];
  stream.holders.clear();
  closeSocket(stream);
  for (const holder of holders) holder.onClose({ code: 1000 });
}
