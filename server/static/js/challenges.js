// Challenges: a player found by name is challenged to a match on the terms chosen under
// "Challenge a player by name"; those sent are listed with their Cancel, those received
// with Accept, Decline and Block, and one that comes while the lobby is open is told to
// screen readers. Also what follows a Block or an Unblock pressed in the lobby (its lists
// read again and redrawn). Apart from lobby.js, which reads the challenges with the rest
// of the lobby and hands them here to be drawn.
import { $, fill, h, heard } from './dom.js';
import { api, savedPlayer } from './api.js';
import { announce, problemText, toast } from './ui.js';
import { rememberTable } from './share.js';
import { refill } from './keepfocus.js';
import { tableTerms } from './terms.js';
import { isolate, refName } from './names.js';
import { profileLink } from './profilelink.js';
import { ratingText } from './ratingtext.js';
import { blockButton, isBlocked, offerUnblock } from './blocks.js';
import { chosenTerms, clearProblem, rememberTerms, showProblem } from './timecontrol.js';
import { ensurePlayer, lobby } from './lobbystate.js';
import { follow } from './lobbylive.js';
import { refresh, toMatch } from './lobby.js';

/** An incoming challenge as its Accept and Decline name it: "Ada's challenge (…)". */
const offered = (c, among) => `${refName(c.host, among)}'s ${c.rematch_of ? 'rematch offer' : 'challenge'} (${tableTerms(c)})`;

/** The challenges sent and received, each list with its buttons. */
export function renderChallenges(incoming, outgoing) {
  const shown = [...outgoing.map((c) => c.invitee), ...incoming.map((c) => c.host)]; // told apart if alike
  refill(
    $('#outgoing'),
    outgoing.length
      ? outgoing.map((c) =>
          h(
            'li',
            { 'data-testid': 'sent-challenge', 'data-table': c.table_id },
            c.rematch_of
              ? `You offered ${refName(c.invitee, shown)} a rematch (${tableTerms(c)}) `
              : `You challenged ${refName(c.invitee, shown)} (${tableTerms(c)}) `,
            h('button', { type: 'button', 'data-testid': 'cancel-challenge', onclick: () => cancelChallenge(c.table_id) }, 'Cancel', heard(` your ${c.rematch_of ? 'rematch offer' : 'challenge'} to ${refName(c.invitee, shown)}`)),
          ),
        )
      : h('li', { class: 'hint' }, 'None.'),
  );
  if (asking($('#incoming'))) return; // a Block being confirmed there is not wiped
  refill(
    $('#incoming'),
    incoming.length
      ? incoming.map((c) =>
          h(
            'li',
            { 'data-table': c.table_id }, // a new challenge above keeps Accept on this one
            c.rematch_of
              ? `${refName(c.host, shown)} offers you a rematch (${tableTerms(c)}) `
              : `${refName(c.host, shown)} challenges you (${tableTerms(c)}) `,
            h('button', { type: 'button', class: 'primary', 'data-testid': 'accept', onclick: () => accept(c.table_id) }, 'Accept', heard(` ${offered(c, shown)}`)),
            h('button', { type: 'button', 'data-testid': 'decline', onclick: () => api.declineChallenge(c.table_id).then(refresh) }, 'Decline', heard(` ${offered(c, shown)}`)),
            ' ',
            blockButton(c.host, { onBlocked: afterBlock, focusAfter: blockedTitle }),
          ),
        )
      : h('li', { class: 'hint' }, 'None yet.'),
  );
}

/** A challenge that comes while the lobby is open is told to screen readers (the list is
 * redrawn every few seconds, silently); those already there when it opened are not. */
export function sayNewChallenges(incoming) {
  const told = lobby.heard; // not ``heard``: dom.js's, the words a control is heard with
  lobby.heard = new Set(incoming.map((c) => c.table_id));
  if (told === null) return;
  for (const c of incoming) {
    if (told.has(c.table_id)) continue;
    const what = c.rematch_of ? 'offers you a rematch' : 'challenges you';
    announce(`${refName(c.host)} ${what} (${tableTerms(c)}): Accept or Decline under Challenges for you.`);
  }
}

async function cancelChallenge(tableId) {
  try {
    await api.cancelChallenge(tableId);
    lobby.sent.delete(tableId);
    lobby.reads += 1;
    refresh();
  } catch (err) {
    toast(problemText(err));
    refresh();
  }
}

async function accept(tableId) {
  const visit = lobby.visits;
  try {
    const joined = await api.acceptChallenge(tableId);
    rememberTable(joined.table);
    toMatch(joined.match.match_id, visit);
  } catch (err) {
    toast(problemText(err));
  }
}

/** A player found, or chosen on their profile, as the list under "Challenge a player by
 * name" shows them: the name (a link to the profile), the rating, Challenge and Block.
 * The bots waiting for a challenge are listed the same way (``testid`` tells them apart). */
