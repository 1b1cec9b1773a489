// The hang scenarios in Playwright, for side-by-side figures with sb-bench (scripts/bench.sh).
// Usage: NODE_PATH=<dir>/node_modules node playwright-hangs.cjs <chromium> <page-url> <budget-ms> <cap-ms>
// Prints one JSON line per variant: {variant, normal_ms, answer_ms|null, next_ms|null}; null means no
// answer within cap-ms (Playwright has no budget of its own for page.evaluate), or for next_ms that the
// screenshot failed (its own timeout is cap-ms).
const { chromium } = require('playwright-core');

const [executablePath, url, budgetArg, capArg] = process.argv.slice(2);
const budget = Number(budgetArg);
const cap = Number(capArg);
const VARIANTS = {
  sync: 'while (true) {}',
  after_await: '(async () => { await 0; while (true) {} })()',
  timer: null,
  never_resolves: 'new Promise(() => {})',
};
const sleep = (ms) => new Promise((r) => setTimeout(() => r('none'), ms));
// ms until `promise` settles (`failed` also counts when `failures` is true), or null.
const timed = async (promise, limit, failures = true) => {
  const t = performance.now();
  const r = await Promise.race([promise.then(() => 'done', () => (failures ? 'done' : 'failed')), sleep(limit)]);
  return r === 'done' ? performance.now() - t : null;
};
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];

(async () => {
  for (const [variant, expr] of Object.entries(VARIANTS)) {
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage();
    await page.goto(url);
    const normal = [];
    for (let i = 0; i < 5; i++) normal.push(await timed(page.screenshot(), cap));
    let answer;
    if (variant === 'timer') {
      await page.evaluate("setTimeout(() => { while (true) {} }, 0)");
      answer = await timed(page.evaluate('1 + 1'), budget + cap);
    } else {
      answer = await timed(page.evaluate(expr), budget + cap);
    }
    const next = await timed(page.screenshot({ timeout: cap }), cap + 1000, false);
    console.log(JSON.stringify({ variant, normal_ms: median(normal), answer_ms: answer, next_ms: next }));
    await Promise.race([browser.close(), sleep(3000)]);
    try { process.kill(browser.process?.().pid, 'SIGKILL'); } catch (e) { /* gone */ }
  }
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
