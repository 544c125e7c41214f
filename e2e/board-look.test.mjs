// The board's looks in headless Chromium at phone (390x844) and desktop (1280x800) sizes:
// who is who beside the board, the catalogue's card layout, the themes' contrast.
// Screenshots of each case go to e2e/out/board-*.png. (Play on the board: board.test.mjs.)
// Usage: node board-look.test.mjs http://127.0.0.1:PORT/   (run.sh does this)
import { join } from 'node:path';
import { apiOk as api, assert, boardTurn, closeClean, idle, launchChromium, moveCount, open, out, phase, runTests, SIZES, tap } from './harness.mjs';

const only = process.env.BOARD_ONLY || '';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// ---- Item 2: who is who ---------------------------------------------------------------

/** Name, total and to-move marker of both side bars. */
const sides = (page) =>
  page.$$eval('.side-bar', (bs) =>
    Object.fromEntries(
      bs.map((b) => [b.dataset.side, { name: b.dataset.name, total: Number(b.dataset.total), toMove: b.classList.contains('to-move'), text: b.textContent }]),
    ),
  );

/** Checks the side bars against the engine's position after the page's moves. */
async function checkSides(page, start, names) {
  const moves = await page.$$eval('#moves .move:not(.future):not(.partial)', (ms) => ms.map((m) => m.textContent));
  const engine = await api('/api/game', { start, moves });
  const got = await sides(page);
  const sum = (rows) => rows.flat().reduce((a, b) => a + b, 0);
  const want = { South: sum([engine.rows.A, engine.rows.B]), North: sum([engine.rows.a, engine.rows.b]) };
  for (const side of ['South', 'North']) {
    const where = `${side} after ${moves.length} turns`;
    assert(got[side].total === want[side], `${where}: total ${got[side].total}, engine ${want[side]}`);
    assert(got[side].text.includes(`${want[side]} stone`), `${where}: the total shown (${got[side].text})`);
    assert(got[side].name === names[side], `${where}: name ${got[side].name}`);
    assert(got[side].toMove === (!engine.outcome && engine.to_move === side.toLowerCase()), `${where}: to-move marker`);
  }
  return moves.length;
}

for (const [device, viewport] of SIZES) {
  test(`who is who against the computer: names, totals, to-move marker, last turn marked, replay (${device})`, async (browser) => {
    const page = await open(browser, '/play?ruleset=tsoro:8&level=beginner', { viewport });
    await idle(page);
    const names = { South: 'You', North: 'Computer (Beginner)' };
    await checkSides(page, 'tsoro:8', names);
    for (let turn = 0; turn < 4 && (await phase(page)) !== 'over'; turn++) {
      const before = await moveCount(page);
      await boardTurn(page);
      // The person's turn, then the computer's.
      await page.waitForFunction((n) => Number(document.getElementById('play').dataset.moves) >= n + 2 || document.getElementById('play').dataset.phase === 'over', before);
      await idle(page);
      await checkSides(page, 'tsoro:8', names);
      const last = await page.$$eval('#board g.hole.last', (gs) => gs.map((g) => g.dataset.hole));
      assert(last.length === 1 && /^[ab]/.test(last[0]), `the computer's start hole marked: ${last}`);
      await page.waitForSelector('#board g.hole.path');
    }
    await page.screenshot({ path: join(out, `board-who-is-who-${device}.png`) });
    // Replay the last turn: the board animates from the position before it and ends as it was.
    const counts = await page.$$eval('#board g.hole', (gs) => gs.map((g) => g.dataset.count).join(','));
    await page.evaluate(() => localStorage.setItem('matombo-speed', '0'));
    await page.$eval('#speed', (s) => { s.value = '1'; s.dispatchEvent(new Event('input')); });
    await page.click('#btn-replay');
    await page.waitForSelector('#board svg.animating');
    await idle(page);
    const again = await page.$$eval('#board g.hole', (gs) => gs.map((g) => g.dataset.count).join(','));
    assert(again === counts, 'the replay ends on the position shown before');
    await closeClean(page);
  });
}

test('who is who with two players: South and North, totals after each turn', async (browser) => {
  const page = await open(browser, '/play?ruleset=nsolo:8&mode=two');
  await idle(page);
  for (let turn = 0; turn < 4; turn++) {
    await page.locator('#board g.hole.legal, #board g.hole.takeable').first().click();
    await idle(page);
    while ((await phase(page)) === 'bonus') {
      await page.locator('#board g.hole.takeable').first().click();
      await idle(page);
    }
    await checkSides(page, 'nsolo:8', { South: 'South', North: 'North' });
  }
  await closeClean(page);
});

// ---- Item 4: the catalogue's cards ---------------------------------------------------

/** Whether two rectangles overlap by more than a pixel each way. */
const overlaps = (a, b) =>
  a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

