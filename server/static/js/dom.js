// A tiny element builder: text goes in as text nodes, so player names can never inject markup,
// and a name isolated in a string (names.js: FSI … PDI) becomes a <bdi> element.
import { ISOLATED } from './names.js';

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
      el.append(document.createTextNode(part));
    }
  });
}

export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
