// The room's chat: the players' channel, the spectators' and, in a team game, the team's
// (the server sends a team's lines to its members only; here each channel keeps its own
// list, so that a team line is never shown among the others). Lines are always text.
import { nameElement } from './names.js';
import { fill } from '../js/page.js';

/**
 * @typedef {object} ChatHooks
 * @property {Record<string, string>} words
 * @property {(msg: Record<string, any>) => void} send
 * @property {(v: any) => boolean} mine the line is the reader's own
 * @property {Set<string>} muted senders muted (kept in the browser)
 * @property {() => void} saveMuted
 */

/** Wires the chat forms; answers the function that shows a `chat` message. */
export function setupChat(/** @type {ChatHooks} */ h) {
  const { words } = h;
  for (const form of document.querySelectorAll('.chat-form')) {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const input = form.querySelector('input');
      const text = input.value.trim();
      if (!text) return;
      /** @type {Record<string, any>} */
      const msg = { type: 'chat', text };
      if (form.dataset.channel === 'team') msg.channel = 'team';
      h.send(msg);
      input.value = '';
    });
  }

  return function onChat(/** @type {any} */ v) {
    const channel = v.channel === 'team' || v.channel === 'players' ? v.channel : 'spectators';
    const list = document.getElementById(`chat-log-${channel}`);
    if (!list || (channel !== 'team' && h.muted.has(v.from))) return;
    const li = document.createElement('li');
    li.dataset.from = v.from;
    const who = document.createElement('strong');
    if (v.name) who.replaceChildren(nameElement(v.name));
    else who.textContent = v.from === 'south' || v.from === 'north' ? (v.from === 'north' ? words.north : words.south) : words.spectator;
    const text = document.createElement('span');
    text.className = 'chat-text';
    text.textContent = v.text;
    li.append(who, ': ', text);
    // Team mates are not muted (the captain may remove a member instead).
    if (channel !== 'team' && !h.mine(v)) {
      const mute = document.createElement('button');
      mute.type = 'button';
      mute.className = 'mute';
      mute.textContent = words.mute;
      mute.title = fill(words.mute_who, { name: who.textContent });
      mute.addEventListener('click', () => {
        h.muted.add(v.from);
        h.saveMuted();
        h.send({ type: 'mute', from: v.from });
        for (const e of list.querySelectorAll('li')) if (/** @type {HTMLElement} */ (e).dataset.from === v.from) e.remove();
      });
      li.append(' ', mute);
    }
    list.append(li);
    while (list.children.length > 200) list.firstElementChild.remove();
    list.scrollTop = list.scrollHeight;
  };
}