test("catalogue: no card's picture overlaps its text, at 390, 768 and 1280 px, in all four languages", async (browser) => {
  for (const width of [390, 768, 1280]) {
    for (const lang of ['en', 'fi', 'da', 'bn']) {
      const page = await open(browser, `/?lang=${lang}`, { viewport: { width, height: width < 500 ? 844 : 800 }, lang });
      await page.waitForFunction(() => document.querySelectorAll('article.card .card-art svg').length === 2);
      const cards = await page.$$eval('article.card', (cs) =>
        cs.map((c) => {
          const box = (e) => {
            const r = e.getBoundingClientRect();
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          };
          const art = c.querySelector('.card-art svg');
          return {
            id: c.id,
            card: box(c),
            art: box(art),
            text: [...c.children].filter((e) => !e.classList.contains('card-art')).map((e) => ({ tag: e.tagName, box: box(e) })),
          };
        }),
      );
      for (const { id, card, art, text } of cards) {
        const where = `${id} at ${width} px (${lang})`;
        assert(art.bottom - art.top > 40, `${where}: the picture is drawn (${JSON.stringify(art)})`);
        assert(art.left >= card.left - 1 && art.right <= card.right + 1, `${where}: the picture inside the card`);
        for (const t of text) assert(!overlaps(art, t.box), `${where}: the picture overlaps the ${t.tag}`);
      }
      if (lang === 'en' || lang === 'bn') await page.screenshot({ path: join(out, `board-catalogue-${width}-${lang}.png`), fullPage: true });
      await closeClean(page);
    }
  }
});

// ---- Item 5: light and dark themes, WCAG AA contrast ----------------------------------

/**
 * In the page: every visible piece of text with its contrast ratio against what is behind
 * it (WCAG 2 relative luminance). HTML text is measured against the nearest ancestor's
 * background; board text (counts, labels) against its dark outline, which every board text
 * must have (it sits on wood and pit gradients).
 */
function measureContrast() {
  const parse = (css) => {
    const m = css.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  };
  const lum = ([r, g, b]) => {
    const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3]));
  const background = (e) => {
    for (let n = e; n; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const opacity = (e) => {
    let o = 1;
    for (let n = e; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
    return o;
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const e = t.parentElement;
    if (!t.textContent.trim() || !e) continue;
    if (e.closest('[hidden], dialog:not([open]), .sr-only, :disabled, script, style, title, option')) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden' || cs.display === 'none' || !e.getClientRects().length) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const size = parseFloat(cs.fontSize);
    const bold = Number(cs.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    let fg;
    let bg;
    if (e instanceof SVGElement) {
      const stroke = parse(cs.stroke);
      if (!stroke || parseFloat(cs.strokeWidth) < 2) {
        out.push({ text: t.textContent.trim().slice(0, 30), where: e.getAttribute('class'), ratio: 0, need: 4.5, why: 'board text without an outline' });
        continue;
      }
      fg = parse(cs.fill);
      bg = stroke;
    } else {
      fg = parse(cs.color);
      bg = background(e);
    }
    fg = [...fg.slice(0, 3), fg[3] * opacity(e)];
    out.push({
      text: t.textContent.trim().slice(0, 30),
      where: `${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''}`,
      ratio: Math.round(ratio(over(fg, bg), bg) * 100) / 100,
      need: large ? 3 : 4.5,
    });
  }
  return out;
}

for (const scheme of ['light', 'dark']) {
  test(`${scheme} theme: text and stone counts meet WCAG AA contrast`, async (browser) => {
    const failures = [];
    let measured = 0;
    for (const path of ['/', '/rules/tsoro', '/play?ruleset=tsoro:8&mode=two', '/play?ruleset=nsolo:8&level=beginner']) {
      const page = await open(browser, path, { scheme });
      if (path.startsWith('/play')) {
        await idle(page);
        await page.check('#labels');
        if (path.includes('nsolo')) {
          // A game over (the banner) and a hint are part of what must be legible.
          await page.click('#btn-hint');
          await page.waitForSelector('#board g.hole.hint');
        } else {
          await tap(page, 'B2');
          await idle(page);
        }
      } else {
        await page.waitForTimeout(500);
      }
      const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      assert(scheme === 'dark' ? bg === 'rgb(28, 23, 18)' : bg === 'rgb(247, 241, 230)', `${scheme} page background ${bg}`);
      const all = await page.evaluate(measureContrast);
      measured += all.length;
      for (const m of all) if (m.ratio < m.need) failures.push(`${path}: "${m.text}" (${m.where}) ${m.ratio} < ${m.need}${m.why ? ` ${m.why}` : ''}`);
      assert(all.some((m) => m.where && m.where.includes('.count')) || !path.startsWith('/play'), 'stone counts measured');
      await page.screenshot({ path: join(out, `board-theme-${scheme}-${path.replace(/[^a-z0-9]+/g, '-')}.png`), fullPage: true });
      await closeClean(page);
    }
    assert(measured > 100, `measured ${measured} texts`);
    if (failures.length) console.log([...new Set(failures)].map((f) => `     ${f}`).join('\n'));
    assert(!failures.length, `${failures.length} below AA:\n${[...new Set(failures)].slice(0, 25).join('\n')}`);
  });
}

// ---- Runner ---------------------------------------------------------------------------

await runTests(tests, await launchChromium(), only);
