// The lobby: open a table (public or private), browse and join the public ones, share an
// invite link, challenge a player found by name, answer challenges. The list is live
// (WS /v1/tables/live); the player stream (WS /v1/me/live) says when a match of ours
// starts, or a challenge comes, so the page then opens it or shows it.
import { $, fill, h } from './dom.js';
import { api, savedPlayer, savePlayer } from './api.js';
import { problemText, toast } from './ui.js';
import { expectTour } from './tour.js';
import { linkField, rememberTable } from './share.js';

const lobby = { stream: null, list: null, tables: new Map(), poll: null, waiting: null, root: null, known: null };

const PRESETS = { arcadia: 'Arcadia', arkadium: 'Arkadium', classic: 'Classic' };
const refName = (ref) => (ref.kind === 'bot' ? `${ref.name} (bot)` : ref.name);

/** A guest player for this browser, made from the name field if there is none yet. */
async function ensurePlayer() {
  const player = savedPlayer();
  if (player) return player;
  const name = $('#lobby-name') ? $('#lobby-name').value.trim() : '';
  if (!name) throw new Error('Please enter your name first.');
  const created = await api.createPlayer(name);
  const saved = { id: created.id, name: created.name, token: created.token };
  savePlayer(saved);
  return saved;
}

export function closeLobby() {
  if (lobby.stream && lobby.stream.close) lobby.stream.close();
  lobby.stream = null;
  if (lobby.list) lobby.list.close();
  lobby.list = null;
  clearInterval(lobby.poll);
  lobby.poll = null;
}

/** A socket that signs in with its first message, not ``?token=``: a proxy may log a URL. */
function signedIn(socket, player) {
  socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', token: player.token })));
  return socket;
}

/** The live list (WS /v1/tables/live): the whole list, then each table that opens or closes. */
function listen(player) {
  if (lobby.list) return;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = signedIn(new WebSocket(`${scheme}://${location.host}/v1/tables/live`), player);
  lobby.list = socket;
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(message.data);
    if (frame.type === 'tables') lobby.tables = new Map(frame.tables.map((t) => [t.table_id, t]));
    else if (frame.type === 'table') lobby.tables.set(frame.table.table_id, frame.table);
    else if (frame.type === 'table_closed') lobby.tables.delete(frame.table_id);
    else if (frame.type === 'ping') socket.send('{"type":"pong"}');
    else return;
    renderTables(player);
  });
  socket.addEventListener('close', () => {
    if (lobby.list === socket) lobby.list = null; // the next refresh reconnects
  });
}

function renderTables(player) {
  const tables = [...lobby.tables.values()].sort((a, b) => (a.opened_at < b.opened_at ? 1 : -1));
  fill(
    $('#open-tables'),
    tables.length
      ? tables.map((t) =>
          h(
            'li',
            {},
            `${refName(t.host)} · ${t.rules.name} to ${t.rules.target} `,
            t.host.id === player.id
              ? h('span', { class: 'hint' }, '(your table)')
              : h('button', { type: 'button', 'data-testid': 'join', onclick: () => join(t.table_id, null) }, 'Join'),
          ),
        )
      : h('li', { class: 'hint' }, 'No open tables: open one and wait, or share an invite link.'),
  );
}

/** The player stream: a match that starts for us opens at once. The stream first names
 * the matches already running: those the lobby leaves alone (the start page lists them). */
async function follow(player) {
  if (lobby.stream) return;
  lobby.stream = 'connecting';
  const running = await api.listMatches('active').catch(() => ({ matches: [] }));
  lobby.known = new Set(running.matches.map((m) => m.match_id));
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = signedIn(new WebSocket(`${scheme}://${location.host}/v1/me/live`), player);
  lobby.stream = socket;
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(message.data);
    if (frame.type === 'match_started' && !lobby.known.has(frame.match_id) && document.body.dataset.screen === 'lobby') {
      expectTour(); // a person's first match may be against a person
      location.hash = `#/match/${encodeURIComponent(frame.match_id)}`;
    } else if (frame.type === 'challenge' || frame.type === 'challenge_closed') {
      refresh();
    }
  });
  socket.addEventListener('close', () => {
    if (lobby.stream === socket) lobby.stream = null;
  });
}

/** The lobby; ``invite`` ({table, code}) is an invite link being opened. */
export function showLobby(root, invite = null) {
  lobby.root = root;
  const player = savedPlayer();
  fill(
    root,
    h('h1', { id: 'lobby-title' }, 'Play a person'),
    player
      ? null
      : h(
          'form',
          { class: 'start', onsubmit: (event) => enter(event, root, invite) },
          h('label', {}, 'Your name ', h('input', { id: 'lobby-name', maxlength: '40', autocomplete: 'nickname', required: true, 'data-testid': 'lobby-name' })),
          h('button', { type: 'submit', 'data-testid': 'enter-lobby' }, 'Enter the lobby'),
        ),
    invite
      ? h(
          'p',
          { class: 'resume' },
          'You are invited to a table. ',
          h('button', { type: 'button', class: 'primary', 'data-testid': 'join-invite', onclick: () => join(invite.table, invite.code) }, 'Join the match'),
        )
      : null,
    h(
      'form',
      { class: 'start', id: 'open-table', onsubmit: openTable },
      h('label', {}, 'Rules ', h('select', { id: 'table-preset' }, Object.entries(PRESETS).map(([v, t]) => h('option', { value: v }, t)))),
      h('label', { class: 'check' }, h('input', { id: 'table-private', type: 'checkbox' }), ' Private (only with the invite link)'),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'open-table' }, 'Open a table'),
    ),
    h('div', { id: 'waiting', class: 'resume', hidden: true, 'data-testid': 'waiting' }),
    h('h2', {}, 'Challenges for you'),
    h('ul', { id: 'incoming', 'data-testid': 'incoming' }),
    h('h2', {}, 'Open tables'),
    h('ul', { id: 'open-tables', 'data-testid': 'open-tables' }),
    h(
      'form',
      { class: 'start', id: 'find-player', onsubmit: findPlayers },
      h('label', {}, 'Challenge a player by name ', h('input', { id: 'find-name', maxlength: '40', 'data-testid': 'find-name' })),
      h('button', { type: 'submit', 'data-testid': 'find' }, 'Find'),
    ),
    h('ul', { id: 'found', 'data-testid': 'found' }),
  );
  if (player) follow(player);
  refresh();
  lobby.poll = setInterval(refresh, 5000); // challenges, and a lost list socket, caught up
}

