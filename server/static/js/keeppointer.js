// What the mouse is over stays under it while a list redraws. The lobby's lists grow
// and shrink as others open tables and send challenges; a row added above the button a
// player was reaching for (a challenge arriving above the open tables, a table above
// theirs) moved the button a row down, and the press landed on what had come under the
// pointer: another table's Join, a challenge's Decline. The page now scrolls by what the
// change moved the element under the pointer, as browsers' own scroll anchoring does for
// content added above the window (which does nothing for content added inside it).
// A touch has no pointer resting anywhere, so only a mouse's counts.

let pointer = null; // {x, y} in the window, while a mouse is over the page

function follow(event) {
  pointer = event.pointerType === 'mouse' ? { x: event.clientX, y: event.clientY } : null;
}

addEventListener('pointermove', follow, { capture: true, passive: true });
addEventListener('pointerdown', follow, { capture: true, passive: true });
document.documentElement.addEventListener('pointerleave', () => { pointer = null; });

/** ``change()``, with the page scrolled by what it moved the element under the mouse. */
export function keepingPointerStill(change) {
  const under = pointer && document.elementFromPoint(pointer.x, pointer.y);
  const before = under ? under.getBoundingClientRect().top : 0;
  const result = change();
  if (under && under.isConnected) {
    const moved = under.getBoundingClientRect().top - before;
    if (moved) window.scrollBy({ top: moved, behavior: 'instant' });
  }
  return result;
}
