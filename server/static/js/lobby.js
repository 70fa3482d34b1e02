// The lobby: open a table (public or private), browse and join the public ones, share an
// invite link, challenge a player found by name, answer challenges. A table or challenge
// has the rules, clock, hints and rated chosen in its own form (timecontrol.js). The list is live
// (WS /v1/tables/live); the player stream (WS /v1/me/live) says when a match of ours
// starts, or a challenge comes, so the page then opens it or shows it. The lobby lists
// the player's own tables still waiting (public ones from GET /v1/tables, private ones
// opened in this browser read back one by one) and the challenges they sent, each with
// its Cancel; while any waits, the player stream stays open on every screen, so a join
// or an acceptance takes the player to the match wherever they are. A person met here (a
// challenger, a table's host, a player found by name) may be blocked (blocks.js), and the
// players blocked are listed with their Unblock.
// This file draws the lobby's screen, reads its lists and opens a match joined; the
// sockets are in lobbylive.js, the player's own waiting tables in mytables.js, the
// challenges in challenges.js, and what they share in lobbystate.js.
import { $, fill, h } from './dom.js';
import { api, savedPlayer } from './api.js';
import { problemText, toast } from './ui.js';
import { expectTour } from './tour.js';
import { openPrivateTables, rememberTable } from './share.js';
import { inviteNotice } from './invite.js';
import { blockedSection, loadBlocks } from './blocks.js';
import { followTerms, termsFields } from './timecontrol.js';
import { customRulesFields } from './customrules.js';
import { ensurePlayer, lobby, waitingForSomeone } from './lobbystate.js';
import { afterRead, closeStream, follow, listen } from './lobbylive.js';
import { openTable, renderMine } from './mytables.js';
import { pollWhileVisible } from './poll.js';
import { haveACode } from './havecode.js';
import { NAME_BOX_UNITS, takesAName } from './names.js';
import { afterUnblock, chooseToChallenge, findPlayers, renderBots, renderChallenges, sayNewChallenges } from './challenges.js';

const PRESETS = { arcadia: 'Arcadia', arkadium: 'Arkadium', classic: 'Classic' };

/** Leave the lobby. The player stream stays open while a table or challenge of the
 * player waits (unless ``all``, on signing out), so its match still opens. */
export function closeLobby(all = false) {
  if (all || !waitingForSomeone()) closeStream();
  if (all) {
    lobby.mine.clear();
    lobby.sent.clear();
  }
  if (lobby.list) lobby.list.close();
  lobby.list = null;
  if (lobby.poll) lobby.poll.stop();
  lobby.poll = null;
}

/** The lobby; ``invite`` ({table, code}) is an invite link being opened, ``challenge``
 * the id of a player chosen on their profile (#/challenge/ID). Both outlive the name
 * form a visitor not signed in fills first. */
export function showLobby(root, { invite = null, challenge = null } = {}) {
  lobby.root = root;
  lobby.heard = null; // the challenges listed first are read on the page, not announced
  const player = savedPlayer();
  fill(
    root,
    h('h1', { id: 'lobby-title' }, 'Play a person'),
    player
      ? null
      : h(
          'form',
          { class: 'start', onsubmit: (event) => enter(event, root, { invite, challenge }) },
          h('label', {}, 'Your name ', takesAName(h('input', { id: 'lobby-name', maxlength: NAME_BOX_UNITS, autocomplete: 'nickname', required: true, 'data-testid': 'lobby-name' }))),
          h('button', { type: 'submit', 'data-testid': 'enter-lobby' }, 'Enter the lobby'),
          haveACode(),
        ),
    invite ? inviteNotice(invite, join) : null,
    h(
      'form',
      { class: 'start', id: 'open-table', onsubmit: openTable },
      h('label', {}, 'Rules ', presetSelect('table-preset')),
      customRulesFields('table'),
      termsFields('table'),
      h('label', { class: 'check' }, h('input', { id: 'table-private', type: 'checkbox' }), ' Private (only with the invite link)'),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'open-table' }, 'Open a table'),
    ),
    h('div', { id: 'waiting', class: 'resume', hidden: true, 'data-testid': 'waiting' }),
    h('h2', {}, 'Challenges for you'),
    h('ul', { id: 'incoming', 'data-testid': 'incoming' }),
    h('h2', {}, 'Challenges you sent'),
    h('ul', { id: 'outgoing', 'data-testid': 'outgoing' }),
    h('h2', {}, 'Open tables'),
    h('ul', { id: 'open-tables', 'data-testid': 'open-tables' }),
    h('h2', {}, 'Bots waiting for a challenge'),
    h('ul', { id: 'bots-online', 'data-testid': 'bots-online' }),
    h(
      'form',
      { class: 'start', id: 'find-player', onsubmit: findPlayers },
      h('label', {}, 'Challenge a player by name ', takesAName(h('input', { id: 'find-name', maxlength: NAME_BOX_UNITS, 'data-testid': 'find-name' }))),
      h('label', {}, 'Rules of the match you challenge them to ', presetSelect('challenge-preset')),
      termsFields('challenge'),
      h('button', { type: 'submit', 'data-testid': 'find' }, 'Find'),
    ),
    h('ul', { id: 'found', 'data-testid': 'found' }),
    player ? blockedSection({ onChange: afterUnblock }) : null,
  );
  followTerms('table');
  followTerms('challenge');
  if (player) follow(player);
  if (player) loadBlocks().catch(() => {});
  if (player && challenge) chooseToChallenge(challenge);
  renderMine();
  refresh();
  if (!player) renderBots().catch(() => {}); // a visitor sees them too (refresh reads them signed in)
  // Challenges, and a lost list socket, caught up every 5 s, as poll.js asks: nothing in
  // a hidden tab (the player stream still opens a match started meanwhile), and the tab
  // shown again reads at once.
  if (lobby.poll) lobby.poll.stop();
  lobby.poll = pollWhileVisible(refresh, { every: 5000, first: 5000, alive: () => document.body.dataset.screen === 'lobby' });
}

