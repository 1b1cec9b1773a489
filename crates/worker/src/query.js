// A CSS selector's first match that pierces open shadow roots, as Playwright's `css` engine does
// (injected/selectorEvaluator.ts): the document and every open shadow root are searched in document
// order, a host's shadow root before its light children. A selector's combinators apply within one
// tree (`my-el span` does not reach from a host into its shadow root). A page without open shadow roots
// takes the plain `querySelector`.
(selector, root) => {
  root = root || document;
  const first = root.querySelector(selector);
  const hosts = Array.from(root.querySelectorAll('*')).filter((e) => e.shadowRoot);
  if (!hosts.length) return first;
  const visit = (node) => {
    for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
      if (el.matches(selector)) return el;
      if (el.shadowRoot) {
        const inShadow = visit(el.shadowRoot);
        if (inShadow) return inShadow;
      }
      const below = visit(el);
      if (below) return below;
    }
    return null;
  };
  return visit(root);
}
