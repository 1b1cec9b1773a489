// Whether an element is visible, as Playwright has it (injected/domUtils.ts `isElementVisible`, by
// `computeBox` and `isElementStyleVisibilityVisible`), for the selector engine's `visible=` and
// `:visible`, page.wait_for's `visible`/`hidden` and the actionability checks alike:
// - `display: contents` (no box of its own): visible when a child element is, or a child text node
//   has a non-empty box;
// - otherwise not when `checkVisibility()` says so (`display: none` on it or an ancestor, a
//   `content-visibility: hidden` ancestor), nor unless its `visibility` is `visible` (`hidden` and
//   `collapse` are not), and then when its box is non-empty.
function isVisible(e) {
  const style = e.ownerDocument.defaultView.getComputedStyle(e);
  if (!style) return true;
  if (style.display === 'contents') {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && isVisible(c)) return true;
      if (c.nodeType === 3) {
        const range = e.ownerDocument.createRange();
        range.selectNode(c);
        const r = range.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) return true;
      }
    }
    return false;
  }
  if (e.checkVisibility && !e.checkVisibility()) return false;
  if (style.visibility !== 'visible') return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}
