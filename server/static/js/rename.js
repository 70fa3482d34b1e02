// Changing the player's name from any screen. The start form's Deal was the page's one
// way to rename, and it starts a match against the computer as well, so a person who came
// in by the lobby or an invite link kept the first name they typed. The header's "Change
// name" opens a small form there (PATCH /v1/players/{id}); a name refused (one passing for
// an opponent's or a challenger's, one no player may take) is said in the form and the old
// name kept. The other tabs follow through the saved player (app.js's storage listener).
import { $, fill, h } from './dom.js';
import { ApiError, api, forgetRefusedPlayer, savePlayer, savedPlayer } from './api.js';
import { problemText, toast } from './ui.js';
import { NAME_BOX_UNITS, isolate, takesAName } from './names.js';

/** ``closeOthers``: closes any other question in the header (the sign-out's): one at a time. */
export function setUpRename(closeOthers) {
  $('#nav-rename').addEventListener('click', () => openRename(closeOthers));
  $('#rename-form').addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation(); // the form's own: a resign being asked at the table stays asked
    closeRename();
  });
}

/** The form, filled with the name now; the keyboard goes to it. */
function openRename(closeOthers) {
  const player = savedPlayer();
  if (!player) return;
  closeOthers();
  const form = $('#rename-form');
  fill(
    form,
    h('label', {}, 'Your new name ', takesAName(h('input', { id: 'rename-name', maxlength: NAME_BOX_UNITS, autocomplete: 'nickname', required: true, value: player.name, 'data-testid': 'rename-name' }))),
    h('button', { type: 'submit', class: 'primary', 'data-testid': 'rename-save' }, 'Save name'),
    h('button', { type: 'button', 'data-testid': 'rename-cancel', onclick: () => closeRename() }, 'Cancel'),
    h('p', { id: 'rename-problem', class: 'form-problem', role: 'alert', 'data-testid': 'rename-problem', hidden: true }),
  );
  form.onsubmit = rename;
  form.hidden = false;
  $('#rename-name').select();
  $('#rename-name').focus();
}

/** Closed (Cancel, Escape, saved, or the player gone); ``refocus``: the keyboard back on "Change name". */
export function closeRename(refocus = true) {
  const form = $('#rename-form');
  if (form.hidden) return;
  form.hidden = true;
  fill(form);
  if (refocus && !$('#nav-rename').hidden) $('#nav-rename').focus();
}

async function rename(event) {
  event.preventDefault();
  const player = savedPlayer();
  const name = $('#rename-name').value.trim();
  if (!player || !name) return;
  if (name === player.name) return closeRename();
  const save = $('#rename-form [data-testid=rename-save]');
  save.disabled = true;
  try {
    const renamed = await api.renamePlayer(player.id, name);
    const now = savedPlayer();
    if (now && now.id === player.id) savePlayer({ ...now, name: renamed.name });
    $('#name').value = renamed.name; // the start form's name, which would rename again
    closeRename();
    toast(`You are ${isolate(renamed.name)} now.`, 'info');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forgetRefusedPlayer(err); // a token this server no longer knows: nobody to rename
      closeRename();
      toast(problemText(err));
      return;
    }
    const problem = $('#rename-problem');
    if (!problem) return;
    fill(problem, problemText(err));
    problem.hidden = false;
    $('#rename-name').focus();
  } finally {
    save.disabled = false;
  }
}
