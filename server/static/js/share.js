// A match's watch link: what a spectator opens (#/watch/MATCH, or #/watch/MATCH/CODE for
// a private table's match), shown to the match's players with a button that copies it.
// A private match's watch code comes only from the tables API's answers to a seated
// player (the table opened, joined, read or played again); the page keeps each code in
// this browser's localStorage, beside the player's token, and shows it to nobody else.
import { fill, h } from './dom.js';
import { api } from './api.js';
import { toast } from './ui.js';

const CODES_KEY = 'ginrummy.watch-codes'; // match id → watch code
const TABLES_KEY = 'ginrummy.private-tables'; // private tables opened here, not yet started
const KEEP = 50;

function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || '{}') || {};
  } catch {
    return {};
  }
}

/** ``map`` with ``key`` set (null: removed), the newest ``KEEP`` kept. */
function store(storageKey, key, value) {
  const kept = Object.entries(load(storageKey)).filter(([k]) => k !== key);
  if (value !== null) kept.push([key, value]);
  localStorage.setItem(storageKey, JSON.stringify(Object.fromEntries(kept.slice(-KEEP))));
}

/** Keep the watch code a seat's match answer carries (a private table's match), so a
 * player on another browser, or one whose join's answer has not come yet, has it too. */
export function rememberWatchCode(matchId, code) {
  if (code && load(CODES_KEY)[matchId] !== code) store(CODES_KEY, matchId, code);
}

/** Keep what a table answer (``TableView``) tells its player: the watch code of its match,
 * or, while nobody has joined a private table, the table itself (its match id comes later). */
export function rememberTable(table) {
  if (!table || !table.watch_code) return;
  if (table.match_id) {
    store(CODES_KEY, table.match_id, table.watch_code);
    store(TABLES_KEY, table.table_id, null);
  } else if (table.status === 'open') {
    store(TABLES_KEY, table.table_id, true);
  } else {
    store(TABLES_KEY, table.table_id, null);
  }
}

/** The watch code of match ``matchId`` if this browser was given it: kept, or asked of a
 * private table opened here that has started since. */
export async function watchCodeOf(matchId) {
  if (load(CODES_KEY)[matchId]) return load(CODES_KEY)[matchId];
  for (const tableId of Object.keys(load(TABLES_KEY))) {
    // Forgotten only when it is gone (404) or not ours (403); a failed read is asked again.
    const table = await api.table(tableId).catch((err) => ([403, 404].includes(err && err.status) ? null : undefined));
    if (table) rememberTable(table);
    else if (table === null) store(TABLES_KEY, tableId, null);
  }
  return load(CODES_KEY)[matchId] || null;
}

/** The private tables opened in this browser that still wait for an opponent (a host's
 * private tables are listed nowhere else): each read again, the closed ones forgotten. */
export async function openPrivateTables() {
  const open = [];
  for (const tableId of Object.keys(load(TABLES_KEY))) {
    const table = await api.table(tableId).catch((err) => ([403, 404].includes(err && err.status) ? null : undefined));
    if (table) rememberTable(table);
    else if (table === null) store(TABLES_KEY, tableId, null);
    if (table && table.status === 'open') open.push(table);
  }
  return open;
}

/** Signing out forgets the codes with the player they were given to. */
export function forgetWatchCodes() {
  localStorage.removeItem(CODES_KEY);
  localStorage.removeItem(TABLES_KEY);
}

export function watchLink(matchId, code) {
  const route = `#/watch/${encodeURIComponent(matchId)}${code ? `/${encodeURIComponent(code)}` : ''}`;
  return `${location.origin}${location.pathname}${route}`;
}

/** A link in a read-only field, and a button that copies it and says so. */
export function linkField(label, link, testid) {
  const field = h('input', { readonly: true, value: link, size: '48', 'aria-label': label, 'data-testid': testid });
  const button = h('button', { type: 'button', class: 'copy', 'data-testid': `${testid}-copy` }, 'Copy');
  button.addEventListener('click', () => copy(field, button, label));
  return h('span', { class: 'link-field' }, field, ' ', button);
}

async function copy(field, button, label) {
  let copied = false;
  try {
    await navigator.clipboard.writeText(field.value);
    copied = true;
  } catch {
    field.select(); // no clipboard access: the old way, on the selected text
    copied = document.execCommand('copy');
  }
  if (!copied) {
    toast(`Could not copy: select the ${label.toLowerCase()} and copy it yourself.`);
    return;
  }
  fill(button, 'Copied ✓');
  toast(`${label} copied.`, 'info');
  setTimeout(() => fill(button, 'Copy'), 2500);
}

/** The table's watch link, in ``el``, for match ``matchId``; ``current()`` says the page
 * is still on that match when the answers come. Without a kept code the match is asked
 * for as a spectator would: a private match refuses, and then only a note is shown. */
export async function showWatchLink(el, matchId, current) {
  fill(el);
  let code = await watchCodeOf(matchId);
  let open = code ? true : await api.spectate(matchId).then(() => true, () => false);
  // A private match whose code this page is about to be given (the join's answer can
  // arrive after the player stream has opened the match) or read back (a table opened
  // here): ask again for a few seconds before settling for the note.
  for (let tries = 0; !open && tries < 5 && current(); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    code = await watchCodeOf(matchId);
    open = Boolean(code);
  }
  if (!current()) return;
  if (!open) {
    fill(el, h('p', { class: 'hint', 'data-testid': 'watch-link-private' },
      'This match is private: its watch link (with the watch code) is shown on the page that opened or joined the table.'));
    return;
  }
  fill(
    el,
    h('p', { class: 'share' }, h('span', {}, 'Watch link, for spectators: '), linkField('Watch link', watchLink(matchId, code), 'watch-link')),
    code ? h('p', { class: 'hint' }, 'A private match: the link carries its watch code, so give it only to those you want watching.') : null,
  );
}
