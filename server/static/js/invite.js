// An invite link opened (#/join/TABLE/CODE): whose table it is and what its match will
// be, read with the link's code before the player joins. "You are invited to a table."
// told neither who invited them nor whether the match is rated or under a clock (the
// public tables list all that), and a link to a table that is gone, or the host's own
// link opened to try it, offered a Join that could only fail. Two friends who go by one
// name cannot sit together (nobody could tell them apart): the notice asks the one
// joining for another name, which the page had no place for but the start form's Deal.
import { fill, h } from './dom.js';
import { api, ApiError, savedPlayer, savePlayer } from './api.js';
import { NAME_BOX_UNITS, nameKey, refName, takesAName } from './names.js';
import { problemText } from './ui.js';
import { tableTerms } from './terms.js';

// Why a table no longer takes a guest, in words (TableView's ``status``).
const GONE = {
  started: 'someone else took its seat',
  cancelled: 'its host cancelled it',
  expired: 'nobody joined it in time',
  declined: 'it was declined',
};

// A join refused because the table no longer takes a guest: the status it has.
const REFUSED_AS = {
  table_full: 'started',
  table_started: 'started',
  table_cancelled: 'cancelled',
  table_expired: 'expired',
};

/** Why there is nothing to join, and where to turn (``host``: who invites, if read). */
const closedWords = (status, host) =>
  `This table is closed: ${GONE[status] || status}. Ask ${host ? refName(host) : 'whoever sent the link'} for a new link.`;

/** The invite's notice with its Join (``onJoin(tableId, code, refused)``, lobby.js's join;
 * ``refused(err)`` takes a refusal for the player's name); it says who invites them and
 * the match's terms (read with the link's code, signed in or not), or why there is
 * nothing to join. */
export function inviteNotice(invite, onJoin) {
  const about = h('span', { id: 'invite-about', 'data-testid': 'invite-about' }, 'You are invited to a table.');
  const box = h('div', { class: 'resume', 'data-testid': 'invite', tabindex: '-1' });
  const read = {}; // the table as the link's code read it (describe)
  const refused = (err) => {
    const rule = err instanceof ApiError ? err.problem.rule : null;
    if (rule === 'name_taken') return askName(box, null, joinAgain);
    // Taken meanwhile (or gone): the Join stayed and could only be refused again. The toast
    // still says the refusal in the server's words.
    if (REFUSED_AS[rule]) replace(box, closedWords(REFUSED_AS[rule], read.table && read.table.host));
    return false;
  };
  const joinAgain = () => onJoin(invite.table, invite.code, refused);
  const join = h('button', { type: 'button', class: 'primary', 'data-testid': 'join-invite', 'aria-describedby': 'invite-about', onclick: joinAgain, hidden: true }, 'Join the match');
  // The Join comes first, so the words after it cannot move it: after them, it jumped as
  // they came in, and a press just then landed beside it and did nothing (seen in CI). It
  // shows once they are read, so that who invites is said before it; a read that fails,
  // or takes over REVEAL_MS, shows it all the same.
  fill(box, join, ' ', about);
  const reveal = () => {
    if (!join.hidden) return;
    const focused = document.activeElement === box; // the keyboard waits on the notice
    join.hidden = false;
    if (focused) join.focus();
  };
  setTimeout(reveal, REVEAL_MS);
  describe(box, about, invite, savedPlayer(), joinAgain, read).finally(reveal); // before signing in, too
  return box;
}

const REVEAL_MS = 3000;

async function describe(box, about, invite, player, joinAgain, read) {
  const me = player ? player.id : null;
  let table;
  try {
    table = await api.table(invite.table, invite.code);
  } catch (err) {
    // A wrong code and a table that never was answer alike (the server's 404).
    if (err && [403, 404].includes(err.status)) replace(box, 'This invite link leads to no table: it may be cut short or mistyped. Ask for the link again.');
    return; // not read (the network): Join stays, and says what went wrong if pressed
  }
  read.table = table;
  const seated = table.host.id === me || (table.guest && table.guest.id === me);
  if (table.status === 'started' && seated && table.match_id) {
    replace(box, 'This table\'s match has started: ', h('a', { href: `#/match/${encodeURIComponent(table.match_id)}`, 'data-testid': 'invite-match' }, 'open the match'), '.');
  } else if (table.host.id === me) {
    replace(box, table.status === 'open'
      ? `This is your own table's invite link (${tableTerms(table)}): give it to your opponent; the match opens when they join.`
      : `This is your own table's invite link; the table is closed: ${GONE[table.status] || table.status}.`);
  } else if (table.status !== 'open') {
    replace(box, closedWords(table.status, table.host));
  } else {
    fill(about, `${refName(table.host)} invites you to a table: ${tableTerms(table)}.`);
    if (player && nameKey(table.host.name) === nameKey(player.name)) askName(box, table.host, joinAgain);
  }
}

/** The notice asks for another name, then renames the player and joins (``joinAgain``);
 * ``host``: the host named, when known. */
function askName(box, host, joinAgain) {
  const input = takesAName(h('input', { id: 'invite-name', maxlength: NAME_BOX_UNITS, autocomplete: 'nickname', required: true, 'data-testid': 'invite-name', 'aria-describedby': 'invite-same-name' }));
  const problem = h('p', { class: 'form-problem', role: 'alert', 'data-testid': 'invite-name-problem', hidden: true });
  const rename = async (event) => {
    event.preventDefault();
    try {
      const player = savedPlayer();
      const renamed = await api.renamePlayer(player.id, input.value.trim());
      savePlayer({ ...player, name: renamed.name });
      joinAgain();
    } catch (err) {
      fill(problem, problemText(err));
      problem.hidden = false;
    }
  };
  fill(
    box,
    box.querySelector('#invite-about'), // who invites, and to what, stay said
    h('form', { class: 'start', onsubmit: rename },
      h('p', { id: 'invite-same-name', 'data-testid': 'invite-same-name' }, `${host ? refName(host) : 'This table\'s host'} goes by a name that passes for yours: nobody could tell you apart in the match. Choose another name to join.`),
      h('label', {}, 'Your new name ', input),
      problem,
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'invite-rename' }, 'Rename and join')),
  );
  input.focus();
  return true;
}

/** The notice in other words, without its Join: a keyboard on that Join goes to them. */
function replace(box, ...words) {
  const had = box.contains(document.activeElement);
  fill(box, ...words);
  if (had) box.focus();
}
