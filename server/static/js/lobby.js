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
import { $, fill, h, heard } from './dom.js';
import { api, savedPlayer, savePlayer } from './api.js';
import { announce, problemText, toast } from './ui.js';
import { expectTour } from './tour.js';
import { linkField, openPrivateTables, rememberTable } from './share.js';
import { inviteNotice } from './invite.js';
import { refill } from './keepfocus.js';
import { tableTerms } from './terms.js';
import { isolate, refName } from './names.js';
import { blockButton, blockedSection, isBlocked, loadBlocks, offerUnblock } from './blocks.js';
import { chosenTerms, clearProblem, followTerms, rememberTerms, showProblem, termsFields } from './timecontrol.js';
import { chosenRules, customRulesFields } from './customrules.js';

const lobby = {
  stream: null,
  list: null,
  tables: new Map(), // the public open tables, from the live list
  poll: null,
  root: null,
  known: null,
  mine: new Map(), // table id → this player's own open tables (no invitee)
  sent: new Map(), // table id → open challenges this player sent
  accepted: new Set(), // match ids of sent challenges accepted meanwhile
  reads: 0, // the newest refresh: an older answer arriving later is dropped
  visits: 0, // the page's moves (hash changes): a join's answer after the player left is dropped
};

// Counted here, not where the lobby is drawn: signing in from an invite draws it again,
// and a join pressed meanwhile was still pressed where the player is.
window.addEventListener('hashchange', () => {
  lobby.visits += 1;
});

const PRESETS = { arcadia: 'Arcadia', arkadium: 'Arkadium', classic: 'Classic' };

let creating = null; // the guest being made, which a Join pressed meanwhile waits for

/** A guest player for this browser, made from the name field if there is none yet: one,
 * however many ask at once (a Join pressed while "Enter the lobby" was on its way made a
 * second guest, whose seat the page, signed in as the first, could not play). */
function ensurePlayer() {
  const player = savedPlayer();
  if (player) return Promise.resolve(player);
  if (creating) return creating;
  const name = $('#lobby-name') ? $('#lobby-name').value.trim() : '';
  if (!name) return Promise.reject(new Error('Please enter your name first.'));
  creating = api
    .createPlayer(name)
    .then((created) => {
      const saved = { id: created.id, name: created.name, token: created.token };
      savePlayer(saved);
      return saved;
    })
    .finally(() => {
      creating = null;
    });
  return creating;
}

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
  clearInterval(lobby.poll);
  lobby.poll = null;
}

const waitingForSomeone = () => lobby.mine.size > 0 || lobby.sent.size > 0;

function closeStream() {
  if (lobby.stream && lobby.stream.close) lobby.stream.close();
  lobby.stream = null;
  clearInterval(lobby.recheck);
  lobby.recheck = null;
}

/** Off the lobby the stream stays open only while a table or challenge of the player
 * waits: an open stream counts as present in every match (an opponent could not claim
 * by absence), and a table that expires or is cancelled elsewhere sends no frame, so
 * look again now and then. */
async function recheckWaiting() {
  if (document.body.dataset.screen === 'lobby' || !lobby.stream) return;
  const player = savedPlayer();
  try {
    const [own, { challenges }] = await Promise.all([api.myTables(), api.challenges()]);
    lobby.mine = new Map(own.tables.map((t) => [t.table_id, t]));
    lobby.sent = new Map(challenges.filter((c) => player && c.host.id === player.id && c.invitee).map((c) => [c.table_id, c]));
  } catch {
    return;
  }
  if (!waitingForSomeone() && document.body.dataset.screen !== 'lobby') closeStream();
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
    else if (frame.type === 'table_closed') {
      lobby.tables.delete(frame.table_id);
      if (lobby.mine.delete(frame.table_id)) renderMine();
    }
    else if (frame.type === 'ping') socket.send('{"type":"pong"}');
    else return;
    renderTables(player);
  });
  socket.addEventListener('close', () => {
    if (lobby.list === socket) lobby.list = null; // the next refresh reconnects
  });
}

/** An incoming challenge as its Accept and Decline name it: "Ada's challenge (…)". */
const offered = (c, among) => `${refName(c.host, among)}'s ${c.rematch_of ? 'rematch offer' : 'challenge'} (${tableTerms(c)})`;

