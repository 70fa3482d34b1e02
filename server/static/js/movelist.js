// The hand's moves told in words: the list beside the table (#moves), and one move as
// match.js says it when a match is opened. A move the server made for a seat whose time
// ran out (standin.js) is told as the computer's, never as the player's own choice. Apart
// from table.js, which draws the rest of the table, so that how a move is worded lives
// in one place (match.js and playout.js take describeMove and standInMoves from here).
import { h } from './dom.js';
import { cardName } from './cards.js';
import { KIND, seatName } from './words.js';

const VERB = {
  take_up_card: (c) => `took the up-card ${c}`,
  pass_up_card: (c) => `passed the up-card ${c}`,
  draw_stock: (c) => (c ? `drew ${c} from the stock` : 'drew from the stock'),
  draw_discard: (c) => `took ${c} from the pile`,
  discard: (c) => `discarded ${c}`,
  knock: (c, kind) => {
    const words = KIND[kind] || KIND.knock;
    return c ? `${words}, discarding ${c}` : words;
  },
  lay_off: (c) => `laid off ${c}`,
};

/** One public move of the hand ([seat, action, card]) in words; ``standIn``: the server
 * made it for the seat, whose time ran out (not the player's own choice). */
export function describeMove(view, [seat, action, card], standIn = false) {
  const name = card ? cardName(card) : '';
  const kind = view.knock && view.knock.kind; // a hand has one knock: the moves' "knock" is it
  const words = VERB[action] ? VERB[action](name, kind).trim() : `${action} ${name}`.trim();
  if (standIn) return `Time ran out for ${seat === view.seat ? 'you' : view.players[seat]}: the computer ${words}.`;
  return `${seatName(view.players, seat, view.seat)} ${words}.`;
}

/** The indices of this hand's moves the server made for a timed-out seat: the view's
 * clock lists them (an older event frame's view has no clock: match.js keeps the last). */
export const standInMoves = (view) => new Set(view.clock ? view.clock.stand_in_moves || [] : []);

export function movesList(view, ui) {
  const made = ui.standIn || standInMoves(view);
  return view.moves.map((move, i) => h('li', { class: made.has(i) ? 'stand-in' : null }, describeMove(view, move, made.has(i))));
}
