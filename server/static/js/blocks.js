// Blocking a player (POST /v1/me/blocks, DELETE /v1/me/blocks/{id}, GET /v1/me/blocks;
// docs/api.md, "Blocking a player"): the Block button offered where a person meets another
// (a challenge in the lobby, the lobby's lists, a match's chat), its confirmation, and the
// "Blocked players" list with its Unblock buttons. The page never offers to block the
// player themself or the house AI (`ai:*`): the server would refuse both.
//
// Blocking is consequential (the other can no longer challenge you or sit at your tables,
// and their chat is hidden from you), so the button asks first, in place: the question
// and its two answers take the button's spot, the keyboard goes to "Cancel" (as the
// sign-out question's safe answer), and Escape calls it off. Each button's accessible name
// says whom it is about ("Block Ada", "Unblock Ada"): a row of "Block" buttons said nothing.
import { $, fill, h } from './dom.js';
import { api, savedPlayer } from './api.js';
import { announce, problemText, toast } from './ui.js';
import { refName } from './names.js';

const blocks = { of: null, players: new Map(), loading: null };

/** Whom this browser's player may block: a person or a bot, not themself, not the house AI. */
export function blockable(ref) {
  const me = savedPlayer();
  return Boolean(me && ref && ref.id && ref.kind !== 'ai' && !String(ref.id).startsWith('ai:') && ref.id !== me.id);
}

export const isBlocked = (id) => blocks.of === (savedPlayer() || {}).id && blocks.players.has(id);

/** The player's blocks, read again from the server (GET /v1/me/blocks). */
export async function loadBlocks() {
  const me = savedPlayer();
  if (!me) {
    blocks.of = null;
    blocks.players = new Map();
    return blocks.players;
  }
  if (blocks.loading) return blocks.loading;
  blocks.loading = (async () => {
    try {
      const { blocks: list } = await api.blocks();
      blocks.of = me.id;
      blocks.players = new Map(list.map((b) => [b.player.id, b]));
      changed();
    } finally {
      blocks.loading = null;
    }
    return blocks.players;
  })();
  return blocks.loading;
}

/** Whoever shows blocks (the lobby's list, the chat) hears of a change here. */
const changed = () => document.dispatchEvent(new Event('ginrummy:blocks-changed'));

/** A Block's question called off (or its block refused): a list it kept from being drawn
 * anew (a table opened or closed meanwhile, a challenge that came) is drawn now, not at
 * its socket's next frame or the lobby's next read (up to 15 s on). */
const closed = () => document.dispatchEvent(new Event('ginrummy:block-question-closed'));

/** A screen-reader-only tail that names whom a button is about. */
const about = (ref) => h('span', { class: 'visually-hidden' }, ` ${refName(ref)}`);

let questions = 0;

/** A "Block" button for ``ref`` that asks first; ``onBlocked(ref)`` runs once the server
 * has the block; ``focusAfter()`` names where the keyboard goes if the row it was in is
 * gone by then (the lobby re-reads its lists). Null for someone the page never blocks. */
export function blockButton(ref, { onBlocked = () => {}, focusAfter = () => null } = {}) {
  if (!blockable(ref)) return null;
  const slot = h('span', { class: 'block-slot' });
  const button = h('button', { type: 'button', 'data-testid': 'block', 'data-player': ref.id, onclick: () => ask() }, 'Block', about(ref));
  const back = () => {
    fill(slot, button);
    button.focus();
    closed();
  };
  const ask = () => {
    const id = `block-question-${++questions}`;
    const no = h('button', { type: 'button', 'data-testid': 'block-no', onclick: back }, 'Cancel');
    const yes = h('button', { type: 'button', class: 'danger', 'data-testid': 'block-yes', onclick: () => confirm(yes) }, `Block ${refName(ref)}`);
    fill(
      slot,
      h(
        'span',
        {
          class: 'block-confirm',
          role: 'group',
          'aria-labelledby': id,
          'data-testid': 'block-confirm',
          'data-player': ref.id,
          onkeydown: (event) => {
            if (event.key === 'Escape') back();
          },
        },
        h('span', { id }, `Block ${refName(ref)}? They can no longer challenge you or sit at your tables, and their chat messages are hidden from you. They are not told. `),
        yes,
        ' ',
        no,
      ),
    );
    no.focus();
  };
  const confirm = async (yes) => {
    yes.disabled = true;
    try {
      await blockPlayer(ref);
    } catch (err) {
      toast(problemText(err));
      back();
      return;
    }
    const dropped = () => !document.activeElement || document.activeElement === document.body;
    const had = slot.contains(document.activeElement) || dropped();
    fill(slot, h('span', { class: 'hint', 'data-testid': 'blocked-note' }, 'Blocked.'));
    // The keyboard goes on at once, not after the lists' reads: it was on the "yes", now gone.
    if (had) focusAfter()?.focus();
    await onBlocked(ref);
    if (dropped()) focusAfter()?.focus(); // a list redrawn by the reads took it away
  };
  fill(slot, button);
  return slot;
}

