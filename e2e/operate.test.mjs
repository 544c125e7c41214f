// Running it for real, in Chromium: the board served over HTTPS by `serve --tls-cert`
// (browsers register a service worker only in a secure context), and an online game
// across a graceful restart (SIGTERM closes every socket with 1012; the pages reconnect
// at once to the new process and lose no acknowledged turn).
// Usage: node operate.test.mjs (run.sh passes the shared server's address, unused here:
// both tests start servers of their own, $MATOMBO_BIN).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { assert, counts, launchChromium, playTurn, ply, runTests } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.MATOMBO_BIN || join(here, '..', 'target', 'release', 'matombo');
const only = process.env.E2E_ONLY || '';
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/**
 * Starts `matombo serve ARGS`; resolves with { url, child, exited } once it prints its
 * address. `exited` resolves with the exit code.
 */
function serve(args) {
  const child = spawn(bin, ['serve', '--host', '127.0.0.1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
  return new Promise((resolve, reject) => {
    let buf = '';
    let log = '';
    child.on('error', reject);
    exited.then((code) => reject(new Error(`serve exited (${code}) before it listened: ${log}`)));
    child.stderr.on('data', (d) => (log += d));
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve({ url: buf.split('\n')[0].trim().replace(/\/$/, ''), child, exited });
    });
  });
}

/** A self-signed certificate for localhost and 127.0.0.1, and its key's SPKI hash. */
function certificate(dir) {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
  // Chromium trusts a certificate whose public key has this hash, as if a CA had signed it;
  // unlike "ignore certificate errors", the origin then counts as secure for service workers.
  const der = execFileSync('openssl', ['pkey', '-in', key, '-pubout', '-outform', 'der']);
  const spki = execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64');
  return { cert, key, spki };
}

test('HTTPS: the board over TLS registers its service worker and plays a turn', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'matombo-tls-'));
  const { cert, key, spki } = certificate(dir);
  const server = await serve(['--port', '0', '--db', join(dir, 'online.sqlite'), '--tls-cert', cert, '--tls-key', key, '--hsts']);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--ignore-certificate-errors-spki-list=${spki}`],
  });
  try {
    assert(server.url.startsWith('https://127.0.0.1:'), `serve printed an https address: ${server.url}`);
    const url = server.url.replace('127.0.0.1', 'localhost');
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const response = await page.goto(`${url}/play?ruleset=tsoro:8`);
    const hsts = response.headers()['strict-transport-security'] || '';
    assert(hsts.includes('max-age='), `HSTS sent over HTTPS: "${hsts}"`);
    assert(await page.evaluate(() => window.isSecureContext), 'the page is a secure context');
    // The page registers the worker itself; ready resolves once it is active.
    const scope = await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.scope));
    assert(scope.startsWith(`${url}/`), `service worker active over HTTPS, scope ${scope}`);
    // One whole turn through the engine in the page: holes, then any bonus or head choice.
    await page.waitForSelector('#board g.hole.legal');
    for (let i = 0; i < 100 && Number(await page.$eval('#play', (p) => p.dataset.moves)) < 1; i++) {
      const hole = await page.$('#board g.hole.legal, #board g.hole.takeable');
      const button = hole ? null : await page.$('#btn-continue:not([hidden]):not(:disabled), #btn-stop:not([hidden]):not(:disabled), #btn-done:not([hidden])');
      if (hole || button) await (hole || button).click();
      await page.waitForTimeout(50);
    }
    assert(Number(await page.$eval('#play', (p) => p.dataset.moves)) >= 1, 'a turn was played over HTTPS');
    assert(errors.length === 0, `page errors: ${errors}`);
  } finally {
    await browser.close();
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

test('restart: SIGTERM closes the sockets with 1012, the pages reconnect at once to the new process and lose nothing', async (browser) => {
  const dir = mkdtempSync(join(tmpdir(), 'matombo-restart-'));
  const db = join(dir, 'online.sqlite');
  let server = await serve(['--port', '0', '--db', db]);
  const port = new URL(server.url).port;
  const r = await fetch(`${server.url}/api/online/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ruleset: 'tsoro:8', side: 'south', name: 'Alice' }),
  }).then((x) => x.json());
  const claim = await fetch(`${server.url}/api/online/rooms/${r.id}/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invite: r.invite, name: 'Bob' }),
  }).then((x) => x.json());
  assert(claim.token, `Bob claimed North: ${JSON.stringify(claim)}`);
  const open = async (token) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(() => localStorage.setItem('matombo-speed', '4'));
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(String(e)));
    // Every close code the page's sockets see, and when the status said "reconnecting".
    await page.addInitScript(() => {
      window.__closes = [];
      const Real = window.WebSocket;
      window.WebSocket = class extends Real {
        constructor(...a) {
          super(...a);
          this.addEventListener('close', (e) => window.__closes.push(e.code));
        }
      };
    });
    await page.goto(`${server.url}/online/game/${r.id}#seat=${token}`);
    await page.waitForFunction(() => document.getElementById('room').dataset.you);
    return page;
  };
  const alice = await open(r.token);
  const bob = await open(claim.token);
  // Each turn seen by both pages before the next one starts.
  const turn = async (mover, other) => {
    const n = (await ply(mover)) + 1;
    await playTurn(mover);
    for (const p of [mover, other]) await p.waitForFunction((k) => Number(document.getElementById('room').dataset.ply) === k, n);
  };
  await turn(alice, bob);
  await turn(bob, alice);
  await turn(alice, bob);
  const acknowledged = await ply(bob);
  assert(acknowledged === 3, `three turns acknowledged (ply ${acknowledged})`);
  const position = await counts(bob);

  // A graceful stop: exit 0, every socket closed with 1012.
  server.child.kill('SIGTERM');
  const code = await server.exited;
  assert(code === 0, `serve exited 0 after SIGTERM (got ${code})`);
  for (const p of [alice, bob]) {
    await p.waitForFunction(() => window.__closes.includes(1012), null, { timeout: 5000 });
    await p.waitForFunction(() => /reconnect/i.test(document.getElementById('status').textContent), null, { timeout: 5000 });
  }
  // The new process on the same port and database: the pages find it by themselves.
  const restarted = Date.now();
  server = await serve(['--port', port, '--db', db]);
  try {
    for (const p of [alice, bob]) {
      await p.waitForFunction((n) => Number(document.getElementById('room').dataset.ply) === n && !/reconnect/i.test(document.getElementById('status').textContent), acknowledged, { timeout: 10000 });
    }
    const back = Date.now() - restarted;
    console.log(`     both pages back ${back} ms after the new process started`);
    // After a 1012 the page retries from 100 ms, doubling, so it is back well within "a
    // short reconnecting".
    assert(back < 5000, `reconnected within 5 s (${back} ms)`);
    assert((await counts(bob)) === position, 'the board is the acknowledged position');
    await turn(bob, alice);
    for (const p of [alice, bob]) assert(p.errors.length === 0, `page errors: ${p.errors}`);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

await runTests(tests, await launchChromium(), only);
