// The budget and concurrency scenarios in Playwright, for side-by-side figures with sb-bench
// (scripts/bench.sh, SB_BENCH_ONLY=budget).
// Usage: NODE_PATH=<dir>/node_modules node playwright-budget.cjs <chromium> <base-url> <budgets> <sessions> <duration-ms>
//   budgets: comma-separated ms (1000,3000,8000); sessions: comma-separated page counts (4,16).
// Prints JSON lines:
//   {kind: "budget", case, budget, answer_ms|null}: Playwright's own timeout on the case (null: no answer
//   within budget + 2 s: `page.evaluate` has no timeout of its own);
//   {kind: "loop", sessions, loops, seconds, p50_ms, p95_ms}: N pages of one browser, each looping
//   goto -> ariaSnapshot -> click on a link (Playwright waits for the navigation it starts to commit).
const { chromium } = require('playwright-core');

const [executablePath, base, budgetsArg, sessionsArg, durationArg] = process.argv.slice(2);
const budgets = budgetsArg.split(',').map(Number);
const sessions = sessionsArg.split(',').map(Number);
const duration = Number(durationArg);
const sleep = (ms) => new Promise((r) => setTimeout(() => r('none'), ms));
const timed = async (promise, limit) => {
  const t = performance.now();
  const r = await Promise.race([promise.then(() => 'done', () => 'done'), sleep(limit)]);
  return r === 'done' ? performance.now() - t : null;
};
const pct = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const CASES = {
    wait: (page, t) => page.waitForSelector('#never', { timeout: t }),
    promise: (page) => page.evaluate('new Promise(() => {})'),
    busy: (page) => page.evaluate('while (true) {}'),
    server: (page, t) => page.goto(`${base}/test/never`, { timeout: t }),
  };
  for (const budget of budgets) {
    for (const [name, run] of Object.entries(CASES)) {
      const page = await browser.newPage();
      await page.goto(`${base}/test/index.html`);
      const answer = await timed(run(page, budget), budget + 2000);
      console.log(JSON.stringify({ kind: 'budget', case: name, budget, answer_ms: answer }));
      // A busy page may never close: do not wait for it.
      await Promise.race([page.close(), sleep(1000)]);
    }
  }
  for (const n of sessions) {
    const pages = [];
    for (let i = 0; i < n; i++) pages.push(await browser.newPage());
    // Each page loads the form once before the clock starts, as sb-bench's sessions do.
    await Promise.all(pages.map((page) => page.goto(`${base}/test/form.html`)));
    const times = [];
    const end = performance.now() + duration;
    await Promise.all(pages.map(async (page) => {
      while (performance.now() < end) {
        const t = performance.now();
        await page.goto(`${base}/test/form.html`);
        await page.locator('body').ariaSnapshot();
        await page.click('a[href="/test/index.html"]');
        times.push(performance.now() - t);
      }
    }));
    console.log(JSON.stringify({ kind: 'loop', sessions: n, loops: times.length, seconds: duration / 1000, p50_ms: pct(times, 0.5), p95_ms: pct(times, 0.95) }));
    for (const page of pages) await page.close();
  }
  await Promise.race([browser.close(), sleep(3000)]);
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
