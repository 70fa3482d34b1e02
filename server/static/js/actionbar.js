// The action bar under the hand: a button for each command the viewer may send (take or
// pass the up-card, draw, discard, knock, gin, lay off, finish, next hand), each one of
// `view.legal`, with its key (tablekeys.js); the choice of melds a knock lays down when
// several leave the same deadwood (knocklayout.js); Resign, Claim, and at the match's end
// New match, the rematch and the replay. Apart from table.js, which draws the rest of the
// table and puts this bar in #actions, so that what a player may press lives in one place
// and the table's drawing in another. The clicks are match.js's.
import { h } from './dom.js';
import { byRank, cardGroup, cardName } from './cards.js';
import { tableTerms } from './terms.js';
import { asAction, findLegal, forgoes, myTurn } from './legal.js';

function actionButton(label, cmd, { key = null, busy = false, classes = '', testid = null } = {}) {
  return h(
    'button',
    {
      type: 'button',
      class: `act ${classes}`.trim(),
      disabled: !cmd || busy,
      dataset: cmd ? { action: JSON.stringify(asAction(cmd)), ...(key ? { key } : {}) } : {},
      'data-testid': testid,
      'aria-keyshortcuts': key ? key.toUpperCase() : null,
    },
    label,
    // The key is said by aria-keyshortcuts: in the name it read "PassX".
    key ? h('kbd', { 'aria-hidden': 'true' }, key.toUpperCase()) : null,
  );
}

export function actions(view, ui) {
  if (view.phase === 'match_over') {
    return [
      h('button', { type: 'button', class: 'act', dataset: { nav: 'new', key: 'n' }, 'aria-keyshortcuts': 'N' }, 'New match', h('kbd', { 'aria-hidden': 'true' }, 'N')),
      ui.rematch && ui.rematch.offer
        ? [
            // The offer's terms (rules, rated, clock), said before it is accepted: the
            // server sets them (a clock raised to today's floor), not the old match.
            h('p', { class: 'hint', 'data-testid': 'rematch-offer' }, `${view.players[1 - view.seat]} offers a rematch: `, h('span', { id: 'rematch-terms', 'data-testid': 'rematch-terms' }, tableTerms(ui.rematch.offer)), '.'),
            h('button', { type: 'button', class: 'act primary', dataset: { nav: 'rematch' }, 'data-testid': 'rematch-accept', 'aria-describedby': 'rematch-terms' }, 'Accept the rematch'),
            h('button', { type: 'button', class: 'act', dataset: { nav: 'rematch-decline' }, 'data-testid': 'rematch-decline' }, 'Decline'),
          ]
        : ui.rematch && ui.rematch.mine
        ? [
            // Our own offer, with the same terms the opponent is shown with it. The button
            // pressed stays focusable (aria-disabled): disabled, it lost the keyboard,
            // which the redraw sent on to New match.
            h('p', { class: 'hint', 'data-testid': 'rematch-mine' }, `You offered a rematch to ${view.players[1 - view.seat]}: `, h('span', { id: 'rematch-mine-terms', 'data-testid': 'rematch-terms' }, tableTerms(ui.rematch.mine)), '.'),
            h('button', { type: 'button', class: 'act primary', dataset: { nav: 'rematch' }, 'data-testid': 'rematch', 'aria-disabled': 'true', 'aria-describedby': 'rematch-mine-terms' }, 'Rematch offered: waiting…'),
          ]
        : h('button', { type: 'button', class: 'act primary', dataset: { nav: 'rematch' }, 'data-testid': 'rematch' }, 'Rematch'),
      h('button', { type: 'button', class: 'act', dataset: { nav: 'replay' }, 'data-testid': 'open-replay' }, 'Replay this match'),
    ];
  }
  const resign = h(
    'button',
    { type: 'button', class: `act resign ${ui.confirmResign ? 'danger' : ''}`.trim(), dataset: { nav: 'resign' }, 'data-testid': ui.confirmResign ? 'resign-confirm' : 'resign' },
    ui.confirmResign ? 'Really resign? The match is lost' : 'Resign',
  );
  // The question answered no, in a button as the sign-out's is (Escape too, tablekeys.js):
  // only a click elsewhere called it off, so a keyboard player could not.
  const keepPlaying = ui.confirmResign
    ? h('button', { type: 'button', class: 'act', dataset: { nav: 'resign-cancel' }, 'data-testid': 'resign-cancel' }, 'Keep playing')
    : null;
  if (!myTurn(view)) {
    const waiting = view.phase === 'hand_over'
      ? [h('p', { class: 'hint', 'data-testid': 'waiting-ready' }, `Waiting for ${view.players[1 - view.seat]} to be ready for the next hand…`)]
      : [];
    return [...waiting, ...claimActions(ui), resign, keepPlaying];
  }
  return [...playActions(view, ui), ...claimActions(ui), resign, keepPlaying];
}

