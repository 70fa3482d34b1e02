// The player's actions on the table, sent over HTTP one at a time (``game.inFlight``):
// a move, the best layoffs one by one, a resignation (asked twice), a claim. Each answer's
// events join the play-out (playout.js); a 409 (the match moved on) fetches the match anew.
import { api, ApiError } from './api.js';
import { $, sleep } from './dom.js';
import { findLegal, forgoes } from './legal.js';
import { cardName } from './cards.js';
import { problemText, toast } from './ui.js';
import { game, remember } from './matchstate.js';
import { draw, setBusy } from './matchdraw.js';
import { catchUp, offer, showView } from './playout.js';
import { claimRefusedAsEarly } from './claimwatch.js';

export async function act(action) {
  const open = game.open;
  if (game.inFlight || game.running || !game.view || !open) return false;
  game.inFlight = true;
  setBusy();
  const base = game.latest || game.view;
  try {
    const answer = await api.act(open.id, action, base.version);
    if (game.open !== open) return false; // the answer of a match the page has left
    remember(answer.view);
    for (const item of answer.events) offer(item.version, item.event);
    return true;
  } catch (err) {
    if (game.open !== open) return false;
    toast(problemText(err));
    if (err instanceof ApiError && err.status === 409) {
      const fresh = await api.getMatch(open.id).catch(() => null);
      if (fresh && game.open === open) {
        remember(fresh.view);
        game.maxQueued = Math.max(game.maxQueued, fresh.view.version);
        showView(fresh.view, null);
      }
    }
    return false;
  } finally {
    if (game.open === open) {
      game.inFlight = false;
      setBusy();
      catchUp();
    }
  }
}

const settled = async () => {
  while (game.running || game.inFlight) await sleep(20);
};

/** "Lay off the best": the engine's suggested layoffs one by one, then finish. */
async function layOffBest() {
  for (let guard = 0; guard < 12; guard++) {
    await settled();
    const view = game.latest;
    if (!view || view.phase !== 'layoff' || !view.to_act.includes(view.seat)) return;
    const plan = view.suggested_layoffs;
    const next = plan && plan.layoffs.find(([card, meld]) => findLegal(view, 'lay_off', { card, meld }));
    const ok = next
      ? await act({ type: 'lay_off', card: next[0], meld: next[1] })
      : await act({ type: 'finish_layoffs' });
    if (!ok || !next) return;
  }
}

/** An action button's ``data-action``: a move, "layoff-best" or "discard-ask". */
export function runAction(el) {
  const action = JSON.parse(el.dataset.action);
  if (action === 'layoff-best') return layOffBest();
  if (action === 'discard-ask') return askDiscard();
  return act(action);
}

const WAY_OUT = {
  'big gin': () => 'big gin: Big gin (B) goes out',
  gin: (card) => `gin: Gin with ${card} (G) goes out`,
  knock: (card) => `the knock: Knock with ${card} (K) goes out`,
};

/** A discard that gives up a gin or knock (legal.js forgoes) is asked about first: the
 * Discard button asks again (actionbar.js) and takes the keyboard, and the player is told
 * how to go out instead. A second press, or D, discards. */
function askDiscard() {
  const view = game.view;
  const card = game.ui.selected;
  const way = view && card ? forgoes(view, card) : null;
  if (!way) return;
  game.ui.confirmDiscard = { card, version: view.version };
  draw();
  const button = $('#actions [data-testid=discard]:not([disabled])');
  if (button) button.focus();
  toast(`Discarding ${cardName(card)} gives up ${WAY_OUT[way](cardName(card))}. Press Discard (D) again to discard it and play on.`, 'info');
}

/** The discard asked about called off (Escape): true if there was one. */
export function keepWayOut() {
  const asked = game.ui.confirmDiscard;
  game.ui.confirmDiscard = null;
  // Asked about another card or turn: no question is open, the key is not taken.
  if (!asked || !game.view || asked.card !== game.ui.selected || asked.version !== game.view.version) return false;
  draw();
  return true;
}

/** Resigning loses the match at once, so the first click only asks. */
export async function resign() {
  if (!game.ui.confirmResign) {
    game.ui.confirmResign = true;
    draw();
    return;
  }
  game.ui.confirmResign = false;
  await act({ type: 'resign' });
}

/** The resignation called off (Keep playing, or Escape): the keyboard goes back to Resign,
 * the button that asked. */
export function keepPlaying() {
  if (!game.ui.confirmResign) return false;
  game.ui.confirmResign = false;
  draw();
  const again = $('#actions [data-nav=resign]');
  if (again) again.focus();
  return true;
}

/** Claim the match from an opponent who is not playing it. The answer is the settled view;
 * the socket brings the claim's events. Too early (a 409 ``claim_too_early``: the opponent
 * came back) takes the offer back and says so in plain words (claimwatch.js). */
export async function claim() {
  const open = game.open;
  if (game.inFlight || !open) return;
  game.inFlight = true;
  setBusy();
  try {
    const answer = await api.claim(open.id);
    if (game.open !== open) return;
    remember(answer.view);
  } catch (err) {
    if (game.open !== open) return;
    if (err instanceof ApiError && err.problem.rule === 'claim_too_early' && game.view) await claimRefusedAsEarly(game.view);
    else toast(problemText(err));
  } finally {
    if (game.open === open) {
      game.inFlight = false;
      setBusy();
      catchUp();
    }
  }
}
