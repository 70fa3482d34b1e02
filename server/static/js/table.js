// The table, drawn from one PlayerView. Every enabled button is one of `view.legal`:
// the page never decides what is legal, it only offers what the engine listed.
// This file draws the table's areas: the scores, the opponent's cards, the piles, the turn
// line, the knocker's melds, the hand and its tools, the result. The buttons of the
// player's commands are in actionbar.js, the moves told in words in movelist.js, and what
// both ask of `view.legal` in legal.js.
import { h, fill, $, plural } from './dom.js';
import { byRank, cardBack, cardFace, cardGroup, cardName, longName } from './cards.js';
import { seatName } from './words.js';
import { handIsOver, handJustEnded, resultPanel, settlementPanel } from './results.js';
import { verifyButton } from './verify.js';
import { handGroups } from './arrange.js';
import { pref } from './prefs.js';
import { basePreset, knockTerms, ruleChanges } from './presets.js';
import { asAction, findLegal, forgoes, myTurn } from './legal.js';
import { actions } from './actionbar.js';
import { movesList } from './movelist.js';
import { titleTurn } from './ui.js';

/** The boxes a seat banked (one per hand won), with their count in words: no bare symbols. */
function boxes(n, boxBonus) {
  return h(
    'span',
    { class: 'boxes', title: `A box is banked for each hand won; each is worth ${boxBonus} points when the match ends` },
    n ? h('span', { class: 'box-marks', 'aria-hidden': 'true' }, '■'.repeat(n)) : null,
    ` ${plural(n, 'box', 'boxes')}`,
  );
}

/** Whose move it is: during play only (at a hand's end both seats are asked to go on). */
const acting = (view, seat) => (handIsOver(view) ? false : view.to_act.includes(seat));

/** The rules in the score bar: the preset's name, and every rule a custom set changed. */
function rulesMeta(r) {
  const changes = ruleChanges(r);
  if (!changes.length) return [h('span', { 'data-testid': 'preset' }, `Rules: ${r.name}`), h('span', {}, `to ${r.target}`)];
  return [
    h('span', { 'data-testid': 'preset' }, `Rules: ${basePreset(r)}, changed:`),
    h('span', { class: 'changed', 'data-testid': 'rule-changes' }, changes.map((c) => h('span', { title: `the preset has ${c.preset}` }, c.now, h('small', {}, ` (was ${c.preset})`))),
    ),
  ];
}

function scoreBar(view) {
  const me = view.seat;
  const seatScore = (seat) =>
    h(
      'div',
      { class: `score ${acting(view, seat) ? 'acting' : ''}`.trim(), 'data-testid': `pill-${seat === me ? 'me' : 'opponent'}` },
      h('span', { class: 'who' }, seat === me ? `You (${view.players[seat]})` : view.players[seat]),
      h('b', { class: 'points', 'data-testid': `score-${seat === me ? 'me' : 'opponent'}` }, view.scores[seat]),
      h('span', { class: 'visually-hidden' }, ' points,'), // heard, not seen: "0 0 boxes" said nothing
      boxes(view.boxes[seat], view.rules.box_bonus),
    );
  const r = view.rules;
  return [
    seatScore(me),
    seatScore(1 - me),
    h(
      'div',
      { class: 'meta' },
      rulesMeta(r),
      h('span', {}, `hand ${view.hand_number}`),
      h('span', {}, knockTerms(view.knock_limit)),
    ),
  ];
}

