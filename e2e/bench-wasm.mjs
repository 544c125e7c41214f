// The search's speed in the page (WebAssembly in a Web Worker, real Chromium) against the
// native build's (`matombo bench`), side by side on this machine, one after the other.
//
//   cargo build --release && node e2e/bench-wasm.mjs [--seconds 3]
//
// Both search each ruleset's start position for the same time with the same code and seed
// (matombo-api's search_speed natively in `matombo bench`, in the worker through the
// engine's "speed" request). Prints a Markdown table.
import { execFileSync } from 'node:child_process';
import { bin, launchChromium, ownServer } from './harness.mjs';

const arg = process.argv.indexOf('--seconds');
const seconds = arg > 0 ? Number(process.argv[arg + 1]) : 3;
const rulesets = ['tsoro:8', 'tsoro:21', 'nsolo:8', 'nsolo:36'];

const native = {};
for (const r of rulesets) {
  const rows = JSON.parse(execFileSync(bin, ['bench', '--json', '--seconds', String(seconds), '--ruleset', r]));
  native[r] = rows[0].search_nodes_per_s;
}

const server = await ownServer('bench', [], process.env.SERVE_BIN || bin);
const url = server.url;
const browser = await launchChromium();
const page = await browser.newPage();
await page.goto(`${url}/play?game=tsoro&size=8&mode=two`);
const version = await browser.version();
console.log(`| ruleset | native nodes/s | wasm in a worker nodes/s | wasm / native |`);
console.log(`|---|---:|---:|---:|`);
for (const r of rulesets) {
  const speed = await page.evaluate(
    async ({ r, ms }) => {
      const play = document.querySelector('script[type=module][src*="play"]').src;
      const { Searcher } = await import(new URL('./engine.js', play).href);
      const s = new Searcher();
      const answer = await s.run('speed', { ruleset: r, ms });
      s.stop();
      return answer;
    },
    { r, ms: seconds * 1000 },
  );
  const ratio = speed.nodes_per_s / native[r];
  console.log(
    `| ${r} | ${Math.round(native[r]).toLocaleString('en')} | ${Math.round(speed.nodes_per_s).toLocaleString('en')} | ${ratio.toFixed(2)} |`,
  );
}
console.log(`\nChromium ${version}, ${seconds} s a measurement, search from the start position, seed 1.`);
await browser.close();
await server.stop();
