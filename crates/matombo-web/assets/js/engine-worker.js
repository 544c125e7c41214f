// A Web Worker running the engine's searches off the page's main thread. The page stops
// a search by ending this worker (a search in WebAssembly cannot be interrupted).
//   page -> worker: {module} once, then {id, op, body}
//   worker -> page: {id, progress} (analysis depths), then {id, ok} or {id, error, message, status}
//   (error: the code of the server's error body, message: its sentence)
import { instantiate } from './wasm.js';

let ready = null;
const queue = [];

function run({ id, op, body }) {
  try {
    const ok = ready.call(op, body, id);
    postMessage({ id, ok });
  } catch (e) {
    postMessage({ id, error: e.code || 'internal', message: e.message || String(e), status: e.status || 500 });
  }
}

let current = 0;
onmessage = async ({ data }) => {
  if (data.module) {
    const call = await instantiate(data.module, (progress) => postMessage({ id: current, progress }));
    ready = {
      call: (op, body, id) => {
        current = id;
        return call(op, body);
      },
    };
    queue.splice(0).forEach(run);
  } else if (ready) {
    run(data);
  } else {
    queue.push(data);
  }
};