/** Block ``ref`` at the server; said to screen readers. */
export async function blockPlayer(ref) {
  const made = await api.block(ref.id);
  blocks.of = savedPlayer().id;
  blocks.players.set(ref.id, made);
  announce(`You blocked ${refName(ref)}. They can no longer challenge you; unblock them under Blocked players in the lobby.`);
  changed();
  return made;
}

/** Unblock ``ref`` at the server; said to screen readers. */
export async function unblockPlayer(ref) {
  await api.unblock(ref.id);
  blocks.players.delete(ref.id);
  announce(`You unblocked ${refName(ref)}. They may challenge you again.`);
  changed();
}

/** An "Unblock" button for ``ref`` (its name says whom); ``onUnblocked(ref)`` after. */
export function unblockButton(ref, { onUnblocked = () => {}, testid = 'unblock' } = {}) {
  const button = h(
    'button',
    {
      type: 'button',
      'data-testid': testid,
      'data-player': ref.id,
      // Not disabled while asking: a disabled button drops the keyboard to the page's top.
      onclick: async () => {
        if (button.getAttribute('aria-disabled') === 'true') return;
        button.setAttribute('aria-disabled', 'true');
        try {
          await unblockPlayer(ref);
          await onUnblocked(ref);
        } catch (err) {
          toast(problemText(err));
          button.removeAttribute('aria-disabled');
        }
      },
    },
    'Unblock',
    about(ref),
  );
  return button;
}

/** "Blocked players": a section that lists the player's blocks, each with Unblock, and
 * follows every change made on this page. ``onChange()`` runs after an unblock made here
 * (the lobby reads its challenges again). */
export function blockedSection({ onChange = () => {} } = {}) {
  const list = h('ul', { id: 'blocked', 'data-testid': 'blocked-players', 'aria-labelledby': 'blocked-title' });
  const section = h(
    'section',
    { class: 'blocked', 'aria-labelledby': 'blocked-title' },
    h('h2', { id: 'blocked-title', tabindex: '-1' }, 'Blocked players'),
    h('p', { class: 'hint' }, 'A player you block cannot challenge you or sit at your tables, and you no longer see their chat. They are not told.'),
    list,
  );
  const render = () => {
    if (!section.isConnected) {
      document.removeEventListener('ginrummy:blocks-changed', render);
      return;
    }
    const players = [...blocks.players.values()].sort((a, b) => (a.blocked_at < b.blocked_at ? 1 : -1));
    const had = list.contains(document.activeElement) ? document.activeElement.dataset.player : null;
    fill(
      list,
      players.length
        ? players.map((b) =>
            h(
              'li',
              { 'data-testid': 'blocked-player', 'data-player': b.player.id },
              `${refName(b.player, players.map((each) => each.player))} `,
              unblockButton(b.player, { onUnblocked: onChange }),
            ),
          )
        : h('li', { class: 'hint' }, 'Nobody.'),
    );
    // The Unblock pressed is gone with its row: the keyboard goes to the next one, or to
    // the list's heading (it was dropped to the page's top).
    if (had !== null && !list.contains(document.activeElement)) {
      const next = $('[data-testid=unblock]', list) || $('#blocked-title', section);
      next.focus();
    }
  };
  document.addEventListener('ginrummy:blocks-changed', render);
  queueMicrotask(() => {
    render();
    loadBlocks().catch((err) => toast(problemText(err)));
  });
  return section;
}

/** A challenge refused because the player blocks its invitee (409 you_block_this_player):
 * said in ``where`` with an Unblock button that takes the keyboard. True if it was that. */
export function offerUnblock(err, ref, where, { onUnblocked = () => {} } = {}) {
  if (!(err && err.problem && err.problem.rule === 'you_block_this_player') || !where) return false;
  const button = unblockButton(ref, { onUnblocked, testid: 'unblock-to-challenge' });
  fill(where, h('span', { 'data-testid': 'you-block' }, `You block ${refName(ref)}: unblock them to challenge them. `), button);
  announce(`You block ${refName(ref)}: unblock them to challenge them.`);
  button.focus();
  return true;
}
