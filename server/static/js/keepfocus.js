// A list redrawn while the keyboard is in it: the lobby reads its lists again every few
// seconds and drew them anew, so a player on a Copy, Cancel or Accept button was dropped
// to the top of the page at each read. The focused control is found again in the new
// list by what it is (its test id, else its tag) and its row (the row's table or
// player, else its place in the list). A row a read leaves unchanged stays the node it
// was: redrawn, a Join or Accept pressed as a read (or the list socket's news of another
// table) came lost its click, the press on the old button and the release on the new.
import { fill } from './dom.js';
import { keepingPointerStill } from './keeppointer.js';

/** ``fill(el, ...children)``, the keyboard kept on the control it was on; a child equal
 * to one shown is kept as it is (every action of these lists is keyed by what its row
 * shows: its table or player), and nothing is touched if none changed. */
export function refill(el, ...children) {
  const shown = [...el.childNodes];
  const next = [...fill(document.createElement(el.tagName), ...children).childNodes].map((node, i) => {
    const same = shown[i] && shown[i].isEqualNode(node) ? i : shown.findIndex((old) => old && old.isEqualNode(node));
    if (same < 0) return node;
    const old = shown[same];
    shown[same] = null; // kept once
    return old;
  });
  if (next.length === el.childNodes.length && next.every((node, i) => node === el.childNodes[i])) return el;
  keepingPointerStill(() => replaceIn(el, next));
  return el;
}

/** ``el``'s children made ``next``, the keyboard kept on the control it was on. */
function replaceIn(el, next) {
  const active = document.activeElement;
  const place = active && active !== el && el.contains(active) ? placeOf(active) : null;
  // In place, not replaceChildren: a kept node taken out and put back (as replaceChildren
  // does with every child) loses a click pressed on it, as a new node would (Chromium
  // sends none when the pressed node leaves the document before the release). The
  // nodes not kept go, the new ones are put around the kept ones, which stay put while
  // their order holds (rows keep their order: by opening time).
  const keep = new Set(next);
  for (const node of [...el.childNodes]) if (!keep.has(node)) node.remove();
  next.forEach((node, i) => {
    const there = el.childNodes[i] || null;
    if (there !== node) el.insertBefore(node, there);
  });
  if (!place) return;
  const again = [...el.querySelectorAll(place.selector)].find((each) => rowOf(each) === place.row);
  if (again && again !== document.activeElement) again.focus({ preventScroll: true });
}

function placeOf(control) {
  const testid = control.dataset && control.dataset.testid;
  return { selector: testid ? `[data-testid="${CSS.escape(testid)}"]` : control.tagName.toLowerCase(), row: rowOf(control) };
}

/** The row a control is in, as a key that a redraw keeps. */
function rowOf(control) {
  const row = control.closest('li');
  if (!row) return null;
  return row.dataset.table || row.dataset.player || String([...row.parentElement.children].indexOf(row));
}
