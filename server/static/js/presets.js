// The presets' rules, as domain/rules.py PRESETS has them (tests/e2e/test_page_layout.py
// checks they agree), so the page can say what a custom rule set changed.
export const PRESETS = {
  arcadia: {
    name: 'arcadia', knock_limit: 10, gin_bonus: 25, undercut_bonus: 25, big_gin_bonus: null, box_bonus: 25,
    target: 100, match_bonus: 100, shutout_bonus: null, winner_by: 'first_to_target', oklahoma: false, pile_draw_limit: 100,
  },
  arkadium: {
    name: 'arkadium', knock_limit: 10, gin_bonus: 20, undercut_bonus: 10, big_gin_bonus: null, box_bonus: 20,
    target: 100, match_bonus: 100, shutout_bonus: 200, winner_by: 'first_to_target', oklahoma: false, pile_draw_limit: 100,
  },
  classic: {
    name: 'classic', knock_limit: 10, gin_bonus: 25, undercut_bonus: 25, big_gin_bonus: 31, box_bonus: 25,
    target: 100, match_bonus: 0, shutout_bonus: null, winner_by: 'highest_total', oklahoma: false, pile_draw_limit: 100,
  },
};

/** A preset in a line, for the start form. */
export const PRESET_ABOUT = {
  arcadia: 'Gin 25, undercut 25, box 25, match bonus 100; first to 100 wins.',
  arkadium: 'Gin 20, undercut 10, box 20, shutout 200; first to 100 wins.',
  classic: 'Big gin 31, gin 25, undercut 25; the highest total wins.',
};

/** A knock limit in words: 0 lets no one knock, so "knock ≤ 0" read as a rule to work out. */
export const knockTerms = (limit) => (limit === 0 ? 'gin only' : `knock ≤ ${limit}`);

const FIELD = {
  knock_limit: knockTerms,
  gin_bonus: (v) => `gin bonus ${v}`,
  undercut_bonus: (v) => `undercut bonus ${v}`,
  big_gin_bonus: (v) => (v === null ? 'no big gin' : `big gin ${v}`),
  box_bonus: (v) => `box ${v}`,
  target: (v) => `to ${v}`,
  match_bonus: (v) => `match bonus ${v}`,
  shutout_bonus: (v) => (v === null ? 'no shutout bonus' : `shutout ${v}`),
  winner_by: (v) => (v === 'highest_total' ? 'highest total wins' : 'first to the target wins'),
  oklahoma: (v) => (v ? 'Oklahoma' : 'no Oklahoma'),
  pile_draw_limit: (v) => (v === null ? 'no pile limit' : `pile limit ${v}`),
};

/** The preset a rule set starts from ("arkadium+custom" → "arkadium"). */
export const basePreset = (rules) => String(rules.name || '').split('+')[0];

/** What a rule set changes from its preset: [{ field, now, preset }] in words; [] for a preset. */
export function ruleChanges(rules) {
  const preset = PRESETS[basePreset(rules)];
  if (!preset) return [];
  return Object.keys(FIELD)
    .filter((field) => field in rules && rules[field] !== preset[field])
    .map((field) => ({ field, now: FIELD[field](rules[field]), preset: FIELD[field](preset[field]) }));
}

/** "arkadium, changed: knock ≤ 5 (was knock ≤ 10)" in one line; the name alone for a preset. */
export function rulesLine(rules) {
  const changes = ruleChanges(rules);
  const base = basePreset(rules);
  if (!changes.length) return base;
  return `${base}, changed: ${changes.map((c) => `${c.now} (was ${c.preset})`).join(', ')}`;
}
