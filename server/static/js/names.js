// User-supplied text (players' names, chat messages) shown among the page's own words.
// A name may hold bidirectional controls: the server refuses them in new names, but one
// chosen before that rule is kept as typed, and an unclosed right-to-left override in it
// (U+202E) reversed the rest of the line it was shown in. So every such text is
// isolated: its controls are dropped, as the server drops them from chat (a <bdi> alone
// is not enough: in Chromium a stray pop-isolate, U+2069, inside one closes it and lets
// an override after it out), and it is wrapped in FSI … PDI, the plain-text form of an
// isolate, which keeps it isolated wherever the string goes (a toast, a narration, an
// attribute); dom.js renders each FSI … PDI span as a <bdi> element.

const FSI = '\u2068';
const PDI = '\u2069';
// The bidi controls domain/text.py refuses in names and removes from chat.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** ``text`` isolated from the words around it. */
export const isolate = (text) => `${FSI}${String(text).replace(BIDI_CONTROLS, '')}${PDI}`;

/** The isolated spans of a string (dom.js turns each into a <bdi>). */
export const ISOLATED = /\u2068([^\u2066-\u2069]*)\u2069/;

/** A seat or a table's host as the page names it: a person by the name they chose, a bot
 * marked "(bot)", the house AI by its level. */
export function refName(ref) {
  if (!ref) return '?';
  if (ref.kind === 'ai') return `Computer (${ref.name})`;
  return ref.kind === 'bot' ? `${isolate(ref.name)} (bot)` : isolate(ref.name);
}
