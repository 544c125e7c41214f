// The room's WebSocket: one connection at a time, `hello` first, reconnection with a
// growing pause (at once when the server restarts), and the question whether the room
// exists at all (a wrong link) when no state ever came.

/** True when the server says the room does not exist (a 404, not a network failure). */
export async function roomMissing(/** @type {string} */ id) {
  if (!id) return true;
  try {
    const r = await fetch(`/api/online/rooms/${id}`);
    return r.status === 404;
  } catch (_) {
    return false;
  }
}

/**
 * @typedef {object} SocketHooks
 * @property {() => Record<string, any>} hello the first message
 * @property {(socket: WebSocket) => void} [opened] after the hello (e.g. the mutes again)
 * @property {(v: any) => Promise<void> | void} message each message, in order
 * @property {() => boolean} stopped true once the room takes no more connections
 * @property {(why: 'missing' | 'closed' | 'reconnecting') => void} lost the connection ended
 * @property {() => boolean} seen true once a state came
 * @property {(e: any) => void} failed a message's handling threw
 */

export class RoomSocket {
  /** @param {string} id @param {SocketHooks} hooks */
  constructor(id, hooks) {
    this.id = id;
    this.hooks = hooks;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 500;
    this.queue = Promise.resolve();
  }

  send(/** @type {Record<string, any>} */ msg) {
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  /** Closes the connection without reconnecting (a new one may follow with `connect`). */
  drop() {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
  }

  connect() {
    const h = this.hooks;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${proto}://${location.host}/api/online/rooms/${this.id}/ws`);
    this.ws = socket;
    socket.onopen = () => {
      this.retry = 500;
      socket.send(JSON.stringify(h.hello()));
      if (h.opened) h.opened(socket);
    };
    socket.onmessage = (m) => {
      let v;
      try {
        v = JSON.parse(m.data);
      } catch (_) {
        return;
      }
      this.queue = this.queue.then(() => h.message(v)).catch(h.failed);
    };
    socket.onclose = async (e) => {
      if (this.ws !== socket || h.stopped()) return;
      if (e.code === 4404) return h.lost('missing');
      if (e.code === 4410) return h.lost('closed');
      // No state ever came: the room may not exist (a wrong link).
      if (!h.seen() && (await roomMissing(this.id))) return h.lost('missing');
      h.lost('reconnecting');
      // 1012: the server restarts (or drains for another node): try again at once.
      if (e.code === 1012) this.retry = 100;
      setTimeout(() => {
        if (this.ws === socket && !h.stopped()) this.connect();
      }, this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }
}
