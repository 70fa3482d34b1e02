// The player's choices for the page, kept in this browser's localStorage: how the hand is
// sorted, whether the engine's hints show, the four-colour deck, the last opponent and rules,
// the two computers last watched, and whether the first-match tour was dismissed.
const KEY = 'ginrummy.prefs';

const HOUSE_LEVELS = ['random', 'easy', 'medium', 'hard', 'baseline'];
const DEFAULTS = { sort: 'melds', hints: false, fourColour: false, level: 'medium', preset: 'arcadia', tourSeen: false, houseLevel0: 'easy', houseLevel1: 'hard' };
const CHOICES = { sort: ['melds', 'rank', 'suit'], level: ['easy', 'medium', 'hard', 'baseline'], preset: ['arcadia', 'arkadium', 'classic'], houseLevel0: HOUSE_LEVELS, houseLevel1: HOUSE_LEVELS };

function read() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || '{}') || {};
  } catch {
    return {};
  }
}

/** One preference, or its default when unset or no longer a valid choice. */
export function pref(name) {
  const value = read()[name];
  if (value === undefined || value === null) return DEFAULTS[name];
  if (CHOICES[name] && !CHOICES[name].includes(value)) return DEFAULTS[name];
  if (typeof DEFAULTS[name] === 'boolean') return value === true;
  return value;
}

export function setPref(name, value) {
  localStorage.setItem(KEY, JSON.stringify({ ...read(), [name]: value }));
  applyPrefs();
}

/** What the stylesheet needs to know (the four-colour deck) goes on <body>. */
export function applyPrefs() {
  document.body.classList.toggle('four-colour', pref('fourColour'));
}
