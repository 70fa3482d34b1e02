// Drawing cards. Display only: which cards meld, and their values, always come from the server.
import { h } from './dom.js';

const SUIT_SYMBOL = { C: '♣', D: '♦', H: '♥', S: '♠' };
const SUIT_NAME = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
const RANK_NAME = {
  A: 'ace', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven',
  8: 'eight', 9: 'nine', T: 'ten', J: 'jack', Q: 'queen', K: 'king',
};
const RANK_ORDER = 'A23456789TJQK';
const SUIT_ORDER = 'CDHS';

export const rankLabel = (card) => (card[0] === 'T' ? '10' : card[0]);
export const cardName = (card) => `${rankLabel(card)}${SUIT_SYMBOL[card[1]]}`;
export const longName = (card) => `${RANK_NAME[card[0]]} of ${SUIT_NAME[card[1]]}`;
export const isRed = (card) => card[1] === 'H' || card[1] === 'D';

/** Rank then suit: the order a player fans unmatched cards in. */
export function byRank(cards) {
  const key = (c) => RANK_ORDER.indexOf(c[0]) * 4 + SUIT_ORDER.indexOf(c[1]);
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** Suit then rank: how a whole hand reads when no arrangement is at hand (replays). */
export function bySuit(cards) {
  const key = (c) => SUIT_ORDER.indexOf(c[1]) * 13 + RANK_ORDER.indexOf(c[0]);
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** A face-up card; a <button> when the player can act on it, else an image named by its
 * label (the rank and suit symbols drawn on it are hidden from screen readers). */
export function cardFace(card, { button = false, classes = '', attrs = {} } = {}) {
  const suit = SUIT_SYMBOL[card[1]];
  return h(
    button ? 'button' : 'span',
    {
      class: `card ${isRed(card) ? 'red' : 'black'} suit-${card[1]} ${classes}`.trim(),
      dataset: { card },
      'aria-label': longName(card),
      title: longName(card),
      type: button ? 'button' : null,
      role: button ? null : 'img',
      ...attrs,
    },
    h('span', { class: 'corner', 'aria-hidden': 'true' }, h('b', {}, rankLabel(card)), h('i', {}, suit)),
    h('span', { class: 'pip', 'aria-hidden': 'true' }, suit),
  );
}

export function cardBack(classes = '') {
  return h('span', { class: `card back ${classes}`.trim(), 'aria-hidden': 'true' });
}

/** A row of cards (a meld, or loose deadwood), each face up. */
export function cardGroup(cards, { label = '', classes = '', mark = new Set() } = {}) {
  return h(
    'span',
    { class: `group ${classes}`.trim(), role: label ? 'group' : null, 'aria-label': label || null },
    cards.map((c) => cardFace(c, { classes: mark.has(c) ? 'laid' : '' })),
  );
}