/** The opponent seems gone (``ui.claim`` says why): the claim is offered; or it left and a
 * claim is not accepted yet (``ui.away`` says from when). No live region: drawn anew at
 * every redraw, each is said once as it appears (tablenotices.js). */
function claimActions(ui) {
  if (ui.away) return [h('p', { class: 'hint away-notice', 'data-testid': 'away-notice' }, ui.away)];
  if (!ui.claim) return [];
  return [
    h('p', { class: 'hint claim-notice', 'data-testid': 'claim-notice' }, ui.claim),
    h('button', { type: 'button', class: 'act primary', dataset: { nav: 'claim' }, 'data-testid': 'claim', disabled: ui.busy }, 'Claim the match'),
  ];
}

function playActions(view, ui) {
  const busy = ui.busy;
  const out = [];
  if (view.phase === 'up_card' || view.phase === 'draw') {
    const take = findLegal(view, 'take_up_card');
    const pass = findLegal(view, 'pass_up_card');
    if (take || pass) {
      const top = view.discard_pile[view.discard_pile.length - 1];
      out.push(actionButton(`Take the up-card ${top ? cardName(top) : ''}`, take, { key: 't', busy, testid: 'take-up-card' }));
      out.push(actionButton('Pass', pass, { key: 'x', busy, testid: 'pass' }));
    }
    const stock = findLegal(view, 'draw_stock');
    const pile = findLegal(view, 'draw_discard');
    if (stock || view.phase === 'draw') out.push(actionButton('Draw from stock', stock, { key: 's', busy, testid: 'draw-stock' }));
    if (view.phase === 'draw') out.push(actionButton('Take from pile', pile, { key: 'p', busy, testid: 'draw-pile' }));
  }
  if (view.phase === 'discard') {
    const sel = ui.selected;
    // "Knock with 7♥" once a card is chosen; before, the bare verb (the status asks for a card).
    const naming = (verb, joint) => (sel ? `${verb}${joint}${cardName(sel)}` : verb);
    out.push(discardButton(view, ui, sel, naming('Discard', ' ')));
    const layouts = sel ? knockLayouts(view, sel) : [];
    const chosen = layouts.length > 1 ? chosenLayout(view, ui, sel, layouts) : 0;
    if (layouts.length > 1) out.push(layoutChooser(layouts, chosen));
    const knock = sel && findLegal(view, 'knock', { card: sel });
    // The default is what a knock without a layout lays; another choice is sent as its melds.
    const knockCmd = knock && chosen > 0 ? { ...knock, layout: layouts[chosen].melds } : knock;
    out.push(actionButton(naming('Knock', ' with '), knockCmd, { key: 'k', busy, classes: 'knock', testid: 'knock' }));
    out.push(actionButton(naming('Gin', ' with '), sel && findLegal(view, 'gin', { card: sel }), { key: 'g', busy, classes: 'gin', testid: 'gin' }));
    if (view.rules.big_gin_bonus !== null) {
      out.push(actionButton('Big gin', findLegal(view, 'big_gin'), { key: 'b', busy, classes: 'gin', testid: 'big-gin' }));
    }
    const knockCards = view.legal.filter((c) => c.type === 'knock' || c.type === 'gin').map((c) => c.card);
    if (knockCards.length) {
      out.push(h('p', { class: 'hint', 'data-testid': 'knock-hint' }, `You can knock discarding ${[...new Set(knockCards)].map(cardName).join(', ')}.`));
    }
  }
  if (view.phase === 'layoff') out.push(...layoffActions(view, busy));
  if (view.phase === 'hand_over') {
    out.push(actionButton('Next hand', findLegal(view, 'next_hand'), { key: 'n', busy, classes: 'primary', testid: 'next-hand' }));
  }
  // "Lay off the best" is a shortcut handled by the page, not a single engine command.
  for (const el of out) if (el.dataset && el.dataset.testid === 'layoff-best') el.dataset.action = '"layoff-best"';
  return out;
}

const GO_OUT = { 'big gin': 'go big gin', gin: 'go gin', knock: 'knock' };

/** Discard (D). A discard that gives up a gin or knock legal with that card (or a big gin)
 * is asked about once: the first press only asks (moves.js), the button then reads "Really
 * discard 3♠ and not go gin?", and a second press (D again) discards. One press, or the
 * hint's card chosen for the player, threw the way out away for good. */
