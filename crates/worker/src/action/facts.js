// An element as it is now, for page.query and page.verify (called on the element with `limit`, the
// most characters of its text and of each attribute value). What it reads follows Playwright's
// injectedScript.ts: `inputValue` (an <input>, <textarea> or <select>'s value; none for other
// elements), `elementState('checked')` (a checkbox or radio input's `checked`, else `aria-checked` on
// a role that takes it; 'mixed' is not checked), `elementState('enabled')` (ours as the actionability
// checks have it), `isVisible` (visible.js), and `boundingBox()` (none without a box).
function(limit) {
  const cut = (s) => (s.length > limit ? [s.slice(0, limit), true] : [s, false]);
  // biome-ignore lint/performance/useDomNodeTextContent: the text as the page shows it (Playwright's innerText), as page.extract reads it
  const raw = typeof this.innerText === 'string' ? this.innerText : (this.textContent || '');
  const [text, truncated] = cut(raw.replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim());
  const tag = this.localName;
  const value = ['input', 'textarea', 'select'].includes(tag) ? String(this.value) : null;
  let checked = null;
  if (tag === 'input' && (this.type === 'checkbox' || this.type === 'radio')) {
    checked = this.checked;
  } else {
    const role = (this.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    const checkable = ['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'];
    if (checkable.includes(role)) checked = this.getAttribute('aria-checked') === 'true';
  }
  const disabled = this.disabled === true || this.getAttribute('aria-disabled') === 'true'
    || (!!this.closest && !!this.closest('fieldset[disabled]') && 'disabled' in this);
  const attributes = Array.from(this.attributes).slice(0, 100).map((a) => ({ name: a.name, value: cut(a.value)[0] }));
  const r = this.getBoundingClientRect();
  const bounding_box = this.getClientRects().length ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
  return {
    tag, text, text_truncated: truncated, value, checked,
    visible: isVisible(this), enabled: !disabled, attributes, bounding_box,
  };
}
