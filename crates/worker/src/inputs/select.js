// Picks options of a <select> as Playwright's `selectOptions` does (injectedScript.ts): a wanted value
// matches an option by its value or its label, a wanted label by its label, an index by position. A
// single <select> takes the first option that matches any of them; a multiple one takes every match,
// and each wanted item must match one. What is not there yet is returned as `missing` (the caller
// waits for it); `input` and `change` fire once the selection is made.
function(want) {
  if (this.localName !== 'select') return { error: 'is not a <select>' };
  const opts = Array.from(this.options);
  // Labels compare with their whitespace normalized on both sides (every run of white space, a
  // no-break space included, is one space; none at the ends), as Playwright's text matching does
  // (`normalizeWhiteSpace`): an option written `&nbsp;HTML` is chosen by the label `HTML`.
  const norm = (t) => t.replace(/\s+/g, ' ').trim();
  const label = (o) => norm(o.label || o.text);
  const byValue = (v) => (o) => o.value === v || label(o) === norm(v);
  const byLabel = (l) => (o) => label(o) === norm(l);
  const byIndex = (i) => (o) => opts[i] === o;
  const wanted = [
    ...want.values.map((v) => ['value or label ' + JSON.stringify(v), byValue(v)]),
    ...want.labels.map((l) => ['label ' + JSON.stringify(l), byLabel(l)]),
    ...want.indexes.map((i) => ['index ' + i, byIndex(i)]),
  ];
  let picked;
  if (!this.multiple) {
    const first = opts.find((o) => wanted.some(([, m]) => m(o)));
    if (!first) return { missing: wanted.map(([d]) => d).join(', ') };
    picked = [first];
  } else {
    const missing = wanted.filter(([, m]) => !opts.some(m)).map(([d]) => d);
    if (missing.length) return { missing: missing.join(', ') };
    picked = opts.filter((o) => wanted.some(([, m]) => m(o)));
  }
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { values: Array.from(this.selectedOptions).map((o) => o.value) };
}