function discardButton(view, ui, sel, label) {
  const cmd = sel && findLegal(view, 'discard', { card: sel });
  const way = cmd ? forgoes(view, sel) : null;
  if (!way) return actionButton(label, cmd, { key: 'd', busy: ui.busy, testid: 'discard' });
  const asked = ui.confirmDiscard && ui.confirmDiscard.card === sel && ui.confirmDiscard.version === view.version;
  if (asked) {
    return actionButton(`Really discard ${cardName(sel)} and not ${GO_OUT[way]}?`, cmd, { key: 'd', busy: ui.busy, classes: 'danger', testid: 'discard' });
  }
  const button = actionButton(label, cmd, { key: 'd', busy: ui.busy, testid: 'discard' });
  button.dataset.action = '"discard-ask"';
  return button;
}

/** The least-deadwood layouts a knock discarding ``card`` may lay down (the default first). */
function knockLayouts(view, card) {
  const entry = (view.knock_layouts || []).find((o) => o.discard === card);
  return entry ? entry.layouts : [];
}

/** The layout the player picked for this discard: the default (0) until they pick another. */
function chosenLayout(view, ui, card, layouts) {
  const mine = ui.layout && ui.layout.card === card && ui.layout.version === view.version;
  const picked = mine ? ui.layout.index : 0;
  return picked < layouts.length ? picked : 0;
}

/** Ten cards that meld more than one way at the same deadwood: the player picks which melds
 * to lay down. The engine's suggestion (the fewest cards the defender could lay off, as far
 * as you can tell) comes first and is preselected. */
function layoutChooser(layouts, chosen) {
  return h(
    'div',
    { class: 'layouts', role: 'radiogroup', 'aria-label': 'Melds to lay down', 'data-testid': 'knock-layouts' },
    h('div', { class: 'label' }, 'Lay down as:'),
    layouts.map((layout, i) => h(
      'button',
      {
        type: 'button',
        role: 'radio',
        class: `layout ${i === chosen ? 'chosen' : ''}`.trim(),
        'aria-checked': String(i === chosen),
        // One stop for the group, on the chosen layout; the arrows move among them (knocklayout.js).
        tabindex: i === chosen ? '0' : '-1',
        dataset: { layout: String(i) },
        'data-testid': 'knock-layout',
        title: i === 0 ? 'Suggested: leaves the fewest cards the other player could lay off, from what you have seen' : null,
      },
      layout.melds.map((m) => cardGroup(m, { classes: 'meld' })),
      layout.deadwood.length ? cardGroup(byRank(layout.deadwood), { classes: 'deadwood', label: 'deadwood' }) : null,
      h('small', { 'data-testid': 'layout-deadwood' }, `deadwood ${layout.deadwood_points}`),
      i === 0 ? h('small', {}, ' · suggested') : null,
    )),
  );
}

/** The defender's choices. The engine's best plan is no hint: the rules have it offered to
 * every defender, so it is shown whenever the server sent one, whatever the Hints tick; when
 * no layoff would lower the deadwood, the page says so. */
function layoffActions(view, busy) {
  const out = [];
  const finish = findLegal(view, 'finish_layoffs');
  const layoffs = view.legal.filter((c) => c.type === 'lay_off');
  const plan = view.suggested_layoffs;
  const n = plan ? plan.layoffs.length : 0;
  if (plan && n) {
    out.push(actionButton(`Lay off the best (${n}) and finish`, finish, { key: 'l', busy, classes: 'best', testid: 'layoff-best' }));
  }
  for (const cmd of layoffs) {
    const meld = view.knock_melds[cmd.meld] || [];
    out.push(actionButton(`Lay off ${cardName(cmd.card)} on ${meld.map(cardName).join(' ')}`, cmd, { busy, testid: 'layoff' }));
  }
  const label = !layoffs.length ? 'Nothing to lay off: finish' : plan && !n ? 'Keep my melds: finish' : 'Done laying off';
  out.push(actionButton(label, finish, { key: 'f', busy, testid: 'finish-layoffs' }));
  if (plan && !n && layoffs.length) {
    const cards = [...new Set(layoffs.map((c) => cardName(c.card)))].join(', ');
    out.push(h('p', { class: 'hint', 'data-testid': 'layoff-why' },
      `Laying off ${cards} would not lower your deadwood: ${layoffs.length > 1 ? 'each is' : 'it is'} part of one of your own melds, so your deadwood stays ${view.arrangement.deadwood_points}.`));
  }
  return out;
}