function renderTables(player) {
  let added = false;
  for (const t of lobby.tables.values()) {
    if (t.host.id === player.id && !lobby.mine.has(t.table_id)) {
      lobby.mine.set(t.table_id, t);
      added = true;
    }
  }
  if (added) renderMine();
  // A host blocked here since the socket listed its table: the server no longer offers
  // it (it leaves out a table across a block), and neither does the page.
  const tables = [...lobby.tables.values()].filter((t) => !isBlocked(t.host.id)).sort((a, b) => (a.opened_at < b.opened_at ? 1 : -1));
  const hosts = tables.map((each) => each.host); // told apart if alike
  if (asking($('#open-tables'))) return; // a Block being confirmed there is not wiped
  refill(
    $('#open-tables'),
    tables.length
      ? tables.map((t) =>
          h(
            'li',
            { 'data-table': t.table_id }, // the row a focused Join is found in again (keepfocus.js)
            `${refName(t.host, hosts)} · ${tableTerms(t)} `,
            t.host.id === player.id
              ? h('span', { class: 'hint' }, '(your table: cancel it under Your tables)')
              : [
                  h('button', { type: 'button', 'data-testid': 'join', onclick: () => join(t.table_id, null) }, 'Join', heard(` ${refName(t.host, hosts)}'s table (${tableTerms(t)})`)),
                  ' ',
                  blockButton(t.host, { onBlocked: afterBlock, focusAfter: blockedTitle }),
                ],
          ),
        )
      : h('li', { class: 'hint' }, 'No open tables: open one and wait, or share an invite link.'),
  );
}

/** The player stream: a match that starts for us opens at once. The stream first names
 * the matches already running: those the lobby leaves alone (the start page lists them). */
async function follow(player) {
  if (lobby.stream) return;
  // This connection's own mark: a list read for an earlier lobby that comes back late
  // must not open the stream, nor stand for the matches running now.
  const connecting = { connecting: true };
  lobby.stream = connecting;
  const running = await api.listMatches('active').catch(() => ({ matches: [] }));
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const now = savedPlayer();
  if (lobby.stream !== connecting || !now || now.token !== player.token) {
    if (lobby.stream === connecting) lobby.stream = null; // signed out while the list was read
    return;
  }
  // with those known already (one just joined, whose answer came while this list was read)
  lobby.known = new Set([...(lobby.known || []), ...running.matches.map((m) => m.match_id)]);
  const socket = signedIn(new WebSocket(`${scheme}://${location.host}/v1/me/live`), player);
  lobby.stream = socket;
  clearInterval(lobby.recheck);
  lobby.recheck = setInterval(recheckWaiting, 30000);
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(message.data);
    if (frame.type === 'match_started' && !lobby.known.has(frame.match_id) && !frame.watching) {
      lobby.known.add(frame.match_id);
      if (document.body.dataset.screen === 'lobby') {
        expectTour(); // a person's first match may be against a person
        location.hash = `#/match/${encodeURIComponent(frame.match_id)}`;
      } else {
        startedAway(frame.match_id);
      }
    } else if (frame.type === 'challenge_closed') {
      const sent = lobby.sent.get(frame.table_id);
      // A rematch offer accepted is opened by the match's own page.
      if (sent && frame.match_id && !sent.rematch_of) lobby.accepted.add(frame.match_id);
      lobby.sent.delete(frame.table_id);
      if (!waitingForSomeone() && document.body.dataset.screen !== 'lobby') closeStream();
      refresh();
    } else if (frame.type === 'challenge') {
      refresh();
    }
  });
  socket.addEventListener('close', () => {
    if (lobby.stream === socket) lobby.stream = null;
  });
}

/** A match started while the player is on another screen: one of their waiting tables
 * (or challenges) was taken. Off the table, the page opens it; at the table of another
 * match, a notice with a link says so. Anything else (a match started from the start
 * screen) is left to the screen that started it. */
async function startedAway(matchId) {
  let ours = lobby.accepted.delete(matchId);
  if (!ours) {
    for (const tableId of [...lobby.mine.keys()]) {
      const table = await api.table(tableId).catch(() => null);
      if (!table || table.status === 'open') continue;
      lobby.mine.delete(tableId);
      rememberTable(table);
      if (table.match_id === matchId) ours = true;
    }
  }
  if (ours && !location.hash.includes(encodeURIComponent(matchId))) {
    if (document.body.dataset.screen === 'table') {
      toast(
        h('span', {}, 'Someone took a seat at your table: ', h('a', { href: `#/match/${encodeURIComponent(matchId)}`, 'data-testid': 'joined-link' }, 'open that match'), '.'),
        'info',
      );
    } else {
      expectTour(); // a person's first match may be against a person
      location.hash = `#/match/${encodeURIComponent(matchId)}`;
    }
  }
  if (!waitingForSomeone() && document.body.dataset.screen !== 'lobby') closeStream();
}

