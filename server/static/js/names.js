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

// A name is at most NAME_LENGTH characters as the server counts them, after NFC
// composition (domain/text.py, ``length``). An input's maxlength counts UTF-16 units,
// two for an emoji and two for a letter typed with a combining accent: a box of
// maxlength 40 stopped such a name the server takes half-way. A name's box takes
// twice the server's cap on what is sent, and keeps the first NAME_LENGTH characters.
export const NAME_LENGTH = 40;
export const NAME_BOX_UNITS = 400;

/** ``input``, a box for a name (or the start of one): what is typed or pasted past
 * NAME_LENGTH characters, counted as the server counts them, is cut off, as typed. */
export function takesAName(input) {
  input.addEventListener('input', () => {
    const chars = [...input.value];
    const counted = () => [...chars.join('').normalize('NFC')].length;
    if (counted() <= NAME_LENGTH) return;
    while (chars.length && counted() > NAME_LENGTH) chars.pop();
    input.value = chars.join('');
  });
  return input;
}

/** ``text`` isolated from the words around it. */
export const isolate = (text) => `${FSI}${String(text).replace(BIDI_CONTROLS, '')}${PDI}`;

/** The isolated spans of a string (dom.js turns each into a <bdi>). */
export const ISOLATED = /\u2068([^\u2066-\u2069]*)\u2069/;

// Names are not unique: the server keeps only the two players seen together (a match in
// play, a challenge) from passing for each other. Anywhere else two players in one list
// may share a name (the leaderboard, a search, old matches, the lobby's tables), so a
// name shown beside another that passes for it gets the start of its player's id. The
// comparison is a lighter one than the server's (domain/text.py, ``comparable``): NFKC,
// without case, spaces and what shows nothing; the look-alike letters of other scripts
// are the server's to refuse in the matches where it counts.
const TAG_LENGTH = 6;
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}\u2800\u3164\uffa0\u115f\u1160]/gu;

/** A name in the form two names that look alike share. */
export const nameKey = (name) => String(name).normalize('NFKC').replace(INVISIBLE, '').toLowerCase();

/** The ids among ``refs`` (players shown together) whose names pass for another's. */
function clashing(refs) {
  const ids = new Map(); // name key → the ids that go by it
  for (const ref of refs || []) {
    if (!ref || ref.kind === 'ai' || !ref.id) continue;
    const key = nameKey(ref.name);
    ids.set(key, (ids.get(key) || new Set()).add(ref.id));
  }
  return new Set([...ids.values()].filter((set) => set.size > 1).flatMap((set) => [...set]));
}

/** A seat or a table's host as the page names it: a person by the name they chose, a bot
 * marked "(bot)", the house AI by its level. With ``among`` (the players shown with it),
 * a name that passes for another's there is told apart by the start of its id ("Ada
 * #3f9a2c"). */
export function refName(ref, among = null) {
  if (!ref) return '?';
  if (ref.kind === 'ai') return `Computer (${ref.name})`;
  const name = ref.kind === 'bot' ? `${isolate(ref.name)} (bot)` : isolate(ref.name);
  return Array.isArray(among) && clashing(among).has(ref.id) ? `${name} #${ref.id.slice(0, TAG_LENGTH)}` : name;
}
