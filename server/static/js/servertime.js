// The server's clock, as this page can know it. A move clock's deadlines are times on the
// server's clock, and this computer's may be wrong by seconds or minutes: a page that
// subtracted its own Date.now() showed a player whose clock ran 30 s fast 30 s less time
// than they had. So every answer and socket frame of a match says the server's time
// (``now_ms``, as it sent it); the page keeps the latest and counts on from when it came
// with the monotonic performance.now(), which no change of the computer's clock moves.
// What it still misses is the trip from the server, a fraction of a second: in the
// player's favour, as lichess counts too.
let heard = null; // { server: the server's ms, at: performance.now() when it came }

/** Note the server's time ``nowMs`` (an answer's or a frame's ``now_ms``), received now. */
export function heardServerTime(nowMs) {
  if (typeof nowMs === 'number' && Number.isFinite(nowMs)) heard = { server: nowMs, at: performance.now() };
}

/** The server's time now, in ms since 1970, as well as the page knows it (its own clock
 * until the server has said the time). */
export function serverNow() {
  return heard ? heard.server + (performance.now() - heard.at) : Date.now();
}