const presetSelect = (id) => h('select', { id, 'data-testid': id }, Object.entries(PRESETS).map(([v, t]) => h('option', { value: v }, t)));

async function enter(event, root, chosen) {
  event.preventDefault();
  try {
    await ensurePlayer();
    closeLobby();
    showLobby(root, chosen);
    // The form pressed is gone with its button: the keyboard goes to the invite's Join
    // (to its notice until the Join shows, invite.js), or to the lobby's heading (it was
    // dropped to the page's top).
    const heading = $('h1', root);
    const next = $('[data-testid=join-invite]:not([hidden])', root) || $('[data-testid=invite]', root) || heading;
    if (next === heading) heading.tabIndex = -1;
    next.focus();
  } catch (err) {
    toast(problemText(err));
  }
}

export async function refresh() {
  if (document.body.dataset.screen !== 'lobby') return;
  const player = savedPlayer();
  if (!player) return;
  try {
    listen(player); // a lost list socket is opened again here
    lobby.player = player;
    const waited = [...lobby.mine.keys(), ...lobby.sent.keys()];
    const read = ++lobby.reads;
    // Your own tables, private ones too, from the server (a table opened in another
    // browser included); those opened here are read again too, in case the list lags.
    const [{ challenges }, { tables }, own, privates] = await Promise.all([api.challenges(), api.tables(), api.myTables(), openPrivateTables()]);
    if (read !== lobby.reads || document.body.dataset.screen !== 'lobby') return; // a newer read, or gone
    const incoming = challenges.filter((c) => c.invitee && c.invitee.id === player.id);
    sayNewChallenges(incoming);
    const outgoing = challenges.filter((c) => c.host.id === player.id && c.invitee);
    lobby.sent = new Map(outgoing.map((c) => [c.table_id, c]));
    lobby.mine = new Map([...tables, ...own.tables, ...privates].filter((t) => t.host.id === player.id && !t.invitee).map((t) => [t.table_id, t]));
    renderMine();
    renderChallenges(incoming, outgoing);
    await renderBots().catch(() => {}); // a list that failed is no reason to skip what follows
    await afterRead(player, tables, waited.filter((id) => !lobby.mine.has(id) && !lobby.sent.has(id)));
  } catch (err) {
    toast(problemText(err));
  }
}

/** Join a table; ``refused(err)``, if given, may handle a refusal itself (true). */
export async function join(tableId, code, refused = null) {
  const visit = lobby.visits;
  try {
    await ensurePlayer();
    const joined = await api.joinTable(tableId, code);
    rememberTable(joined.table); // a private table's watch code, given to its guest
    toMatch(joined.match.match_id, visit);
  } catch (err) {
    if (refused && refused(err)) return;
    toast(problemText(err));
  }
}

/** A match just joined or accepted at ``visit`` is opened, unless the player has moved
 * since (``lobby.visits``): the stream's ``match_started`` may have opened it before
 * this answer came, and the player may since have gone elsewhere (even back to the
 * lobby), where a late answer must not pull them. */
export function toMatch(matchId, visit) {
  if (lobby.known) lobby.known.add(matchId);
  if (visit !== lobby.visits || document.body.dataset.screen !== 'lobby') return;
  expectTour(); // a person's first match may be against a person
  location.hash = `#/match/${encodeURIComponent(matchId)}`;
}
