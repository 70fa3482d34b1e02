// What the lobby's modules share (lobby.js, lobbylive.js, mytables.js, challenges.js): the
// lobby's state, one object, so that each reads and changes the same lists and sockets
// without a global; and the guest player this browser plays as, made once however many
// of those modules ask for it at the same time.
import { $ } from './dom.js';
import { api, saveCreatedPlayer, savedPlayer } from './api.js';

export const lobby = {
  stream: null,
  list: null,
  tables: new Map(), // the public open tables, from the live list
  poll: null,
  root: null,
  known: null,
  mine: new Map(), // table id → this player's own open tables (no invitee)
  sent: new Map(), // table id → open challenges this player sent
  accepted: new Set(), // match ids of sent challenges accepted meanwhile
  opened: new Set(), // match ids of our tables or challenges taken, opened (or told of) already
  reads: 0, // the newest refresh: an older answer arriving later is dropped
  visits: 0, // the page's moves (hash changes): a join's answer after the player left is dropped
};

// Counted here, not where the lobby is drawn: signing in from an invite draws it again,
// and a join pressed meanwhile was still pressed where the player is.
window.addEventListener('hashchange', () => {
  lobby.visits += 1;
});

let creating = null; // the guest being made, which a Join pressed meanwhile waits for

/** A guest player for this browser, made from the name field if there is none yet: one,
 * however many ask at once (a Join pressed while "Enter the lobby" was on its way made a
 * second guest, whose seat the page, signed in as the first, could not play). */
export function ensurePlayer() {
  const player = savedPlayer();
  if (player) return Promise.resolve(player);
  if (creating) return creating;
  const field = $('#lobby-name');
  const name = field ? field.value.trim() : '';
  if (!name) {
    if (field) field.focus(); // where the name goes: the toast asks for it, the keyboard is there
    return Promise.reject(new Error('Please enter your name first.'));
  }
  creating = api
    .createPlayer(name)
    .then(saveCreatedPlayer)
    .finally(() => {
      creating = null;
    });
  return creating;
}

export const waitingForSomeone = () => lobby.mine.size > 0 || lobby.sent.size > 0;
