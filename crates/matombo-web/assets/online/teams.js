// A team game's people on the room page (issue 42): both rosters (names isolated, who is
// online, the captain; the captain's controls), the proposals of captain mode, and the
// forms that take a seat (`#invite=`) or join a team (`#join=`).
import { nameElement } from './names.js';
import { $, fill } from '../js/page.js';

/** @typedef {import('../js/wire.js').Teams} Teams @typedef {import('../js/wire.js').Proposal} Proposal */

export class Rosters {
  /**
   * @param {Record<string, string>} words
   * @param {(msg: Record<string, any>) => void} send
   */
  constructor(words, send) {
    this.words = words;
    this.send = send;
    /** @type {Teams | null} */
    this.teams = null;
    this.member = '';
    /** @type {Set<string> | null} members connected now (from `presence`) */
    this.online = null;
    /** @type {Proposal[]} */
    this.proposals = [];
  }

  /** The member record of this connection, and his side. */
  me() {
    if (!this.teams || !this.member) return null;
    for (const side of ['south', 'north']) {
      const m = this.teams[side].members.find((x) => x.member === this.member);
      if (m) return { ...m, side };
    }
    return null;
  }

  /**
   * What our whole turn is sent as: played, a vote, or a proposal to the captain.
   * @returns {'turn' | 'vote' | 'propose'}
   */
  turnKind() {
    const me = this.me();
    if (!this.teams || !me) return 'turn';
    if (this.teams.mode === 'vote') return 'vote';
    if (this.teams.mode === 'captain' && !me.captain) return 'propose';
    return 'turn';
  }

  onProposal(/** @type {Proposal} */ v) {
    this.proposals = this.proposals.filter((p) => p.member !== v.member || p.ply !== v.ply);
    this.proposals.push(v);
  }

  turnPlayed(/** @type {number} */ moves) {
    this.proposals = this.proposals.filter((p) => p.ply >= moves);
  }

  /** Draws both rosters (and the proposals of the game now, `moves` turns played). */
  render(/** @type {number} */ moves) {
    const t = this.teams;
    const w = this.words;
    $('team-panel').hidden = !t;
    if (!t) return;
    const me = this.me();
    $('team-mode').textContent = fill(w.team_mode_is, { mode: w[`team_mode_${t.mode}`] || t.mode });
    for (const side of ['south', 'north']) {
      const ul = $(`roster-${side}`);
      const sig = JSON.stringify([t[side], me, [...(this.online || [])]]);
      if (ul.dataset.sig === sig) continue;
      ul.dataset.sig = sig;
      ul.replaceChildren();
      for (const m of t[side].members) {
        const online = this.online ? this.online.has(m.member) : m.online;
        const li = document.createElement('li');
        li.dataset.member = m.member;
        const dot = document.createElement('span');
        dot.className = `dot ${online ? 'on' : 'off'}`;
        dot.title = online ? w.online_now : w.offline_now;
        const sr = document.createElement('span');
        sr.className = 'sr-only';
        sr.textContent = online ? w.online_now : w.offline_now;
        dot.append(sr);
        li.append(dot, nameElement(m.name));
        if (m.captain) {
          const c = document.createElement('span');
          c.className = 'captain';
          c.textContent = `★ ${w.captain}`;
          li.append(' ', c);
        }
        if (me && m.member === me.member) li.append(` (${w.you})`);
        // The captain's controls, for the other members of his side.
        if (me && me.captain && me.side === side && m.member !== me.member) {
          // Named for screen readers with the visible words first (WCAG 2.5.3).
          li.append(' ', this.button(w.make_captain, `${w.make_captain}: ${m.name}`, { type: 'captain', member: m.member }));
          li.append(' ', this.button(w.remove_member, `${w.remove_member}: ${m.name}`, { type: 'remove', member: m.member }));
        }
        ul.append(li);
      }
    }
    const list = $('proposals');
    const shown = t.mode === 'captain' && !!me;
    $('proposals-box').hidden = !shown;
    list.replaceChildren();
    for (const p of this.proposals.filter((x) => x.ply === moves)) {
      const li = document.createElement('li');
      li.append(nameElement(p.name), `: ${p.move}`);
      list.append(li);
    }
    $('no-proposals').hidden = list.children.length > 0;
  }

  button(/** @type {string} */ text, /** @type {string} */ label, /** @type {Record<string, any>} */ msg) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'small';
    b.textContent = text;
    b.setAttribute('aria-label', label);
    b.addEventListener('click', () => this.send(msg));
    return b;
  }
}

/**
 * Asks for a name, then takes the free seat (`claim`, an invitation) or joins a side's team
 * (`join`, a team's link); `done` gets the server's answer (its `token`) and the name.
 * @param {{ id: string, kind: 'claim' | 'join', code: string, words: Record<string, string>, name: string, error: (t: string) => void, done: (v: any, name: string) => void }} o
 */
export function offerSeat(o) {
  const form = $('claim');
  form.hidden = false;
  $('claim-name').value = o.name;
  if (o.kind === 'join') $('btn-claim').textContent = o.words.join_team;
  form.addEventListener('submit', async (/** @type {Event} */ ev) => {
    ev.preventDefault();
    const name = $('claim-name').value.trim().slice(0, 40);
    $('btn-claim').disabled = true;
    try {
      const r = await fetch(`/api/online/rooms/${o.id}/${o.kind}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ invite: o.code, name }),
      });
      const v = await r.json();
      if (!r.ok) {
        o.error(v.message);
        $('btn-claim').disabled = false;
        return;
      }
      form.hidden = true;
      o.done(v, name);
    } catch (e) {
      o.error(e.message);
      $('btn-claim').disabled = false;
    }
  });
}
