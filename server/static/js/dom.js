// A tiny element builder: text goes in as text nodes, so player names can never inject markup,
// a name isolated in a string (names.js: FSI … PDI) becomes a <bdi> element, and a card
// written as its symbols ("7♠", "10♦") becomes an image named in words ("seven of spades"):
// a screen reader said "7 black spade suit", or skipped the symbol.
import { ISOLATED } from './names.js';

const CARD_TEXT = /(?<![\w♣♦♥♠])(10|[2-9AJQK])([♣♦♥♠])/gu;
const RANK_WORD = { A: 'ace', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight', 9: 'nine', 10: 'ten', J: 'jack', Q: 'queen', K: 'king' };
const SUIT_WORD = { '♣': 'clubs', '♦': 'diamonds', '♥': 'hearts', '♠': 'spades' };

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    if (child instanceof Node) el.append(child);
    else appendText(el, String(child));
  }
}

/** Text, its isolated spans as <bdi> elements: the name keeps its own direction and
 * cannot reorder the words around it (the markers themselves are not kept). */
function appendText(el, text) {
  const parts = text.split(ISOLATED); // odd indices: the isolated spans
  parts.forEach((part, i) => {
    if (i % 2) {
      const bdi = document.createElement('bdi');
      bdi.textContent = part;
      el.append(bdi);
    } else if (part) {
      appendCards(el, part);
    }
  });
}

/** Text with each card in it ("drew 7♠") as a role="img" span named in words: the symbols
 * stay on screen (and in the element's text), a screen reader says "seven of spades". */
function appendCards(el, text) {
  let at = 0;
  for (const match of text.matchAll(CARD_TEXT)) {
    if (match.index > at) el.append(document.createTextNode(text.slice(at, match.index)));
    const card = document.createElement('span');
    card.setAttribute('role', 'img');
    card.setAttribute('aria-label', `${RANK_WORD[match[1]]} of ${SUIT_WORD[match[2]]}`);
    const symbols = document.createElement('span'); // as on a card's face: shown, not read
    symbols.setAttribute('aria-hidden', 'true');
    symbols.textContent = match[0];
    card.append(symbols);
    el.append(card);
    at = match.index + match[0].length;
  }
  if (at < text.length) el.append(document.createTextNode(text.slice(at)));
}

export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Words a screen reader says as part of a control's name that the eye does not need
 * (the row around it shows them): "Join" is heard as "Join Ada's table (…)". */
export const heard = (text) => h('span', { class: 'visually-hidden' }, text);

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