function opponentArea(view, ui) {
  const opp = 1 - view.seat;
  const known = new Set(view.opponent_known);
  const hidden = Math.max(0, view.opponent_card_count - known.size);
  // Once a hand is scored, or the opponent has laid its hand down, its cards are shown
  // elsewhere. A match resigned (claimed, timed out) mid-hand scores no hand and shows none:
  // the cards stay face down here, or the label pointed at cards that were nowhere.
  const handOver =
    Boolean(handJustEnded(view)) || (view.phase === 'layoff' && view.knock && view.knock.seat === opp);
  const backs = Array.from({ length: handOver ? 0 : hidden }, (_, i) =>
    cardBack(i === hidden - 1 && ui.flash === 'opp-draw-stock' ? 'fly-in' : ''),
  );
  return [
    h('div', { class: 'label' }, `${view.players[opp]} · ${handOver ? 'cards face up below' : plural(view.opponent_card_count, 'card')}`),
    h(
      'div',
      { class: 'fan', 'data-testid': 'opponent-hand' },
      backs,
      byRank(handOver ? [] : view.opponent_known).map((c) =>
        cardFace(c, { classes: `known ${ui.flash === 'opp-draw-pile' && c === ui.flashCard ? 'fly-in' : ''}` }),
      ),
    ),
    view.opponent_known.length && !handOver
      ? h('div', { class: 'hint' }, `Known to hold: ${view.opponent_known.map(cardName).join(' ')}`)
      : null,
  ];
}

function piles(view, ui) {
  const top = view.discard_pile[view.discard_pile.length - 1];
  const under = view.discard_pile[view.discard_pile.length - 2];
  const fromPile = findLegal(view, 'draw_discard') || findLegal(view, 'take_up_card');
  const fromStock = findLegal(view, 'draw_stock');
  const flashPile = ui.flash === 'opp-discard' ? 'fly-down' : ui.flash === 'my-discard' ? 'fly-up' : '';
  return [
    h(
      'button',
      {
        type: 'button',
        class: `stock ${fromStock ? 'can' : ''} ${ui.flash === 'opp-draw-stock' ? 'pulse' : ''}`,
        disabled: !fromStock || ui.busy,
        dataset: fromStock ? { action: JSON.stringify(asAction(fromStock)) } : {},
        'aria-label': `Stock, ${plural(view.stock_size, 'card')}${fromStock ? ': draw' : ''}`,
        'data-testid': 'stock',
      },
      view.stock_size ? cardBack() : h('span', { class: 'card empty' }),
      h('span', { class: 'count', 'data-testid': 'stock-count' }, view.stock_size),
    ),
    h(
      'button',
      {
        type: 'button',
        class: `pile ${fromPile ? 'can' : ''}`,
        disabled: !fromPile || ui.busy,
        dataset: fromPile ? { action: JSON.stringify(asAction(fromPile)) } : {},
        'aria-label': top ? `Discard pile, ${longName(top)} on top${fromPile ? ': take it' : ''}` : 'Discard pile, empty',
        'data-testid': 'pile',
      },
      under ? cardFace(under, { classes: 'under' }) : null,
      top ? cardFace(top, { classes: `top ${flashPile}` }) : h('span', { class: 'card empty' }),
      h('span', { class: 'count', title: view.pile_draw_limit ? 'Face-up cards taken this hand; at the limit the hand is washed' : undefined },
        h('span', {}, `${view.discard_pile.length} in pile`),
        view.pile_draw_limit ? h('span', { 'data-testid': 'pile-draws' }, `Face-up taken: ${view.pile_draws} of ${view.pile_draw_limit}`) : null),
    ),
  ];
}

/** The no-progress rule, said once a hand comes near it (within a tenth of the limit, at
 * least the last two takes): the pile's count alone is easy to miss, and a phone cannot
 * show its tooltip. Null while the hand is far from it, or the rule is off. */
export function progressNote(view) {
  const limit = view.pile_draw_limit;
  if (!limit || handIsOver(view)) return null;
  const left = limit - view.pile_draws;
  if (left > Math.max(2, Math.ceil(limit / 10))) return null;
  const taken = `${view.pile_draws} of ${limit} face-up cards taken this hand`;
  return left > 0
    ? `No progress: ${taken}. At ${limit}, the next plain discard washes the hand (no score); a knock or gin still scores.`
    : `No progress: ${taken}. The next plain discard washes the hand (no score); a knock or gin still scores.`;
}

