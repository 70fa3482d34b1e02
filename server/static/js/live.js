// The match's WebSocket: every event arrives with the view after it, so the page can play
// the AI's moves out one at a time. Reconnects (after a drop, a heartbeat timeout or a
// slow-reader close) and resumes from the last version seen.
import { heardServerTime } from './servertime.js';
import { pollWhileVisible } from './poll.js';
import { ApiError, NetworkError } from './api.js';
import { $, fill } from './dom.js';
import { announce } from './ui.js';

const FINAL_CLOSE_CODES = new Set([4401, 4403, 4404]);
const CONNECTING_MS = 10000;

export class LiveFeed {
  /** ``path``: the socket's address (a seat's ``/live``, a spectator's ``/watch?…``). */
  constructor(matchId, token, onFrame, path = null) {
    this.matchId = matchId;
    this.token = token;
    this.onFrame = onFrame;
    this.path = path || `/v1/matches/${encodeURIComponent(matchId)}/live`;
    this.lastVersion = 0;
    this.socket = null;
    this.closed = false;
    this.retry = 500;
    this.refused = false; // the server closed it for good: asking over HTTP cannot help either
    this.connectingSince = 0;
    this.onOpen = null; // called as each socket opens: what an older one said may be stale
    this.query = null; // () => more of each connection's query (``chat_after=N``), or ''
  }

  get open() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Not open, and not a connection still on its way (one that hangs for 10 s counts as
   * down: a proxy may hold the upgrade unanswered). */
  get down() {
    if (this.open) return false;
    const connecting = this.socket !== null && this.socket.readyState === WebSocket.CONNECTING;
    return !connecting || Date.now() - this.connectingSince > CONNECTING_MS;
  }

  connect() {
    if (this.closed) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const more = this.query ? this.query() : '';
    const url = `${scheme}://${location.host}${this.path}${more ? (this.path.includes('?') ? '&' : '?') + more : ''}`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.connectingSince = Date.now();
    socket.addEventListener('open', () => {
      this.retry = 500;
      if (this.onOpen) this.onOpen();
      // After a drop, ask for what was missed with the login itself: the server then sends
      // those events in place of a snapshot, and no live event can come between.
      if (!this.token) {
        // A spectator needs no token: a reconnect asks for what it missed with resume.
        if (this.lastVersion > 0) socket.send(JSON.stringify({ type: 'resume', after: this.lastVersion }));
        return;
      }
      const auth = { type: 'auth', token: this.token };
      if (this.lastVersion > 0) auth.after = this.lastVersion;
      socket.send(JSON.stringify(auth));
    });
    socket.addEventListener('message', (message) => {
      let frame;
      try {
        const data = message.data;
        frame = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
      } catch {
        return;
      }
      heardServerTime(frame.now_ms); // every frame says the server's time as it left
      if (frame.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
        return;
      }
      if (typeof frame.version === 'number' && frame.type !== 'error') {
        this.lastVersion = Math.max(this.lastVersion, frame.version);
      }
      // A version past the match's end (a store restored from a backup, say) is refused,
      // and would be again at each reconnect: the next connection asks for a snapshot.
      if (frame.type === 'error' && frame.problem && frame.problem.rule === 'version_out_of_range') {
        this.lastVersion = 0;
      }
      this.onFrame(frame);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket || this.closed) return;
      this.socket = null;
      // Bad token, not your match, no such match: retrying cannot help.
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.refused = true;
        return;
      }
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    });
  }

  /** Connect again now (the socket closes, and the back-off's first step reopens it):
   * what the next connection asks for (``query``) has changed. */
  renew() {
    if (this.socket && !this.closed) this.socket.close();
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    this.socket = null;
  }
}

// A proxy that refuses WebSockets, or a server restarting, leaves a page with no socket:
// it then asks over HTTP instead, this often (the socket's first connection given as long).
const ASK_EVERY_MS = 3000;

/** Call ``ask()`` every few seconds while ``feed``'s socket is down (not open, nor on its
 * way) and ``alive()`` holds (one request at a time, none in a hidden tab: poll.js). */
export function whileSocketDown(feed, ask, alive) {
  const askIfDown = async (handle) => {
    if (feed.refused) return handle.stop();
    if (feed.down) await ask();
  };
  return pollWhileVisible(askIfDown, { every: ASK_EVERY_MS, first: ASK_EVERY_MS, alive });
}

const UNREACHABLE = 'Cannot reach the server: the table shows the match as last heard, and the page keeps trying.';

/** Whether ``err`` (an ask made while the socket is down) says the server is not there. */
export const unreachable = (err) => err instanceof NetworkError || (err instanceof ApiError && err.status >= 500);

/** Whether the screen says the server cannot be reached (``note``: the table's, or the
 * watch screen's). With its server gone (killed, restarting) the page asked in vain and
 * said nothing: the table looked live, the opponent's clock stood at 0 s and the player's
 * own turn never came. Said once as it appears; gone once an ask is answered, the socket
 * is open again or the match is left. */
export function noteUnreachable(shown, note = '#connection-note') {
  const el = $(note);
  if (!el || el.hidden === !shown) return;
  fill(el, shown ? UNREACHABLE : '');
  el.hidden = !shown;
  if (shown) announce(UNREACHABLE, { urgent: true }); // a note shown with its words is not read out
}
