// The rules screen (#/rules, #/rules/MATCH_ID): the game in the page's own short words,
// the presets, worked scoring examples, a link to the full rule book (/rules.md, served by
// this server), and, opened from a match, that match's rules with what differs from its
// preset marked.
import { fill, h, plural } from './dom.js';
import { api, savedMatch, savedPlayer } from './api.js';
import { PRESETS, PRESET_ABOUT, basePreset, ruleChanges, rulesLine } from './presets.js';
import { resetTour } from './tour.js';

const section = (title, ...body) => h('section', { class: 'rules-part' }, h('h2', {}, title), ...body);
const p = (...text) => h('p', {}, ...text);

/** The no-progress rule in the numbers of the match being played (its view's rules), or,
 * opened from no match, the presets' (they all wash a hand at the same count). */
function noProgress(rules) {
  const presets = PRESETS.arcadia.pile_draw_limit;
  const limit = rules ? rules.pile_draw_limit : presets;
  const washes = 'the next plain discard washes the hand: no score, no box, the same dealer deals again. A knock, gin or big gin is still scored normally.';
  if (limit === null || limit === undefined) {
    return section(
      'No progress',
      h('p', { 'data-testid': 'no-progress-rule', dataset: { limit: 'off' } }, 'Off in this match: a hand goes on however many face-up cards are taken, until someone knocks or the stock runs down to two cards.'),
      p(`Under the presets a hand that makes no progress is washed: once ${presets} face-up cards are taken between the players in one hand (the up-card and every draw from the discard pile count; stock draws do not), ${washes}`),
    );
  }
  return section(
    'No progress',
    h('p', { 'data-testid': 'no-progress-rule', dataset: { limit: String(limit) } },
      rules ? 'In this match, a' : 'A',
      ` hand is washed when it makes no progress: once the players have taken ${limit} face-up cards between them in one hand (the up-card and every draw from the discard pile count; stock draws do not), ${washes}`),
    p(`The label under the discard pile counts them ("Face-up taken: 3 of ${limit}"), and the table says so when a hand comes near the limit.`),
  );
}

/** The aim in the match's target and winner rule, or, opened from no match, the presets'
 * (all play to 100; classic's winner is the highest total, not the first to the target).
 * It said "first to the target (100 points)" whatever the match's rules. */
function aim(rules) {
  const play = 'Make melds, keep your loose cards low, and';
  if (!rules) {
    return section('The aim', p(`${play} score hand points over several hands until someone reaches the target (100 points under every preset). In arcadia and arkadium the first to the target wins; in classic the highest total after the boxes does.`));
  }
  const target = plural(rules.target, 'point');
  return section('The aim', h('p', { 'data-testid': 'rules-aim' }, rules.winner_by === 'highest_total'
    ? `In this match: ${play.toLowerCase()} score hand points over several hands until someone reaches the target (${target}); then the highest total after the boxes wins.`
    : `In this match: ${play.toLowerCase()} be first to the target (${target}) over several hands.`));
}

/** Knocking under the match's knock limit: its number, gin only, or Oklahoma's up-card
 * (``handLimit``: the limit of the hand being played), or the presets' 10. */
function knocking(rules, handLimit) {
  const rest = ' Both hands are shown; the other player may lay cards off, then the lower deadwood wins the hand.';
  if (rules && rules.oklahoma) {
    const now = handLimit === null || handLimit === undefined ? '' : handLimit === 0 ? ' (this hand: gin only)' : ` (this hand: ${handLimit})`;
    return section('Knocking', h('p', { 'data-testid': 'rules-knocking' }, 'After drawing you may ', h('b', {}, 'knock'), ` when a discard leaves you no more deadwood than the knock limit. In this match (Oklahoma) each hand's up-card sets it: its value, face cards 10, an ace gin only${now}.${rest}`));
  }
  if (rules && rules.knock_limit === 0) {
    return section('Knocking', h('p', { 'data-testid': 'rules-knocking' }, 'In this match the knock limit is 0: nobody may ', h('b', {}, 'knock'), ' with deadwood left, only go gin.'));
  }
  const limit = rules ? rules.knock_limit : PRESETS.arcadia.knock_limit;
  return section('Knocking', h('p', rules ? { 'data-testid': 'rules-knocking' } : {}, 'After drawing you may ', h('b', {}, 'knock'), ` when a discard leaves you ${limit} or less deadwood (the knock limit${rules ? ' of this match' : ''}).${rest}`));
}

