// A pointer action's checks and click point in one call (actionability.rs `at_once`), in the runtime's
// isolated world: `el` is the element a ref names in the walker's registry, `seen` the evidence of its
// last check, `needsEnabled` whether the action needs it enabled; `checks` and `hitTarget` are
// checks.js and hit_target.js. Answers {x, y, box} when the element is attached, in view, visible,
// stable, enabled as needed and receives pointer events at the center of its first box with an area
// (as Playwright's `expectHitTarget` tells, by `elementsFromPoint`); otherwise {box} (the usual way
// then looks again and says what is wrong). `box`: the checks' evidence for the next check.
async (el, seen, needsEnabled, checks, hitTarget) => {
  if (!el || !el.isConnected) return { box: null };
  // Entirely in the layout viewport, unzoomed: no scroll is needed (the usual way scrolls by CDP).
  const view = window.visualViewport;
  if (view && view.scale !== 1) return { box: null };
  const width = view ? view.width : innerWidth;
  const height = view ? view.height : innerHeight;
  const r = el.getBoundingClientRect();
  if (r.left < 0 || r.top < 0 || r.right > width || r.bottom > height) return { box: null };
  const c = await checks.call(el, seen);
  const box = c.box || null;
  if (!c.attached || !c.visible || !c.stable || (needsEnabled && !c.enabled)) return { box };
  let first = null;
  for (const q of el.getClientRects()) {
    if (q.width * q.height > 0.99) { first = q; break; }
  }
  if (!first) return { box };
  const x = first.left + first.width / 2;
  const y = first.top + first.height / 2;
  if (x >= width || y >= height) return { box };
  const hit = document.elementsFromPoint(x, y)[0];
  if (!hit || !hitTarget.call(el, hit, x, y)) return { box };
  return { x, y, box };
}