function turnText(view) {
  const opp = view.players[1 - view.seat];
  if (view.phase === 'match_over') return 'The match is over.';
  if (view.phase === 'hand_over') return 'The hand is over.';
  if (!myTurn(view)) {
    if (view.phase === 'layoff') return `${opp} is laying off…`;
    return `${opp} to play…`;
  }
  switch (view.phase) {
    case 'up_card':
      return 'Your turn: take the up-card or pass.';
    case 'draw':
      return findLegal(view, 'draw_discard')
        ? 'Your turn: draw from the stock or take the top of the pile.'
        : 'Your turn: draw from the stock.';
    case 'discard':
      return 'Your turn: pick a card to discard (or knock).';
    case 'layoff':
      return `${opp} knocked: lay off what you can on the melds.`;
    default:
      return '';
  }
}

/** The knocker's melds while the defender lays off (the laid-off cards marked). */
function knockArea(view, ui) {
  if (!view.knock || view.phase !== 'layoff') return [];
  const knocker = seatName(view.players, view.knock.seat, view.seat);
  const laid = new Set(view.layoffs.map(([card]) => card));
  return [
    h('div', { class: 'label' }, `${knocker} ${knocker === 'You' ? 'knock' : 'knocks'} with ${view.knock.deadwood_points} deadwood`),
    h(
      'div',
      { class: `melds ${ui.flash === 'knock' ? 'appear' : ''}` },
      view.knock_melds.map((meld, i) => cardGroup(meld, { label: `meld ${i + 1}`, mark: laid, classes: 'meld' })),
      view.knock.deadwood.length ? cardGroup(view.knock.deadwood, { label: 'deadwood', classes: 'deadwood' }) : null,
    ),
  ];
}

/** The card drawn this turn (stock or pile), marked until it is discarded. */
function drawnCard(view) {
  if (view.phase !== 'discard' || !myTurn(view)) return null;
  const last = view.moves[view.moves.length - 1];
  if (!last || last[0] !== view.seat || !['draw_stock', 'draw_discard', 'take_up_card'].includes(last[1])) return null;
  return last[2];
}

function myHand(view, ui) {
  const discardable = view.phase === 'discard' && myTurn(view);
  const drawn = drawnCard(view);
  const cardButton = (card) => {
    const playable = discardable && view.legal.some((cmd) => cmd.card === card);
    const classes = [
      card === ui.selected && discardable ? 'selected' : '',
      card === view.taken ? 'taken' : '',
      card === drawn ? 'drawn' : '',
      card === ui.fresh ? 'fresh' : '',
      playable ? 'playable' : '',
    ].join(' ');
    // Never disabled: any card can be moved within the hand, on any turn.
    const title = card === view.taken ? 'Taken from the pile: it cannot be discarded this turn' : card === drawn ? 'Drawn this turn' : null;
    return cardFace(card, {
      button: true,
      classes,
      attrs: {
        'aria-pressed': discardable ? String(card === ui.selected) : null,
        'aria-description': card === drawn ? 'drawn this turn' : null,
        title,
      },
    });
  };
  return handGroups(view, pref('sort'), ui.order).map(({ kind, cards }) =>
    h('span', { class: `group ${kind}`, role: kind === 'hand' ? null : 'group', 'aria-label': kind === 'hand' ? null : kind }, cards.map(cardButton)),
  );
}

const SORTS = [
  ['melds', 'Melds'],
  ['rank', 'Rank'],
  ['suit', 'Suit'],
];

/** Sorting, hints and the deck's colours, above the hand; the choices are remembered. A
 * match dealt without hints (``view.hints`` false: the server sends no advice) says so. */