/** The game in short: each part says what the player sees at the table. The aim, knocking
 * and the no-progress rule are slots, filled anew with a match's own rules. */
function basics({ aimSlot, knockSlot, noProgressSlot }) {
  return [
    aimSlot,
    section(
      'Melds and deadwood',
      p(h('b', {}, 'Melds'), ' are sets (three or four of a rank: 7♦ 7♥ 7♠) and runs (three or more in a row of one suit: 4♣ 5♣ 6♣). A card counts in one meld only. The ace is low: A 2 3 is a run, Q K A and K A 2 are not.'),
      p(h('b', {}, 'Deadwood'), ' is every card in no meld. Aces count 1, number cards their number, J Q K count 10. The page always arranges your melds for the least deadwood.'),
    ),
    section('A turn', p('Draw one card (from the stock, face down, or the top of the pile, face up), then discard one; a card just taken from the pile cannot be thrown straight back. On the first turn the up-card is offered to the non-dealer, then to the dealer; if both pass, the non-dealer draws from the stock.')),
    knockSlot,
    section(
      'Gin and big gin',
      p(h('b', {}, 'Gin'), ' is a knock with no deadwood at all: you score the gin bonus plus all of the other player\'s deadwood, and nothing may be laid off.'),
      p(h('b', {}, 'Big gin'), ' (classic only, or a custom rule set): all eleven cards meld right after you draw; it scores the big-gin bonus plus their deadwood.'),
    ),
    section('Laying off', p('After a plain knock (never after gin or big gin) the defender may add cards to the knocker\'s melds: a fourth card to a set, or a card at either end of a run. Those cards stop counting as deadwood.')),
    section('The undercut', p('If the defender ends with deadwood equal to or lower than the knocker\'s, the defender wins the hand: the difference plus the undercut bonus. A tie is an undercut.')),
    noProgressSlot,
    section('Boxes and the match bonus', p('Each hand won banks a ', h('b', {}, 'box'), '. When someone reaches the target, every box is worth the box bonus, and the winner adds the ', h('b', {}, 'match bonus'), '. If the stock runs down to two cards with no knock, the hand is a wash: nobody scores.')),
  ];
}

const PRESET_WORDS = {
  arcadia: 'The default, the Arcadia game. The first to 100 hand points wins.',
  arkadium: 'As Arkadium\'s online game: smaller bonuses, and a shutout (the loser won no hand) pays 200 instead of the match bonus.',
  classic: 'The card-room game: big gin pays 31, there is no match bonus, and the highest total after the boxes wins.',
};

function presets() {
  return section(
    'The presets',
    h('dl', { class: 'preset-list', 'data-testid': 'rules-presets' }, Object.keys(PRESETS).map((name) => [
      h('dt', { dataset: { preset: name } }, name),
      h('dd', {}, PRESET_WORDS[name], ' ', h('span', { class: 'hint' }, PRESET_ABOUT[name])),
    ])),
    p('Any preset can be changed when you deal ("Change the rules"): the target, the knock limit, the bonuses, or ', h('b', {}, 'Oklahoma'), ', where each hand\'s up-card sets the knock limit (an ace: gin only).'),
  );
}

function examples() {
  return section(
    'Worked examples',
    h('ol', { class: 'examples', 'data-testid': 'rules-examples' },
      h('li', {}, 'Knock (arcadia): you knock with 2 deadwood. The other player lays off 6♣ on your run and keeps 35. You score 35 − 2 = ', h('b', {}, '33'), '.'),
      h('li', {}, 'Undercut (arcadia): you knock with 8. The other player lays off three cards and keeps 1. They score (8 − 1) + 25 = ', h('b', {}, '32'), '.'),
      h('li', {}, 'A match (arcadia): Ada reaches 104 hand points having won 5 hands, Bo 62 with 3. Boxes: Ada 5 × 25 = 125, Bo 75. Ada adds the match bonus 100: ', h('b', {}, 'Ada 329, Bo 137'), '.'),
    ),
  );
}

