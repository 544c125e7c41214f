// The engine's WebAssembly module (crate matombo-wasm): matombo's rules and search, the
// same Rust code as the server's. This is the whole glue: JSON in, JSON out, through the
// module's memory (see crates/matombo-wasm/src/lib.rs for the interface).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Compiles the module at `url` (streaming where the server sends application/wasm). */
export async function compile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`engine: ${url}: ${response.status}`);
  try {
    return await WebAssembly.compileStreaming(response.clone());
  } catch (_) {
    return WebAssembly.compile(await response.arrayBuffer());
  }
}

/** An error answered by the engine: its code and message, and the HTTP status the server would give. */
export class EngineError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/**
 * Instantiates `module`; `onReport` receives an analysis's progress (parsed JSON).
 * Returns `call(op, body)`, which answers the request's result or throws EngineError.
 * @param {WebAssembly.Module} module
 * @param {(report: any) => void} [onReport]
 */
export async function instantiate(module, onReport = () => {}) {
  /** @type {any} the module's exports (memory and functions) */
  let exports = null;
  const bytes = (ptr, len) => new Uint8Array(exports.memory.buffer, ptr, len);
  const env = {
    matombo_now_ms: () => performance.now(),
    matombo_report: (ptr, len) => onReport(JSON.parse(decoder.decode(bytes(ptr, len)))),
  };
  const instance = await WebAssembly.instantiate(module, { env });
  exports = instance.exports;
  return function call(op, body) {
    const input = encoder.encode(JSON.stringify({ op, body }));
    const ptr = exports.matombo_alloc(input.length);
    bytes(ptr, input.length).set(input);
    let out;
    try {
      out = exports.matombo_call(ptr, input.length);
    } finally {
      exports.matombo_free(ptr, input.length);
    }
    const len = new DataView(exports.memory.buffer).getUint32(out, true);
    const text = decoder.decode(bytes(out + 4, len));
    exports.matombo_free(out, len + 4);
    const answer = JSON.parse(text);
    if ('error' in answer) throw new EngineError(answer.error, answer.message, answer.status);
    return answer.ok;
  };
}