const foundRow = (p, others, testid = 'found-player') =>
  h(
    'li',
    { 'data-testid': testid, 'data-player': p.id },
    profileLink(p, others),
    ' ',
    // Two players of one name differ by a tag; the rating says more of who is who.
    p.rating ? h('span', { class: 'hint', 'data-testid': 'found-rating' }, `rated ${ratingText(p.rating)} `) : null,
    h('button', { type: 'button', 'data-testid': 'challenge', onclick: (event) => challenge(p, event.target.closest('li')) }, 'Challenge', heard(` ${refName(p, others)}`)),
    isBlocked(p.id) ? h('span', { class: 'hint' }, ' (you block this player)') : [' ', blockButton(p, { onBlocked: afterBlock, focusAfter: blockedTitle })],
  );

export async function findPlayers(event) {
  event.preventDefault();
  const name = $('#find-name').value.trim();
  if (!name) {
    // Said, not ignored: the last search's players stayed listed as if they matched.
    fill($('#found'), h('li', { class: 'hint' }, 'Type a name to find, then press Find.'));
    return;
  }
  try {
    const me = await ensurePlayer();
    follow(me);
    const { players } = await api.findPlayers(name);
    const others = players.filter((p) => p.id !== me.id);
    fill(
      $('#found'),
      others.length
        ? others.map((p) => foundRow(p, others))
        : h('li', { class: 'hint' }, others.length < players.length ? `Only you have a name starting with "${isolate(name)}": challenge someone else.` : `Nobody called "${isolate(name)}".`),
    );
  } catch (err) {
    toast(problemText(err));
  }
}

/** The lobby opened from a player's profile (#/challenge/ID): that player listed under
 * "Challenge a player by name", as a search would list them, their Challenge focused
 * with the terms above it to choose first. Signed out, the lobby asks for a name first
 * and then lists them. */
export async function chooseToChallenge(playerId) {
  const me = savedPlayer();
  if (!me) return;
  try {
    const player = await api.player(playerId);
    if (document.body.dataset.screen !== 'lobby' || player.id === me.id || player.kind === 'ai') return;
    $('#find-name').value = player.name;
    fill($('#found'), foundRow(player, [player]));
    $('#found [data-testid=challenge]').focus();
  } catch (err) {
    toast(problemText(err));
  }
}

/** The bots waiting for a challenge (GET /v1/bots/online: those with their player
 * stream open), read with the lobby's lists. A person who wanted to play a program had
 * to know its name. */
export async function renderBots() {
  const list = $('#bots-online');
  if (!list || asking(list)) return; // a Block being confirmed there is not wiped
  const me = savedPlayer();
  const bots = (await api.botsOnline()).players.filter((p) => !me || p.id !== me.id);
  if (document.body.dataset.screen !== 'lobby') return;
  refill(list, bots.length ? bots.map((p) => foundRow(p, bots, 'bot-online')) : h('li', { class: 'hint' }, 'None right now: a bot is listed while its program is connected.'));
}

async function challenge(player, row = null) {
  clearProblem('challenge');
  try {
    follow(await ensurePlayer()); // a visitor's Challenge on a listed bot asks for their name first
    const terms = chosenTerms('challenge');
    const sent = await api.challenge(player.id, $('#challenge-preset').value, terms);
    rememberTerms('challenge');
    lobby.sent.set(sent.table_id, sent);
    toast(`Challenge sent to ${refName(player)}: the match opens when they accept.`, 'info');
    refresh();
  } catch (err) {
    if (showProblem('challenge', err)) return;
    if (offerUnblock(err, player, row, { onUnblocked: () => challengeAgain(player, row) })) return;
    toast(problemText(err));
    refresh();
  }
}

/** Unblocked from a refused challenge's row: the row offers the challenge again. */
function challengeAgain(player, row) {
  const button = h('button', { type: 'button', 'data-testid': 'challenge', onclick: () => challenge(player, row) }, 'Challenge', heard(` ${refName(player)}`));
  fill(row, `${refName(player)} `, button);
  button.focus();
}

/** After a block: the challenges are read again (the player stream sends no frame when a
 * blocked sender's challenge leaves the list), and the lists redrawn without the Block. */
export async function afterBlock() {
  lobby.reads += 1;
  await refresh();
}

/** After an unblock: their challenges come back to the list. */
export const afterUnblock = () => afterBlock();

/** A Block's question is open in ``list``: redrawing it would take the question away.
 * One answered "yes" is over once the block is made (the list drops that player's rows
 * then: it waited for the next frame of the list socket, up to 15 s). */
export const asking = (list) => Boolean(list && [...list.querySelectorAll('[data-testid=block-confirm]')].some((question) => !isBlocked(question.dataset.player)));

/** Where the keyboard goes once the row of a Block pressed is gone: the blocked list. */
export const blockedTitle = () => $('#blocked-title');

// A Block's question called off: the challenges and bots it kept from being drawn anew
// (a challenge that came meanwhile) are read and drawn now, not at the lobby's next read
// (up to 5 s on). The open tables are lobbylive.js's.
document.addEventListener('ginrummy:block-question-closed', () => {
  if (document.body.dataset.screen === 'lobby') refresh();
});