const LABEL = {
  knock_limit: 'Knock limit', gin_bonus: 'Gin bonus', undercut_bonus: 'Undercut bonus', big_gin_bonus: 'Big gin bonus',
  box_bonus: 'Box bonus', target: 'Target', match_bonus: 'Match bonus', shutout_bonus: 'Shutout bonus',
  winner_by: 'Match winner', oklahoma: 'Oklahoma', pile_draw_limit: 'Pile takes before the no-progress rule',
};
const shown = (field, v) => (v === null ? 'none' : field === 'winner_by' ? (v === 'highest_total' ? 'highest total' : 'first to the target') : typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v));

/** The knock limit in force: with Oklahoma the field is ignored (docs/rules.md), and "10"
 * read as if the limit were 10; it is each hand's up-card (``handLimit``: this hand's). */
function knockLimitShown(rules, handLimit) {
  if (!rules.oklahoma) return shown('knock_limit', rules.knock_limit);
  const now = handLimit === null || handLimit === undefined ? '' : handLimit === 0 ? ', this hand gin only' : `, this hand ${handLimit}`;
  return `the up-card's value (Oklahoma${now})`;
}

/** A match's whole rule set, each field against its preset's; the changed ones marked
 * (the knock limit too when Oklahoma sets it instead). */
function matchRules(rules, handLimit) {
  const preset = PRESETS[basePreset(rules)] || {};
  const changed = new Set(ruleChanges(rules).map((c) => c.field));
  if (rules.oklahoma && !preset.oklahoma) changed.add('knock_limit');
  const value = (f) => (f === 'knock_limit' ? knockLimitShown(rules, handLimit) : shown(f, rules[f]));
  return section(
    'This match\'s rules',
    p(h('span', { 'data-testid': 'match-rules-line' }, rulesLine(rules)), changed.size ? ' — the marked rows differ from the preset.' : ' — the preset as it is.'),
    h('table', { class: 'match-rules', 'data-testid': 'match-rules' },
      h('thead', {}, h('tr', {}, h('th', {}, 'rule'), h('th', {}, 'this match'), h('th', {}, `${basePreset(rules)}`))),
      h('tbody', {}, Object.keys(LABEL).filter((f) => f in rules).map((f) =>
        h('tr', { class: changed.has(f) ? 'changed' : null, dataset: { field: f, changed: String(changed.has(f)) } },
          h('th', {}, LABEL[f]), h('td', {}, value(f), changed.has(f) ? h('span', { class: 'changed-mark' }, ' changed') : null), h('td', {}, f in preset ? shown(f, preset[f]) : '')))),
    ),
  );
}

export function showRules(root, matchId, { onError } = {}) {
  const slot = h('div', { 'data-testid': 'match-rules-slot' });
  // the presets' numbers until the match's rules come, or for good when opened from no match
  const progress = h('div', { 'data-testid': 'no-progress-slot' }, noProgress(null));
  const aimSlot = h('div', { 'data-testid': 'aim-slot' }, aim(null));
  const knockSlot = h('div', { 'data-testid': 'knocking-slot' }, knocking(null));
  const back = matchId ? h('p', {}, h('a', { href: `#/match/${encodeURIComponent(matchId)}` }, '← Back to the match')) : null;
  fill(
    root,
    h('h1', { id: 'rules-title' }, 'How to play'),
    back,
    slot,
    basics({ aimSlot, knockSlot, noProgressSlot: progress }),
    presets(),
    examples(),
    section(
      'More',
      p(h('a', { href: '/rules.md', 'data-testid': 'rule-book', target: '_blank', rel: 'noopener' }, 'The full rule book'), ' has every rule and every choice the engine makes.'),
      p(h('button', { type: 'button', 'data-testid': 'tour-again', onclick: () => tourAgain(matchId) }, 'Show the table tour again')),
    ),
  );
  if (matchId && savedPlayer()) {
    api.getMatch(matchId).then((data) => {
      const { rules, knock_limit: handLimit } = data.view;
      fill(slot, matchRules(rules, handLimit));
      fill(progress, noProgress(rules));
      fill(aimSlot, aim(rules));
      fill(knockSlot, knocking(rules, handLimit));
    }).catch((e) => onError && onError(e));
  }
}

/** The tour shows on the next table opened: this match's, the last one's, or the next dealt. */
function tourAgain(matchId) {
  resetTour();
  const id = matchId || (savedPlayer() && savedMatch());
  location.hash = id ? `#/match/${encodeURIComponent(id)}` : '#/';
}
