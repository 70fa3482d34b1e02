// The match without its socket. A proxy that refuses WebSockets, or a server restarting,
// left the page with the view it opened on: the opponent's moves never came, and the
// player waited at a table that looked like the opponent's turn for ever. While the socket
// is not open, the page asks for the match every few seconds and shows a newer view as the
// socket's snapshot would (the table jumps to it and its newest move is told in words),
// asks for the chat's new messages, and, while the opponent keeps it waiting, whether a
// claim would be accepted (the socket would have said so), and names a renamed seat anew. Once the socket is open again
// it asks nothing.
import { api } from './api.js';
import { noteUnreachable, unreachable, whileSocketDown } from './live.js';
import { describeMove } from './movelist.js';
import { game, say, seatsRenamed } from './matchstate.js';
import { onFrame } from './playout.js';
import { askClaimStatus } from './claimwatch.js';
import { chatCatchUp } from './chat.js';

/** Follow the match opened as ``open`` (match.js's token) whenever its socket is down. */
export function followWithoutSocket(open) {
  const feed = game.feed;
  const ask = async () => {
    let data;
    try {
      data = await api.getMatch(open.id);
    } catch (err) {
      if (unreachable(err) && game.open === open && !feed.open) noteUnreachable(true);
      throw err;
    }
    if (game.open === open) noteUnreachable(false);
    if (game.open !== open || !game.view || feed.open) return;
    const shown = game.view.version;
    // A rename made while the socket was down: its seats frame went to no socket.
    if (seatsRenamed(data.seats)) onFrame({ type: 'seats', seats: data.seats });
    onFrame({ type: 'snapshot', view: data.view });
    const view = game.view;
    // A settled one: the snapshot says how it ended (playout.js), not the last hand's last move.
    if (view.version > shown && !view.settlement) {
      const last = view.moves.length - 1;
      say(last >= 0 ? describeMove(view, view.moves[last], game.ui.standIn.has(last)) : `Hand ${view.hand_number} is dealt.`);
    }
    chatCatchUp();
    await askClaimStatus(view);
  };
  whileSocketDown(feed, ask, () => game.open === open && game.feed === feed);
}
