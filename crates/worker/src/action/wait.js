// The in-page waiter of `page.wait_for`: resolves {ok: true} as soon as `test()` is truthy, {ok: false}
// after `timeoutMs`, {error} when `test` throws. It reacts to the page instead of polling on a clock:
// DOM mutations (MutationObserver), every animation frame (style and layout changes, `history` URL
// changes), `readystatechange` and `load`; a 100 ms tick covers a page that paints no frames. Like
// Playwright's `waitForFunction` (polling 'raf') plus its mutation-driven selector waits.
(test, timeoutMs) => new Promise((resolve) => {
  let done = false;
  let busy = false;
  let raf = 0;
  let timer = 0;
  let tick = 0;
  let observer = null;
  const message = (e) => String((e && e.message) || e);
  const finish = (v) => {
    if (done) return;
    done = true;
    if (observer) observer.disconnect();
    clearTimeout(timer);
    clearInterval(tick);
    cancelAnimationFrame(raf);
    document.removeEventListener('readystatechange', check);
    removeEventListener('load', check);
    resolve(v);
  };
  function check() {
    if (done || busy) return;
    let v;
    try { v = test(); } catch (e) { finish({ error: message(e) }); return; }
    if (v && typeof v.then === 'function') {
      busy = true;
      v.then((r) => { busy = false; if (r) finish({ ok: true }); },
             (e) => { busy = false; finish({ error: message(e) }); });
    } else if (v) {
      finish({ ok: true });
    }
  }
  const frame = () => { check(); if (!done) raf = requestAnimationFrame(frame); };
  timer = setTimeout(() => finish({ ok: false }), timeoutMs);
  tick = setInterval(check, 100);
  observer = new MutationObserver(check);
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  document.addEventListener('readystatechange', check);
  addEventListener('load', check);
  raf = requestAnimationFrame(frame);
  check();
})
