// The engine in the page: the board asks it what the server's JSON API would answer, and
// gets the answer from matombo's own Rust code compiled to WebAssembly. Rules requests
// (replaying a game, legal decisions, records) run at once on the page's thread, as they
// take microseconds; searches (the computer's turns, hints, analysis) run in a worker
// that stop() ends, so the board never freezes.
import { compile, EngineError, instantiate } from './wasm.js';

const wasmUrl = new URL('../wasm/matombo.wasm', import.meta.url);
const workerUrl = new URL('./engine-worker.js', import.meta.url);

let modulePromise = null;
let rulesPromise = null;

/** The compiled module, fetched once. */
export function engineModule() {
  if (!modulePromise) modulePromise = compile(wasmUrl);
  return modulePromise;
}

const ops = {
  '/api/game': 'game',
  '/api/record/export': 'export',
  '/api/record/import': 'import',
  '/api/rulesets': 'rulesets',
  '/api/ruleset': 'ruleset',
  '/api/setup': 'setup',
};

/** Answers a rules request as `POST path` would on the server (errors are thrown). */
export async function request(path, body) {
  const op = ops[path];
  if (!op) throw new Error(`the engine does not answer ${path}`);
  if (!rulesPromise) rulesPromise = engineModule().then((m) => instantiate(m));
  const call = await rulesPromise;
  try {
    return call(op, body);
  } catch (e) {
    // A trap (never expected) may leave the instance broken: the next request starts anew.
    if (!(e instanceof EngineError)) rulesPromise = null;
    throw e;
  }
}

/** A stop()'d search rejects with this error (name "AbortError"). */
export class Stopped extends Error {
  constructor() {
    super('search stopped');
    this.name = 'AbortError';
  }
}

/** Runs searches one at a time in its own worker; stop() ends the running one at once. */
export class Searcher {
  constructor() {
    this.worker = null;
    this.pending = new Map();
    this.seq = 0;
  }

  /** Starts the worker (done by the first run, or earlier to have it ready). */
  async start() {
    if (this.worker) return;
    const module = await engineModule();
    if (this.worker) return;
    this.worker = new Worker(workerUrl, { type: 'module' });
    this.worker.onmessage = ({ data }) => {
      const job = this.pending.get(data.id);
      if (!job) return;
      if ('progress' in data) {
        job.onProgress(data.progress);
        return;
      }
      this.pending.delete(data.id);
      if ('ok' in data) job.resolve(data.ok);
      else job.reject(Object.assign(new Error(data.message), { code: data.error, status: data.status }));
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`engine: ${e.message || 'the worker failed'}`));
    };
    this.worker.postMessage({ module });
  }

  /** Runs `op` ("ai", "analyse", "speed") on `body`; `onProgress` gets analysis depths. */
  async run(op, body, onProgress = () => {}) {
    await this.start();
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, body });
    });
  }

  /** True while a search runs. */
  get busy() {
    return this.pending.size > 0;
  }

  fail(error) {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    const jobs = [...this.pending.values()];
    this.pending.clear();
    jobs.forEach((j) => j.reject(error));
  }

  /**
   * Ends the running search (its promise rejects with Stopped) and starts a fresh worker
   * at once, so that the next search finds it ready.
   */
  stop() {
    if (!this.pending.size) return;
    this.fail(new Stopped());
    this.start().catch(() => {});
  }
}

/** A random seed for the computer's choices (the engine has no randomness of its own). */
export function randomSeed() {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}
