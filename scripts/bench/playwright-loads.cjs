// Playwright's page loads and the real-site concurrency loop, on request, for sb-bench's guarded-load
// and concurrency tables (scripts/bench.sh, SB_BENCH_ONLY=loads), which alternate a run of Playwright's
// with one of ours so that the machine's moods fall on both alike.
// Usage: NODE_PATH=<dir>/node_modules node playwright-loads.cjs <chromium> [browser flag...]
// Reads one command a line on stdin and answers one JSON line on stdout:
//   load <url>   `page.goto(url, {waitUntil: 'load'})`, then the page's own Navigation Timing
//                (`loadEventEnd`: from the navigation's start to the end of its load event, ms,
//                measured inside the browser)                           -> {"load_ms": <float>}
//   loop <n> <ms> <one|each> <full|goto|timeline> <url> <link>
//                n pages, of one browser context (one) or each in a context of its own (each, the
//                isolation of our sessions), each looping for ms:
//                goto url -> `locator('body').ariaSnapshot()` -> click the link named <link> (rest of
//                the line; `getByRole('link', {name, exact: true})`, whose click waits for the
//                navigation it starts to commit, as ours does); with `goto`, the goto alone; with
//                `timeline`, as `full`, each goto followed (untimed) by a read of the page's own
//                Navigation Timing: "parts", per goto [before, page, after] ms (before the navigation
//                started in the browser (performance.timeOrigin), from there to loadEventEnd, from
//                there until the goto returned; wall-clock ms since the epoch on both sides)
//                                         -> {"loops", "goto": [ms...], "all": [ms...], "parts": [...]}
// and closes the browser at the end of its input. Its pid is the node process's: sb-bench reads the
// memory of the whole process tree.
const { chromium } = require('playwright-core');
const readline = require('readline');

const [executablePath, ...flags] = process.argv.slice(2);

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', ...flags] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const single = await context.newPage();
  const answer = (value) => process.stdout.write(JSON.stringify(value) + '\n');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [command, ...args] = line.split(' ');
    if (command === 'load') {
      await single.goto(args[0], { waitUntil: 'load' });
      const ms = await single.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
      answer({ load_ms: ms });
    } else if (command === 'loop') {
      const [n, ms, contexts, mode, url] = [Number(args[0]), Number(args[1]), args[2], args[3], args[4]];
      const link = args.slice(5).join(' ');
      const pages = [];
      const own = [];
      for (let i = 0; i < n; i++) {
        if (contexts === 'each') {
          own.push(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
          pages.push(await own[own.length - 1].newPage());
        } else {
          pages.push(await context.newPage());
        }
      }
      // Each page loads the page once before the clock starts, as sb-bench's sessions do.
      await Promise.all(pages.map((page) => page.goto(url, { waitUntil: 'load' })));
      const end = performance.now() + ms;
      const gotos = [];
      const all = [];
      const parts = [];
      let loops = 0;
      const epoch = () => performance.timeOrigin + performance.now();
      const timed = async (into, action) => {
        const t = performance.now();
        await action();
        const took = performance.now() - t;
        for (const list of into) list.push(took);
      };
      await Promise.all(pages.map(async (page) => {
        while (performance.now() < end) {
          const sent = epoch();
          await timed([gotos, all], () => page.goto(url, { waitUntil: 'load' }));
          const answered = epoch();
          if (mode === 'timeline') {
            const [origin, load] = await page.evaluate(() => [
              performance.timeOrigin,
              performance.getEntriesByType('navigation')[0].loadEventEnd,
            ]);
            parts.push([origin - sent, load, answered - (origin + load)]);
          }
          if (mode !== 'goto') {
            await timed([all], () => page.locator('body').ariaSnapshot());
            await timed([all], () => page.getByRole('link', { name: link, exact: true }).first().click());
          }
          loops += 1;
        }
      }));
      for (const page of pages) await page.close();
      for (const c of own) await c.close();
      answer({ loops, goto: gotos, all, parts });
    } else {
      answer({ error: `unknown command: ${line}` });
    }
  }
  await browser.close();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
