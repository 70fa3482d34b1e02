// A message from the opponent while the chat is out of sight: on a phone the chat is far
// below the table, and a message was said only to screen readers; the eye never saw it.
// A line on the table (#chat-note) says who wrote what, with a button to the chat; it
// goes once the chat is in sight.
import { $, fill, h } from './dom.js';

let watching = null; // the IntersectionObserver of the chat shown

const inSight = (el) => {
  const box = el.getBoundingClientRect();
  return box.top < window.innerHeight && box.bottom > 0;
};

/** Tell ``words`` ("Kai: hi") on the table if ``panel`` (the chat) is out of sight. */
export function noteMessage(panel, words) {
  const note = $('#chat-note');
  if (!note || note.closest('.screen').hidden || !panel || !panel.isConnected || inSight(panel)) return; // a spectator's screen has none
  const read = () => {
    panel.scrollIntoView({ block: 'nearest' });
    const input = $('[data-testid=chat-input]', panel);
    if (input) input.focus({ preventScroll: true });
    clearNote();
  };
  fill(note, h('span', {}, 'New message from ', words, ' '), h('button', { type: 'button', class: 'link', 'data-testid': 'chat-note-read', onclick: read }, 'Read the chat'));
  note.hidden = false;
  if (watching) watching.disconnect();
  watching = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) clearNote();
  });
  watching.observe(panel);
}

/** The chat was seen, or closed with its match. */
export function clearNote() {
  const note = $('#chat-note');
  if (note) {
    note.hidden = true;
    fill(note);
  }
  if (watching) watching.disconnect();
  watching = null;
}