/** The lobby; ``invite`` ({table, code}) is an invite link being opened. */
export function showLobby(root, invite = null) {
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
          { class: 'start', onsubmit: (event) => enter(event, root, invite) },
          h('label', {}, 'Your name ', h('input', { id: 'lobby-name', maxlength: '40', autocomplete: 'nickname', required: true, 'data-testid': 'lobby-name' })),
          h('button', { type: 'submit', 'data-testid': 'enter-lobby' }, 'Enter the lobby'),
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
    h(
      'form',
      { class: 'start', id: 'find-player', onsubmit: findPlayers },
      h('label', {}, 'Challenge a player by name ', h('input', { id: 'find-name', maxlength: '40', 'data-testid': 'find-name' })),
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
  renderMine();
  refresh();
  lobby.poll = setInterval(refresh, 5000); // challenges, and a lost list socket, caught up
}

const presetSelect = (id) => h('select', { id, 'data-testid': id }, Object.entries(PRESETS).map(([v, t]) => h('option', { value: v }, t)));

async function enter(event, root, invite) {
  event.preventDefault();
  try {
    await ensurePlayer();
    closeLobby();
    showLobby(root, invite);
    // The form pressed is gone with its button: the keyboard goes to the invite's Join, or
    // to the lobby's heading (it was dropped to the page's top).
    const heading = $('h1', root);
    const next = $('[data-testid=join-invite]', root) || heading;
    if (next === heading) heading.tabIndex = -1;
    next.focus();
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
    lobby.player = player;
    const read = ++lobby.reads;
    // Your own tables, private ones too, from the server (a table opened in another
    // browser included); those opened here are read again too, in case the list lags.
    const [{ challenges }, { tables }, own, privates] = await Promise.all([api.challenges(), api.tables(), api.myTables(), openPrivateTables()]);
    if (read !== lobby.reads || document.body.dataset.screen !== 'lobby') return; // a newer read, or gone
    const incoming = challenges.filter((c) => c.invitee && c.invitee.id === player.id);
    sayNewChallenges(incoming);
    const outgoing = challenges.filter((c) => c.host.id === player.id && c.invitee);
    lobby.sent = new Map(outgoing.map((c) => [c.table_id, c]));
    const shown = [...outgoing.map((c) => c.invitee), ...incoming.map((c) => c.host)]; // told apart if alike
    lobby.mine = new Map([...tables, ...own.tables, ...privates].filter((t) => t.host.id === player.id && !t.invitee).map((t) => [t.table_id, t]));
    renderMine();
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
  } catch (err) {
    toast(problemText(err));
  }
}

/** A challenge that comes while the lobby is open is told to screen readers (the list is
 * redrawn every few seconds, silently); those already there when it opened are not. */
function sayNewChallenges(incoming) {
  const told = lobby.heard; // not ``heard``: dom.js's, the words a control is heard with
  lobby.heard = new Set(incoming.map((c) => c.table_id));
  if (told === null) return;
  for (const c of incoming) {
    if (told.has(c.table_id)) continue;
    const what = c.rematch_of ? 'offers you a rematch' : 'challenges you';
    announce(`${refName(c.host)} ${what} (${tableTerms(c)}): Accept or Decline under Challenges for you.`);
  }
}

async function openTable(event) {
  event.preventDefault();
  clearProblem('table');
  try {
    // a rule or a clock the server would refuse is said, not sent
    const rules = chosenRules('table');
    const terms = chosenTerms('table');
    const player = await ensurePlayer();
    follow(player);
    const table = await api.openTable(rules, $('#table-private').checked, terms);
    rememberTerms('table');
    rememberTable(table);
    lobby.reads += 1; // a read begun before this table was opened does not hide it
    lobby.mine.set(table.table_id, table);
    renderMine();
    toldOpened(table);
    refresh();
  } catch (err) {
    if (showProblem('table', err)) return; // the rules, the clock or the rating, said by the form
    toast(problemText(err));
    refresh(); // a refusal at the cap: the tables to cancel are listed
  }
}

/** "Your tables": each of the player's tables still waiting, its invite link if private,
 * and its Cancel. */
function renderMine() {
  const box = $('#waiting');
  if (!box) return;
  const tables = [...lobby.mine.values()].sort((a, b) => (a.opened_at < b.opened_at ? -1 : 1));
  box.hidden = tables.length === 0;
  if (!tables.length) {
    fill(box);
    return;
  }
  refill(
    box,
    h('h2', {}, tables.length === 1 ? 'Your table' : 'Your tables'),
    h('p', {}, 'Waiting for an opponent… the match opens as soon as someone joins.'),
    h('ul', { 'data-testid': 'my-tables' }, tables.map(myTable)),
  );
}

/** A table just opened is said, and a private one's invite link focused (its host's next
 * step is to copy it): the list under the form changed in silence, and a screen reader
 * heard nothing after "Open a table". */
function toldOpened(table) {
  const terms = tableTerms(table);
  announce(table.private
    ? `Your private table is open (${terms}): give your opponent its invite link; the match opens when they join.`
    : `Your table is open (${terms}): the match opens when someone joins.`);
  const link = $(`[data-testid=my-table][data-table="${table.table_id}"] [data-testid=invite-link]`);
  if (link) link.focus();
}

function myTable(table) {
  const link = table.invite_code
    ? `${location.origin}${location.pathname}#/join/${table.table_id}/${encodeURIComponent(table.invite_code)}`
    : null;
  return h(
    'li',
    { 'data-testid': 'my-table', 'data-table': table.table_id },
    h('p', {}, `${table.private ? 'Private table' : 'Public table'} · ${tableTerms(table)} `,
      h('button', { type: 'button', 'data-testid': 'cancel-table', onclick: () => cancelTable(table.table_id) }, 'Cancel the table', heard(` (${table.private ? 'private' : 'public'}, ${tableTerms(table)})`))),
    link ? h('p', { class: 'share' }, 'Invite link, for your opponent: ', linkField('Invite link', link, 'invite-link')) : null,
    // The match, and so its watch link, exists once someone joins: the table shows it then.
    h('p', { class: 'hint', 'data-testid': 'waiting-watch' }, table.watch_code
      ? 'Watch link: shown at the table as soon as the match starts. It carries this private table\'s watch code: give it only to those you want watching.'
      : 'Watch link: shown at the table as soon as the match starts; anyone may watch a public table\'s match.'),
  );
}

async function cancelTable(tableId) {
  try {
    rememberTable(await api.cancelTable(tableId));
    lobby.mine.delete(tableId);
    lobby.reads += 1;
    renderMine();
    refresh();
  } catch (err) {
    toast(problemText(err));
    refresh();
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

/** A match just joined or accepted at ``visit`` is opened, unless the player has moved
 * since (``lobby.visits``): the stream's ``match_started`` may have opened it before
 * this answer came, and the player may since have gone elsewhere (even back to the
 * lobby), where a late answer must not pull them. */
function toMatch(matchId, visit) {
  if (lobby.known) lobby.known.add(matchId);
  if (visit !== lobby.visits || document.body.dataset.screen !== 'lobby') return;
  expectTour(); // a person's first match may be against a person
  location.hash = `#/match/${encodeURIComponent(matchId)}`;
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
            h(
              'li',
              { 'data-testid': 'found-player', 'data-player': p.id },
              `${refName(p, others)} `,
              h('button', { type: 'button', 'data-testid': 'challenge', onclick: (event) => challenge(p, event.target.closest('li')) }, 'Challenge', h('span', { class: 'visually-hidden' }, ` ${refName(p, others)}`)),
              isBlocked(p.id) ? h('span', { class: 'hint' }, ' (you block this player)') : [' ', blockButton(p, { onBlocked: afterBlock, focusAfter: blockedTitle })],
            ),
          )
        : h('li', { class: 'hint' }, `Nobody called "${isolate(name)}".`),
    );
  } catch (err) {
    toast(problemText(err));
  }
}

async function challenge(player, row = null) {
  clearProblem('challenge');
  try {
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
  const button = h('button', { type: 'button', 'data-testid': 'challenge', onclick: () => challenge(player, row) }, 'Challenge', h('span', { class: 'visually-hidden' }, ` ${refName(player)}`));
  fill(row, `${refName(player)} `, button);
  button.focus();
}

/** After a block: the challenges are read again (the player stream sends no frame when a
 * blocked sender's challenge leaves the list), and the lists redrawn without the Block. */
async function afterBlock() {
  lobby.reads += 1;
  await refresh();
}

// The blocks read, or changed (here, or in a chat): the open tables show Block only for
// those not blocked.
document.addEventListener('ginrummy:blocks-changed', () => {
  if (lobby.player && document.body.dataset.screen === 'lobby') renderTables(lobby.player);
});

/** After an unblock: their challenges come back to the list. */
const afterUnblock = () => afterBlock();

/** A Block's question is open in ``list``: redrawing it would take the question away. */
const asking = (list) => Boolean(list && $('[data-testid=block-confirm]', list));

/** Where the keyboard goes once the row of a Block pressed is gone: the blocked list. */
const blockedTitle = () => $('#blocked-title');
