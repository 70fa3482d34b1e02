// The match without its socket. A proxy that refuses WebSockets, or a server restarting,
// left the page with the view it opened on: the opponent's moves never came, and the
// player waited at a table that looked like the opponent's turn for ever. While the socket
// is not open, the page asks for the match every few seconds and shows a newer view as the
// socket's snapshot would (the table jumps to it and its newest move is told in words),
// asks for the chat's new messages, and, while the opponent keeps it waiting, whether a
// claim would be accepted (the socket would have said so). Once the socket is open again
// it asks nothing.
import { api, ApiError, NetworkError } from './api.js';
import { $, fill } from './dom.js';
import { announce } from './ui.js';
import { whileSocketDown } from './live.js';
import { describeMove } from './movelist.js';
import { game, say } from './matchstate.js';
import { onFrame } from './playout.js';
import { askClaimStatus } from './claimwatch.js';
import { chatCatchUp } from './chat.js';

const UNREACHABLE = 'Cannot reach the server: the table shows the match as last heard, and the page keeps trying.';

/** Whether the table says the server cannot be reached. With its server gone (killed,
 * restarting) the page asked in vain and said nothing: the table looked live, the
 * opponent's clock stood at 0 s and the player's own turn never came. Said once as it
 * appears; gone once an ask is answered, the socket is open again or the match is left. */
export function noteUnreachable(shown) {
  const note = $('#connection-note');
  if (!note || note.hidden === !shown) return;
  fill(note, shown ? UNREACHABLE : '');
  note.hidden = !shown;
  if (shown) announce(UNREACHABLE, { urgent: true }); // a note shown with its words is not read out
}

/** Follow the match opened as ``open`` (match.js's token) whenever its socket is down. */
export function followWithoutSocket(open) {
  const feed = game.feed;
  const ask = async () => {
    let data;
    try {
      data = await api.getMatch(open.id);
    } catch (err) {
      const unreachable = err instanceof NetworkError || (err instanceof ApiError && err.status >= 500);
      if (unreachable && game.open === open && !feed.open) noteUnreachable(true);
      throw err;
    }
    if (game.open === open) noteUnreachable(false);
    if (game.open !== open || !game.view || feed.open) return;
    const shown = game.view.version;
    onFrame({ type: 'snapshot', view: data.view });
    const view = game.view;
    if (view.version > shown) {
      const last = view.moves.length - 1;
      say(last >= 0 ? describeMove(view, view.moves[last], game.ui.standIn.has(last)) : `Hand ${view.hand_number} is dealt.`);
    }
    chatCatchUp();
    await askClaimStatus(view);
  };
  whileSocketDown(feed, ask, () => game.open === open && game.feed === feed);
}
