// A challenge (or rematch offer) that comes while the page is off the lobby. The lobby
// lists those sent to the player and its player stream says when one comes, but off the
// lobby that stream must stay shut (an open stream counts as present in every match of
// the player, so an opponent could not claim one by absence): a person challenged at the
// start screen, or at a match against the computer, never heard of it, and it expired.
// Off the lobby, then, GET /v1/challenges is read every 15 s (poll.js: one request at a
// time, none in a hidden tab). A challenge waits 10 minutes by default, so 15 s is soon
// enough, and one short read per signed-in tab every 15 s costs the server little. Those
// for the player are written in a line under the header (#challenge-notice), in the flow:
// it pushes the page down rather than cover the hand or the action bar on a phone. Each
// is told to screen readers once; one gone (accepted elsewhere, declined, cancelled,
// expired) leaves the line. Its link opens the lobby, where Accept, Decline and Block
// are; "Later" puts those listed aside until another comes. Started and stopped by
// app.js as the screen or the player changes.
import { $, fill, h } from './dom.js';
import { api, savedPlayer } from './api.js';
import { announce } from './ui.js';
import { pollWhileVisible } from './poll.js';
import { tableTerms } from './terms.js';
import { refName } from './names.js';
import { isBlocked } from './blocks.js';
import { keepingPointerStill } from './keeppointer.js';
import { refill } from './keepfocus.js';
import { lobby } from './lobbystate.js';

const EVERY_MS = 15000;

const notice = {
  poll: null,
  token: null, // the player followed, by token: a new sign-in (another tab's too) starts over
  of: null, // the player whose challenges ``told`` and ``later`` name
  told: new Set(), // table ids already told (here, or read in the lobby)
  later: new Set(), // table ids put aside with "Later"
};

/** Follow the player's challenges while ``offLobby`` and signed in; else stop and clear. */
export function followChallenges(offLobby) {
  const player = savedPlayer();
  if (!player || !offLobby) return stopFollowing();
  if (notice.poll && notice.token === player.token) return;
  stopFollowing();
  if (notice.of !== player.id) {
    notice.of = player.id;
    notice.told = new Set();
    notice.later = new Set();
  }
  // Those the lobby listed were read there (and said, if they came while it was open).
  for (const id of lobby.heard || []) notice.told.add(id);
  notice.token = player.token;
  notice.poll = pollWhileVisible(() => look(player.token), { every: EVERY_MS, alive: () => (savedPlayer() || {}).token === player.token });
}

function stopFollowing() {
  if (notice.poll) notice.poll.stop();
  notice.poll = null;
  notice.token = null;
  draw([]);
}

async function look(token) {
  const { challenges } = await api.challenges();
  const me = savedPlayer();
  if (!notice.poll || !me || me.token !== token) return; // left for the lobby, or signed out, meanwhile
  // The server leaves out a blocked sender's (GET /v1/challenges); one blocked since is left out here.
  const mine = challenges.filter((c) => c.invitee && c.invitee.id === me.id && !isBlocked(c.host.id));
  const open = new Set(mine.map((c) => c.table_id));
  for (const ids of [notice.told, notice.later]) for (const id of ids) if (!open.has(id)) ids.delete(id);
  for (const c of mine) if (onItsTable(c)) notice.told.add(c.table_id); // the table says it
  const incoming = mine.filter((c) => !onItsTable(c));
  const among = incoming.map((c) => c.host); // told apart if alike
  for (const c of incoming) {
    if (notice.told.has(c.table_id)) continue;
    notice.told.add(c.table_id);
    announce(`${offer(c, among)}: answer it in the lobby (Play a person).`);
  }
  draw(incoming.filter((c) => !notice.later.has(c.table_id)), among);
}

/** A rematch offer is shown, with its Accept, on the table of the match it follows (rematch.js). */
function onItsTable(challenge) {
  const at = /^#\/?match\/([^/]+)/.exec(location.hash);
  return Boolean(challenge.rematch_of && at && decodeURIComponent(at[1]) === challenge.rematch_of);
}

const offer = (c, among) => `${refName(c.host, among)} ${c.rematch_of ? 'offers you a rematch' : 'challenges you'} (${tableTerms(c)})`;

/** The line as ``shown`` says, the page kept still under a mouse (keeppointer.js) and the
 * keyboard on the control it was on (keepfocus.js). */
function draw(shown, among = []) {
  const line = $('#challenge-notice');
  if (!line) return;
  line.dataset.tables = shown.map((c) => c.table_id).join(' ');
  if (!shown.length) {
    if (!line.hidden) {
      keepingPointerStill(() => {
        line.hidden = true;
      });
    }
    fill(line);
    return;
  }
  const parts = [
    h('ul', {}, shown.map((c) => h('li', { 'data-table': c.table_id, 'data-testid': 'challenge-notice-item' }, offer(c, among)))),
    h('a', { href: '#/lobby', class: 'button', 'data-testid': 'challenge-notice-open' }, shown.length > 1 ? 'Answer them in the lobby' : 'Answer in the lobby'),
    h('button', { type: 'button', class: 'link', 'data-testid': 'challenge-notice-later', onclick: putAside }, 'Later'),
  ];
  if (!line.hidden) return refill(line, ...parts);
  fill(line, ...parts);
  keepingPointerStill(() => {
    line.hidden = false;
  });
}

/** "Later": the line goes until another challenge comes; the keyboard goes to the screen's heading. */
function putAside() {
  const line = $('#challenge-notice');
  for (const id of (line.dataset.tables || '').split(' ').filter(Boolean)) notice.later.add(id);
  draw([]);
  const screen = $('.screen:not([hidden])');
  const heading = screen && screen.querySelector('h1');
  if (!heading) return;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
}
