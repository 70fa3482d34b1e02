// The player's choices for the page, kept in this browser's localStorage: how the hand is
// sorted, whether the engine's hints show, the four-colour deck, the last opponent and rules,
// the two computers last watched, whether the first-match tour was dismissed, and the clock
// and rating last asked for a table or challenge in the lobby (timecontrol.js), and the
// clock last asked of the computer (startclock.js).
const KEY = 'ginrummy.prefs';

const HOUSE_LEVELS = ['random', 'easy', 'medium', 'hard', 'baseline'];
// ``clock``: a key of timecontrol.js CLOCK_CHOICES (which checks it); ``clockCustom``: the
// player's own clock, as typed; ``rated``: a table or challenge under a preset is rated
// unless the player says not (the server's own default). ``startClock`` and
// ``startClockCustom``: the same for the start form's match against the computer.
const DEFAULTS = { sort: 'melds', hints: false, fourColour: false, level: 'medium', preset: 'arcadia', tourSeen: false, houseLevel0: 'easy', houseLevel1: 'hard', clock: 'none', clockCustom: null, rated: true, startClock: 'none', startClockCustom: null };
const CHOICES = { sort: ['melds', 'rank', 'suit'], level: HOUSE_LEVELS, preset: ['arcadia', 'arkadium', 'classic'], houseLevel0: HOUSE_LEVELS, houseLevel1: HOUSE_LEVELS };

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
