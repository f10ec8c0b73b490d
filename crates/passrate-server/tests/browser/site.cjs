// Drives Debian's chromium through playwright-core over a running passrate server and checks
// the pages against the API. Usage: node site.cjs BASE_URL SCREENSHOT_DIR
// Exits non-zero with a list of failures; prints a JSON summary on stdout.
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');

const { chromium } = require(path.join(process.env.PASSRATE_TEST_PLAYWRIGHT, 'node_modules', 'playwright-core'));

const base = process.argv[2];
const shots = process.argv[3];
const failures = [];
const fail = (msg) => failures.push(msg);

async function api(page, p) {
  const r = await page.request.get(base + p);
  if (r.status() !== 200) throw new Error(`${p}: ${r.status()}`);
  return r.json();
}

async function noHorizontalScroll(page, what) {
  const { scroll, inner } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  if (scroll > inner) fail(`${what}: horizontal scroll at ${inner}px (content ${scroll}px wide)`);
}

(async () => {
  fs.mkdirSync(shots, { recursive: true });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'passrate-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.PASSRATE_TEST_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  const summary = { pages: 0, links: 0, whiskers: 0, history_points: {} };
  try {
    // The board: one whisker per model, in the API's order; tie groups as the API says.
    const board = await api(page, '/api/v1/leaderboard');
    let r = await page.goto(base + '/');
    if (r.status() !== 200) fail(`/: ${r.status()}`);
    for (const [key, id] of [['ranked', 'ranked'], ['partial', 'partial'], ['controls', 'controls']]) {
      const rows = board[key];
      const whiskers = await page.$$eval(`section#${id} svg.board-chart g.whisker`, (gs) => gs.map((g) => g.getAttribute('data-model')));
      const expected = rows.map((row) => row.record.model);
      summary.whiskers += whiskers.length;
      if (JSON.stringify(whiskers) !== JSON.stringify(expected)) {
        fail(`board ${key}: whiskers ${JSON.stringify(whiskers)} != models ${JSON.stringify(expected)}`);
      }
      const titled = await page.$$eval(`section#${id} svg.board-chart g.whisker > title`, (ts) => ts.length);
      if (titled !== expected.length) fail(`board ${key}: ${titled} whisker titles for ${expected.length} models`);
      const groups = await page.$$eval(`section#${id} tbody tr[data-model]`, (trs) => trs.map((tr) => [tr.getAttribute('data-model'), tr.getAttribute('data-tie-group')]));
      const expectedGroups = rows.map((row) => [row.record.model, row.tie_group == null ? '' : String(row.tie_group)]);
      if (JSON.stringify(groups) !== JSON.stringify(expectedGroups)) {
        fail(`board ${key}: tie groups ${JSON.stringify(groups)} != API ${JSON.stringify(expectedGroups)}`);
      }
    }
    const svgTitles = await page.$$eval('svg', (ss) => ss.filter((s) => !s.querySelector(':scope > title')).length);
    if (svgTitles) fail(`board: ${svgTitles} svg without a <title>`);
    await page.screenshot({ path: path.join(shots, 'board-desktop.png'), fullPage: true });

    // History charts: one point per record.
    const models = [...new Set(['ranked', 'partial', 'controls'].flatMap((k) => board[k].map((row) => row.record.model)))];
    for (const m of models) {
      const history = await api(page, `/api/v1/models/${encodeURIComponent(m)}/history?per_page=500`);
      await page.goto(base + `/models/${encodeURIComponent(m)}`);
      const points = await page.$$eval('svg.history-chart g.point', (gs) => gs.length);
      const rows = await page.$$eval('tr.record', (trs) => trs.length);
      summary.history_points[m] = points;
      if (points !== history.total) fail(`/models/${m}: ${points} points for ${history.total} records`);
      if (rows !== history.total) fail(`/models/${m}: ${rows} table rows for ${history.total} records`);
    }
    await page.goto(base + `/models/${encodeURIComponent(models[0])}`);
    await page.screenshot({ path: path.join(shots, 'model.png'), fullPage: true });

    // Every link on every page answers 200 (site pages are crawled; other targets fetched).
    const seen = new Set();
    const queue = ['/'];
    const checked = new Map();
    const samples = {};
    while (queue.length) {
      const p = queue.shift();
      if (seen.has(p)) continue;
      seen.add(p);
      r = await page.goto(base + p);
      summary.pages += 1;
      if (r.status() !== 200) { fail(`${p}: ${r.status()}`); continue; }
      const kind = p.split(/[/?]/)[1] || 'board';
      if (!samples[kind]) samples[kind] = p;
      const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href')));
      for (const href of hrefs) {
        const url = new URL(href, base + p);
        if (url.origin !== new URL(base).origin) { fail(`${p}: link leaves the site: ${href}`); continue; }
        const target = url.pathname + url.search;
        summary.links += 1;
        if (target.startsWith('/api/')) {
          if (!checked.has(target)) {
            const res = await page.request.get(base + target);
            checked.set(target, res.status());
            if (res.status() !== 200) fail(`${p}: link ${target} answers ${res.status()}`);
          }
        } else if (!seen.has(target)) {
          queue.push(target);
        }
      }
    }
    summary.samples = samples;

    // A phone: 375 px wide, no horizontal scroll on any kind of page.
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [kind, p] of Object.entries(samples)) {
      await page.goto(base + p);
      await noHorizontalScroll(page, `${p} (phone)`);
      await page.screenshot({ path: path.join(shots, `phone-${kind}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1200, height: 900 });
    for (const [kind, p] of Object.entries(samples)) {
      if (kind === 'board' || kind === 'models') continue;
      await page.goto(base + p);
      await page.screenshot({ path: path.join(shots, `${kind}.png`), fullPage: true });
    }
  } catch (e) {
    fail(`error: ${e.stack || e}`);
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  summary.failures = failures;
  console.log(JSON.stringify(summary));
  process.exit(failures.length ? 1 : 0);
})();
