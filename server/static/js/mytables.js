// The player's own tables still waiting, under "Your table(s)": opening one from the
// lobby's form, each listed with its invite link if private and its Cancel. Public ones
// come from the live list and GET /v1/tables, private ones from GET /v1/tables?mine=true
// and those opened in this browser (share.js); apart from lobby.js, which draws the form
// and reads the lists, so that what a host's waiting table shows lives in one place.
import { $, fill, h, heard } from './dom.js';
import { api } from './api.js';
import { announce, problemText, toast } from './ui.js';
import { linkField, rememberTable } from './share.js';
import { refill } from './keepfocus.js';
import { keepingPointerStill } from './keeppointer.js';
import { tableTerms } from './terms.js';
import { chosenTerms, clearProblem, rememberTerms, showProblem } from './timecontrol.js';
import { chosenRules } from './customrules.js';
import { ensurePlayer, lobby } from './lobbystate.js';
import { follow } from './lobbylive.js';
import { refresh } from './lobby.js';

export async function openTable(event) {
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
export function renderMine() {
  const box = $('#waiting');
  if (!box) return;
  const tables = [...lobby.mine.values()].sort((a, b) => (a.opened_at < b.opened_at ? -1 : 1));
  // The box sits above the challenges and the open tables: shown or hidden (a table of the
  // player's opened or taken elsewhere), it moves them, under the mouse too (keeppointer.js).
  keepingPointerStill(() => drawMine(box, tables));
}

function drawMine(box, tables) {
  box.hidden = tables.length === 0;
  if (!tables.length) {
    fill(box);
    return;
  }
  // The list is refilled row by row (keepfocus.js): refilled as one child of ``box``, the
  // whole list was drawn anew when any table came or went, and a Cancel or Copy pressed
  // on another table just then lost its click.
  let list = $('[data-testid=my-tables]', box);
  if (!list) {
    list = h('ul', { 'data-testid': 'my-tables' });
    fill(box, h('h2'), h('p', {}, 'Waiting for an opponent… the match opens as soon as someone joins.'), list);
  }
  refill($('h2', box), tables.length === 1 ? 'Your table' : 'Your tables');
  refill(list, tables.map(myTable));
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