function handTools(view, ui) {
  const noAdvice = view.hints === false;
  const sort = ui.order ? 'own' : pref('sort');
  return [
    h(
      'span',
      { class: 'sorts', role: 'group', 'aria-label': 'Sort the hand' },
      h('span', { class: 'hint' }, 'Sort '),
      SORTS.map(([value, label]) =>
        h('button', { type: 'button', class: 'tool', dataset: { sort: value }, 'data-testid': `sort-${value}`, 'aria-pressed': String(sort === value) }, label),
      ),
      ui.order ? h('span', { class: 'hint', 'data-testid': 'own-order' }, ' · your order') : null,
    ),
    h(
      'label',
      { class: 'tool-check' },
      h('input', { type: 'checkbox', dataset: { pref: 'hints' }, 'data-testid': 'hints-toggle', checked: pref('hints') && !noAdvice, disabled: noAdvice }),
      noAdvice ? ' Hints: off in this match (chosen at the deal)' : ' Hints',
    ),
    h(
      'label',
      { class: 'tool-check' },
      h('input', { type: 'checkbox', dataset: { pref: 'fourColour' }, 'data-testid': 'four-colour-toggle', checked: pref('fourColour') }),
      ' Four colours',
    ),
  ];
}

/** The hint in words: the best discard, or the way out it opens. Gin (and big gin) is
 * always the best move, so the hint says it instead of a discard "leaving 0"; a knock is
 * named with the discard, as whether to knock or play on is the player's choice (the
 * engine's advice is the discard, not the knock). */
function bestMove(view) {
  const [card, left] = view.best_discard;
  const way = forgoes(view, card);
  if (way === 'big gin') return 'go big gin: all eleven cards meld';
  if (way === 'gin') return `go gin with ${cardName(card)}`;
  if (way === 'knock') return `knock with ${cardName(card)} (or discard it), leaving ${left}`;
  return `discard ${cardName(card)}, leaving ${left}`;
}

function deadwoodLine(view) {
  const parts = [
    h('span', {}, 'Deadwood '),
    h('b', { 'data-testid': 'deadwood' }, view.arrangement.deadwood_points),
    h('span', {}, ` · ${plural(view.arrangement.melds.length, 'meld')}`),
  ];
  if (view.best_discard && pref('hints')) {
    parts.push(h('span', { class: 'hint', 'data-testid': 'best-discard' }, ` · hint: ${bestMove(view)}`));
  }
  return parts;
}

export function renderTable(view, ui) {
  document.body.dataset.phase = view.phase;
  document.body.dataset.version = String(view.version);
  document.body.dataset.myTurn = String(myTurn(view));
  titleTurn(myTurn(view));
  fill($('#scorebar'), scoreBar(view));
  fill($('#opponent'), opponentArea(view, ui));
  fill($('#piles'), piles(view, ui));
  // The turn line is a live region: written again unchanged (every redraw, every arrow
  // key choosing a card) it was announced again.
  // (Compared as written: a name's isolating marks are not kept in the page's text.)
  const turn = turnText(view);
  if ($('#turn').dataset.text !== turn) {
    fill($('#turn'), turn);
    $('#turn').dataset.text = turn;
  }
  const note = progressNote(view);
  fill($('#progress-note'), note || '');
  $('#progress-note').hidden = !note;
  fill($('#knockarea'), knockArea(view, ui));
  $('#knockarea').hidden = !(view.knock && view.phase === 'layoff');
  const over = handIsOver(view);
  $('#mine').hidden = over;
  fill($('#hand'), over ? [] : myHand(view, ui));
  fill($('#hand-tools'), over ? [] : handTools(view, ui));
  fill($('#deadwood-line'), over ? [] : deadwoodLine(view));
  fill($('#actions'), actions(view, ui));
  const result = $('#result');
  const panels = [];
  const ended = handJustEnded(view);
  if (ended) panels.push(resultPanel(view, ended, view.knock, view.seat));
  if (view.settlement) {
    panels.push(settlementPanel(view, view.settlement, view.seat, { claim: ui.claimed || (ui.claimKnown ? null : undefined), rating: ui.rating }), verifyButton(view.match_id));
  }
  fill(result, panels);
  result.hidden = panels.length === 0;
  fill($('#moves'), movesList(view, ui));
}
