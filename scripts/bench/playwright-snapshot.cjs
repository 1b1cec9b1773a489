// Playwright's aria snapshot, on request, for the side-by-side snapshot table of sb-bench
// (scripts/bench.sh, SB_BENCH_ONLY=snapshot), which alternates one of its runs with one of ours so that
// the machine's moods fall on both alike.
// Usage: NODE_PATH=<dir>/node_modules node playwright-snapshot.cjs <chromium>
// Reads one command a line on stdin and answers one JSON line on stdout:
//   goto <url>  loads the page (waitUntil: load)                  -> {"ok": true}
//   snap        `locator('body').ariaSnapshot()` (the whole page: Playwright has no cut), timed from
//               the call to its answer                            -> {"ms": <float>, "text": "..."}
// and closes the browser at the end of its input.
const { chromium } = require('playwright-core');
const readline = require('readline');

const [executablePath] = process.argv.slice(2);

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const answer = (value) => process.stdout.write(JSON.stringify(value) + '\n');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.startsWith('goto ')) {
      await page.goto(line.slice(5), { waitUntil: 'load' });
      answer({ ok: true });
    } else if (line === 'snap') {
      const t = performance.now();
      const text = await page.locator('body').ariaSnapshot({ timeout: 120000 });
      answer({ ms: performance.now() - t, text });
    } else {
      answer({ error: `unknown command: ${line}` });
    }
  }
  await browser.close();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
