// The lobby's two sockets: the live list of public tables (WS /v1/tables/live), drawn
// under "Open tables", and the player stream (WS /v1/me/live), which opens a match of
// ours as it starts and says when a challenge comes or closes. The stream outlives the
// lobby while a table or challenge of the player waits, so a join or an acceptance takes
// the player to the match wherever they are; apart from lobby.js, so that the lobby's
// screen is drawn in one place and its sockets kept in another.
import { $, h, heard } from './dom.js';
import { api, savedPlayer } from './api.js';
import { toast } from './ui.js';
import { expectTour } from './tour.js';
import { rememberTable } from './share.js';
import { refill } from './keepfocus.js';
import { tableTerms } from './terms.js';
import { refName } from './names.js';
import { blockButton, isBlocked } from './blocks.js';
import { lobby, waitingForSomeone } from './lobbystate.js';
import { renderMine } from './mytables.js';
import { afterBlock, asking, blockedTitle } from './challenges.js';
import { join, refresh } from './lobby.js';
import { holdPlayerStream } from './playerstream.js';

export function closeStream() {
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
export function listen(player) {
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

export function renderTables(player) {
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

/** A challenge we sent, closed by the one challenged or by its time: said in words. */
const CLOSED_WORDS = {
  declined: (name) => `${name} declined your challenge.`,
  expired: (name) => `Your challenge to ${name} expired unanswered.`,
};

/** The player stream: a match that starts for us opens at once. The stream first names
 * the matches already running: those the lobby leaves alone (the start page lists them). */
export async function follow(player) {
  if (lobby.stream) return;
  // This connection's own mark: a list read for an earlier lobby that comes back late
  // must not open the stream, nor stand for the matches running now.
  const connecting = { connecting: true };
  lobby.stream = connecting;
  const running = await api.listMatches('active').catch(() => ({ matches: [] }));
  const now = savedPlayer();
  if (lobby.stream !== connecting || !now || now.token !== player.token) {
    if (lobby.stream === connecting) lobby.stream = null; // signed out while the list was read
    return;
  }
  // with those known already (one just joined, whose answer came while this list was read)
  lobby.known = new Set([...(lobby.known || []), ...running.matches.map((m) => m.match_id)]);
  // The page's one stream (playerstream.js): held by the rematch watch too, at a match's end.
  const stream = holdPlayerStream(player, { onFrame, onClose });
  lobby.stream = stream;
  clearInterval(lobby.recheck);
  lobby.recheck = setInterval(recheckWaiting, 30000);
  function onFrame(frame) {
    if (frame.type === 'match_started' && !lobby.known.has(frame.match_id) && !frame.watching) {
      openStarted(frame.match_id);
    } else if (frame.type === 'challenge_closed') {
      const sent = lobby.sent.get(frame.table_id);
      // A rematch offer accepted is opened by the match's own page.
      if (sent && frame.match_id && !sent.rematch_of) lobby.accepted.add(frame.match_id);
      // The challenger is told: the challenge only left "Challenges you sent" without a word.
      if (sent && !sent.rematch_of && CLOSED_WORDS[frame.status]) toast(CLOSED_WORDS[frame.status](refName(sent.invitee)), 'info');
      lobby.sent.delete(frame.table_id);
      if (!waitingForSomeone() && document.body.dataset.screen !== 'lobby') closeStream();
      refresh();
    } else if (frame.type === 'challenge') {
      refresh();
    }
  }
  function onClose() {
    if (lobby.stream !== stream) return;
    lobby.stream = null;
    // Dropped (its server killed or restarting) while a table or challenge of ours waits:
    // nothing opened it again, and a join meanwhile never took a player on another screen
    // to the match, whose clock ran on.
    if (waitingForSomeone()) setTimeout(() => resumeWaiting(player), RESUME_MS);
  }
}

const RESUME_MS = 3000;

/** Follow again after the stream dropped, and open the match of a table or challenge of
 * ours taken meanwhile: the stream names it among the matches already running, which it
 * leaves alone. (On the lobby too: the player may leave it while the table waits.) */
async function resumeWaiting(player) {
  const now = savedPlayer();
  if (lobby.stream || !now || now.token !== player.token || !waitingForSomeone()) return;
  await follow(now);
  for (const [tableId, sent] of [...lobby.mine, ...lobby.sent]) {
    const table = await api.table(tableId).catch(() => null);
    if (!table || table.status !== 'started' || !table.match_id) continue;
    if (lobby.sent.delete(tableId)) {
      if (sent.rematch_of) continue; // a rematch is opened by its match's own page
      lobby.accepted.add(table.match_id);
    }
    if (lobby.opened.has(table.match_id)) continue;
    // Over already (taken while the stream was down): said, not opened, as afterRead does.
    const match = await api.getMatch(table.match_id).catch(() => null);
    if (lobby.opened.has(table.match_id)) continue;
    if (match && match.view.phase === 'match_over') {
      lobby.mine.delete(tableId);
      lobby.opened.add(table.match_id);
      toldOver(table.match_id);
      continue;
    }
    openStarted(table.match_id);
  }
}

/** A match of ours started (a table or challenge of ours was taken): open it. */
function openStarted(matchId) {
  lobby.known = lobby.known || new Set();
  lobby.known.add(matchId);
  lobby.opened.add(matchId);
  if (document.body.dataset.screen === 'lobby') {
    expectTour(); // a person's first match may be against a person
    location.hash = `#/match/${encodeURIComponent(matchId)}`;
  } else {
    startedAway(matchId);
  }
}

const isOpen = (socket) => socket instanceof WebSocket && socket.readyState === WebSocket.OPEN;

/** The lobby's read (lobby.js's ``refresh``, every 5 s): while the live list is down (a
 * proxy may refuse sockets) the public tables it read stand for the list's; and the tables
 * and challenges of ours it no longer lists (``gone``) are looked up, a match started from
 * one opened. The player stream says that too, but not without a socket, nor for a match
 * started while it was down (a stream names the matches running as it connects, and the
 * lobby leaves those alone). A match already over by then is told of, not opened. */
export async function afterRead(player, tables, gone) {
  if (!isOpen(lobby.list)) {
    lobby.tables = new Map(tables.map((t) => [t.table_id, t]));
    renderTables(player);
  }
  for (const tableId of gone) {
    const table = await api.table(tableId).catch(() => null);
    if (!table || table.status === 'open' || !table.match_id) continue; // cancelled, expired
    // Opened already (the stream said it, and a private table's taking has no list frame
    // to drop it from ``lobby.mine``): the player who came back to the lobby stays there.
    if (lobby.opened.has(table.match_id)) continue;
    if (document.body.dataset.screen !== 'lobby') return; // the stream opened it meanwhile
    rememberTable(table);
    // Taken while the player was away (and the stream down), its match may be over by
    // now: the lobby the player came back to stays, and says so with a link.
    const match = await api.getMatch(table.match_id).catch(() => null);
    if (document.body.dataset.screen !== 'lobby' || lobby.opened.has(table.match_id)) return;
    if (match && match.view.phase === 'match_over') {
      lobby.opened.add(table.match_id);
      toldOver(table.match_id);
      continue;
    }
    openStarted(table.match_id);
    return;
  }
}

/** A table of ours was taken while we were away and its match is over already. */
function toldOver(matchId) {
  const link = h('a', { href: `#/match/${encodeURIComponent(matchId)}`, 'data-testid': 'ended-link' }, 'see how it ended');
  toast(h('span', {}, 'Someone took a seat at your table while you were away, and that match is over: ', link, '.'), 'info');
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

// The blocks read, or changed (here, or in a chat): the open tables show Block only for
// those not blocked.
// A Block's question called off: the tables it kept from being drawn are drawn now.
for (const news of ['ginrummy:blocks-changed', 'ginrummy:block-question-closed']) {
  document.addEventListener(news, () => {
    if (lobby.player && document.body.dataset.screen === 'lobby') renderTables(lobby.player);
  });
}
