// The same player on another device. The page keeps its token in this browser alone, so a
// person who plays on a laptop had no way to be that player (rating, matches) on a phone.
// The header's "Other device" asks the server for a one-time code (POST
// /v1/me/sign-in-codes) and shows it with a link, #/sign-in/CODE: the code rides in the
// fragment, which no browser sends to a server. The other device opens the link, or types
// the code in the form at #/sign-in ("Have a code from another device?" on the start and
// lobby forms), and redeems it (POST /v1/sign-in-codes/redeem) for a token of its own.
import { $, fill, h } from './dom.js';
import { ApiError, api, savedPlayer, saveCreatedPlayer, saveMatch } from './api.js';
import { closeLobby } from './lobby.js';
import { problemText, toast } from './ui.js';
import { isolate } from './names.js';

/** The header's button; ``closeOthers`` closes any other question there: one at a time. */
export function setUpOtherDevice(closeOthers) {
  $('#nav-device').addEventListener('click', () => openCode(closeOthers));
  $('#device-panel').addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    closeCode();
  });
}

async function openCode(closeOthers) {
  if (!savedPlayer()) return;
  closeOthers();
  const panel = $('#device-panel');
  fill(panel, h('p', {}, 'Asking the server for a code…'));
  panel.hidden = false;
  try {
    const made = await api.signInCode();
    const link = `${location.origin}${location.pathname}#/sign-in/${made.code}`;
    const until = new Date(made.expires_at).toLocaleTimeString(undefined, { timeStyle: 'short' });
    fill(
      panel,
      h('p', {}, 'On your other device, open this link, or choose "Have a code from another device?" there and type the code. It signs that device in as you, with your rating and matches.'),
      h('p', {}, 'Code ', h('b', { class: 'signin-code', 'data-testid': 'signin-code' }, made.code)),
      h('p', {}, h('a', { href: link, 'data-testid': 'signin-link', rel: 'noreferrer' }, link)),
      h('p', { class: 'hint', 'data-testid': 'signin-expiry' }, `It works once, until ${until}. A new code replaces this one.`),
      h('button', { type: 'button', 'data-testid': 'signin-close', onclick: () => closeCode() }, 'Done'),
    );
    $('#device-panel [data-testid=signin-close]').focus();
  } catch (err) {
    fill(panel, h('p', { role: 'alert' }, problemText(err)), h('button', { type: 'button', onclick: () => closeCode() }, 'Close'));
  }
}

/** Closed (Done, Escape, or the player gone); ``refocus``: the keyboard back on the button. */
export function closeCode(refocus = true) {
  const panel = $('#device-panel');
  if (panel.hidden) return;
  panel.hidden = true;
  fill(panel); // the code is not left in the page
  if (refocus && !$('#nav-device').hidden) $('#nav-device').focus();
}

/** #/sign-in[/CODE]: the form, the code filled in from a link, redeemed only when Sign in
 * is pressed. A link redeemed on opening would let anyone who sends one sign a visitor in
 * as the sender's player, whose every move and message the sender then sees and may
 * undo; signed in as a player, the page also says that player would be lost here. */
export function showSignIn(root, code) {
  const player = savedPlayer();
  fill(
    root,
    h('h1', { id: 'signin-title' }, 'Sign in with a code from another device'),
    h(
      'form',
      { class: 'start', id: 'signin-form', onsubmit: (event) => submit(event, root) },
      h('p', { class: 'hint' }, 'On the device where you play, choose "Other device" at the top: it shows a code that works once, for a few minutes.'),
      h('label', {}, 'Code ', h('input', { id: 'signin-code', autocomplete: 'one-time-code', autocapitalize: 'characters', spellcheck: 'false', maxlength: '40', required: true, placeholder: 'ABCDE-FGHJK', value: code || '', 'data-testid': 'signin-input' })),
      h('p', { class: 'hint', 'data-testid': 'signin-whose' }, 'This browser will play as the player who made the code: use only a code from your own device.'),
      player ? h('p', { class: 'form-problem', id: 'signin-replaces', 'data-testid': 'signin-replaces' }, `This browser plays as ${isolate(player.name)}. Signing in with a code replaces ${isolate(player.name)} here, and ${isolate(player.name)} is lost on this browser unless signed in on another device too.`) : null,
      h('p', { id: 'signin-problem', class: 'form-problem', role: 'alert', 'data-testid': 'signin-problem', hidden: true }),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'signin-submit' }, player ? `Sign in, replacing ${isolate(player.name)}` : 'Sign in'),
      h('button', { type: 'button', 'data-testid': 'signin-cancel', onclick: () => location.replace('#/') }, 'Cancel'),
    ),
  );
  $(code ? '[data-testid=signin-submit]' : '#signin-code', root).focus();
}

function submit(event, root) {
  event.preventDefault();
  const code = $('#signin-code', root).value.trim();
  if (code) redeem(root, code);
}

async function redeem(root, code) {
  const button = $('[data-testid=signin-submit]', root);
  button.disabled = true;
  try {
    const { token } = await api.redeemSignInCode(code);
    const me = await api.me(token);
    closeLobby(true); // the player stream, kept for a waiting table, is the old player's
    saveMatch(null); // the old player's match, if any
    saveCreatedPlayer({ id: me.id, name: me.name, token, rating: me.rating });
    $('#name').value = me.name; // the start form's name, which would rename
    toast(`Signed in as ${isolate(me.name)} on this device.`, 'info');
    // Disabled while it waited, the button let the keyboard fall to <body>, where the
    // screen change left it (the top of the page). Back on the button, it goes on to
    // the start form as the screen changes (app.js's keepKeyboard).
    button.disabled = false;
    button.focus();
    location.replace('#/'); // the code leaves the address and the history
  } catch (err) {
    const problem = $('#signin-problem', root);
    if (!problem) return;
    const refused = err instanceof ApiError && err.problem.rule === 'invalid_sign_in_code';
    fill(problem, refused ? 'That code does not work: it was mistyped, has expired or was used already. Check it, or make a new one on the other device.' : problemText(err));
    problem.hidden = false;
    $('#signin-code', root).focus();
  } finally {
    button.disabled = false;
  }
}