async function enter(event, root, invite) {
  event.preventDefault();
  try {
    await ensurePlayer();
    closeLobby();
    showLobby(root, invite);
  } catch (err) {
    toast(problemText(err));
  }
}

async function refresh() {
  if (document.body.dataset.screen !== 'lobby') return;
  const player = savedPlayer();
  if (!player) return;
  try {
    listen(player);
    const { challenges } = await api.challenges();
    const incoming = challenges.filter((c) => c.invitee && c.invitee.id === player.id);
    fill(
      $('#incoming'),
      incoming.length
        ? incoming.map((c) =>
            h(
              'li',
              {},
              `${refName(c.host)} challenges you (${c.rules.name} to ${c.rules.target}) `,
              h('button', { type: 'button', class: 'primary', 'data-testid': 'accept', onclick: () => accept(c.table_id) }, 'Accept'),
              h('button', { type: 'button', 'data-testid': 'decline', onclick: () => api.declineChallenge(c.table_id).then(refresh) }, 'Decline'),
            ),
          )
        : h('li', { class: 'hint' }, 'None yet.'),
    );
  } catch (err) {
    toast(problemText(err));
  }
}

async function openTable(event) {
  event.preventDefault();
  try {
    const player = await ensurePlayer();
    follow(player);
    const table = await api.openTable($('#table-preset').value, $('#table-private').checked);
    rememberTable(table);
    showWaiting(table);
    refresh();
  } catch (err) {
    toast(problemText(err));
  }
}

function showWaiting(table) {
  lobby.waiting = table;
  const link = table.invite_code
    ? `${location.origin}${location.pathname}#/join/${table.table_id}/${encodeURIComponent(table.invite_code)}`
    : null;
  fill(
    $('#waiting'),
    h('p', {}, 'Waiting for an opponent… the match opens as soon as someone joins.'),
    link ? h('p', { class: 'share' }, 'Invite link, for your opponent: ', linkField('Invite link', link, 'invite-link')) : null,
    // The match, and so its watch link, exists once someone joins: the table shows it then.
    h('p', { class: 'hint', 'data-testid': 'waiting-watch' }, table.watch_code
      ? 'Watch link: shown at the table as soon as the match starts. It carries this private table\'s watch code: give it only to those you want watching.'
      : 'Watch link: shown at the table as soon as the match starts; anyone may watch a public table\'s match.'),
    h('button', { type: 'button', 'data-testid': 'cancel-table', onclick: cancelWaiting }, 'Cancel the table'),
  );
  $('#waiting').hidden = false;
}

async function cancelWaiting() {
  if (!lobby.waiting) return;
  try {
    rememberTable(await api.cancelTable(lobby.waiting.table_id));
    lobby.waiting = null;
    $('#waiting').hidden = true;
    refresh();
  } catch (err) {
    toast(problemText(err));
  }
}

export async function join(tableId, code) {
  try {
    await ensurePlayer();
    const joined = await api.joinTable(tableId, code);
    rememberTable(joined.table); // a private table's watch code, given to its guest
    expectTour(); // a person's first match may be against a person
    location.hash = `#/match/${encodeURIComponent(joined.match.match_id)}`;
  } catch (err) {
    toast(problemText(err));
  }
}

async function accept(tableId) {
  try {
    const joined = await api.acceptChallenge(tableId);
    rememberTable(joined.table);
    expectTour(); // a person's first match may be against a person
    location.hash = `#/match/${encodeURIComponent(joined.match.match_id)}`;
  } catch (err) {
    toast(problemText(err));
  }
}

async function findPlayers(event) {
  event.preventDefault();
  const name = $('#find-name').value.trim();
  if (!name) return;
  try {
    const me = await ensurePlayer();
    follow(me);
    const { players } = await api.findPlayers(name);
    const others = players.filter((p) => p.id !== me.id);
    fill(
      $('#found'),
      others.length
        ? others.map((p) =>
            h('li', {}, `${refName(p)} `, h('button', { type: 'button', 'data-testid': 'challenge', onclick: () => challenge(p) }, 'Challenge')),
          )
        : h('li', { class: 'hint' }, `Nobody called "${name}".`),
    );
  } catch (err) {
    toast(problemText(err));
  }
}

async function challenge(player) {
  try {
    await api.challenge(player.id, $('#table-preset').value);
    toast(`Challenge sent to ${refName(player)}: the match opens when they accept.`, 'info');
  } catch (err) {
    toast(problemText(err));
  }
}
