// `page.generate_locator`: a locator for `this` element, as Playwright writes one for a test. Called on
// the element as `(query, walker, visible)`: the selector engine (query.js, with its 'all' mode), the
// snapshot's walker (walker.js) and visible.js's test. Answers `{locator, unique}`.
//
// What it follows: Playwright's `generateSelector` (injected/selectorGenerator.ts) as its locators
// write it (`asLocator`, utils/isomorphic/locatorGenerators.ts): candidates in Playwright's order of
// preference (its scores): a test id (`data-testid`, 1), the role with its accessible name (100, then
// with `exact: true`), the placeholder (120), the label (140), the alt text (160), the text (180), the
// title (200), a CSS `#id` (500), the role alone (510), the tag name (530), and the first that matches
// this element alone wins. Each candidate is tried with the same selector engine the API's `selector` uses, so what is
// answered finds this element here.
// When none names the element alone, the first that matches it is answered with its index among the
// matches (`.first()`, `.nth(i)`: Playwright's `nth=` score), so a `<div>` with nothing of its own is
// `locator('div').nth(3)` as Playwright writes it; and without any (an element no engine reaches),
// its CSS path from its document's root (`locator('body > div:nth-child(2) > span')`).
// Differences: no candidate joins two parts (Playwright scopes a candidate inside an ancestor's:
// `getByRole('listitem').filter({ hasText: 'Ink' }).getByRole('button')` where ours is
// `getByRole('button', { name: 'Delete' }).nth(1)`).
function (query, walker, visible) {
  // biome-ignore lint/complexity/noUselessThisAlias: the element, named once for the helpers below
  const el = this;
  const norm = (s) => (s || '').replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
  const quote = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  const named = (fn, value, exact) => `${fn}(${quote(value)}${exact ? ', { exact: true }' : ''})`;
  const matches = (locator) => {
    try {
      return query(locator, el.ownerDocument, walker, visible, 'all') || [];
    } catch {
      return [];
    }
  };
  const aria = walker({ api: true, maxChars: 0, maxDepth: null });
  const role = aria.role(el);
  const name = role ? norm(aria.name(el, role)) : '';
  const attr = (n) => norm(el.getAttribute(n));
  const short = (s) => s && s.length <= 80;
  const candidates = [];
  const testId = el.getAttribute('data-testid');
  if (testId) candidates.push(`getByTestId(${quote(testId)})`);
  const generic = !role || ['generic', 'none', 'presentation', 'text'].includes(role);
  if (!generic && short(name)) {
    candidates.push(`getByRole(${quote(role)}, { name: ${quote(name)} })`);
    candidates.push(`getByRole(${quote(role)}, { name: ${quote(name)}, exact: true })`);
  }
  // biome-ignore lint/performance/useDomNodeTextContent: a label's text as the page shows it, as getByLabel reads it
  const label = el.labels && el.labels[0] ? el.labels[0].innerText : el.getAttribute('aria-label');
  for (const [fn, value] of [
    ['getByPlaceholder', attr('placeholder')],
    ['getByLabel', norm(label)],
    ['getByAltText', attr('alt')],
  ]) {
    if (short(value)) candidates.push(named(fn, value, false), named(fn, value, true));
  }
  // biome-ignore lint/performance/useDomNodeTextContent: the text as the page shows it, as getByText reads it
  const text = norm(el.innerText);
  const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
  if (!field && short(text)) candidates.push(named('getByText', text, false), named('getByText', text, true));
  if (short(attr('title'))) candidates.push(named('getByTitle', attr('title'), false), named('getByTitle', attr('title'), true));
  if (el.id) candidates.push(`locator(${quote('#' + CSS.escape(el.id))})`);
  if (!generic) candidates.push(`getByRole(${quote(role)})`);
  candidates.push(`locator(${quote(el.tagName.toLowerCase())})`);

  // Each candidate's matches, tried in order until one is this element alone (kept for the next step).
  const found = [];
  for (const locator of candidates) {
    const m = matches(locator);
    if (m.length === 1 && m[0] === el) return { locator, unique: true };
    found.push([locator, m]);
  }
  for (const [locator, m] of found) {
    const at = m.indexOf(el);
    if (at >= 0) return { locator: at === 0 ? `${locator}.first()` : `${locator}.nth(${at})`, unique: false };
  }
  // The CSS path from the document's root: one `:nth-child` a step where the tag is not enough.
  const steps = [];
  for (let e = el; e && e.nodeType === 1 && e !== el.ownerDocument.documentElement; e = e.parentElement) {
    const tag = e.tagName.toLowerCase();
    const parent = e.parentElement;
    const same = parent ? [...parent.children].filter((c) => c.tagName === e.tagName) : [e];
    steps.unshift(same.length > 1 ? `${tag}:nth-child(${[...parent.children].indexOf(e) + 1})` : tag);
  }
  const path = steps.join(' > ') || 'html';
  const m = matches(`locator(${quote(path)})`);
  return { locator: `locator(${quote(path)})`, unique: m.length === 1 && m[0] === el };
}
