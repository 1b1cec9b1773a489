// Snapshot and click in Playwright, for side-by-side figures with sb-bench (scripts/bench.sh).
// Usage: NODE_PATH=<dir>/node_modules node playwright-interaction.cjs <chromium> <base-url> <blocks,...> <clicks>
//        <idle-clicks> <pause-ms> <array-lengths,...>
// Prints JSON lines: {kind: "snapshot", blocks, elements, ms: [first, second, third], chars} per page size
// (`locator('body').ariaSnapshot()`, the whole page: Playwright has no cut), and
// {kind: "click", p50, p95} for `getByRole('button', {name: 'Save'}).click()` on /test/form.html, clicks in a
// row, {kind: "click_idle", p50, p95} for the same click after the page sat idle for <pause-ms>, and
// {kind: "evaluate_array", n, ms: [first, second, third]} for `page.evaluate` of an array of n numbers.
const { chromium } = require('playwright-core');

const [executablePath, base, blocksArg, clicksArg, idleClicksArg, pauseArg, arraysArg] = process.argv.slice(2);
const pct = (v, p) => v.slice().sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * p))];

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  for (const blocks of blocksArg.split(',').map(Number)) {
    await page.goto(`${base}/test/big/${blocks}`);
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    const ms = [];
    let chars = 0;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      chars = (await page.locator('body').ariaSnapshot({ timeout: 120000 })).length;
      ms.push(performance.now() - t);
    }
    console.log(JSON.stringify({ kind: 'snapshot', blocks, elements, ms, chars }));
  }
  await page.goto(`${base}/test/form.html`);
  const save = page.getByRole('button', { name: 'Save' });
  await save.click();
  const t = [];
  for (let i = 0; i < Number(clicksArg); i++) {
    const s = performance.now();
    await save.click();
    t.push(performance.now() - s);
  }
  console.log(JSON.stringify({ kind: 'click', p50: pct(t, 0.5), p95: pct(t, 0.95) }));
  // At an agent's cadence: the page sits idle for `pauseMs` before each click (not timed).
  const idle = [];
  for (let i = 0; i < Number(idleClicksArg); i++) {
    await new Promise((r) => setTimeout(r, Number(pauseArg)));
    const s = performance.now();
    await save.click();
    idle.push(performance.now() - s);
  }
  console.log(JSON.stringify({ kind: 'click_idle', p50: pct(idle, 0.5), p95: pct(idle, 0.95) }));
  for (const n of arraysArg.split(',').map(Number)) {
    const ms = [];
    for (let i = 0; i < 3; i++) {
      const s = performance.now();
      const value = await page.evaluate(`Array.from({length: ${n}}, (_, i) => i)`);
      ms.push(performance.now() - s);
      if (value.length !== n) throw new Error(`evaluate gave ${value.length} items`);
    }
    console.log(JSON.stringify({ kind: 'evaluate_array', n, ms }));
  }
  await browser.close();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
