function(want) {
  if (this.localName !== 'select') return { error: 'is not a <select>' };
  const opts = Array.from(this.options);
  const picked = [];
  for (const v of want.values) { const o = opts.find((o) => o.value === v); if (!o) return { error: 'has no option with value ' + JSON.stringify(v) }; picked.push(o); }
  for (const l of want.labels) { const o = opts.find((o) => o.label === l || o.text.trim() === l); if (!o) return { error: 'has no option labelled ' + JSON.stringify(l) }; picked.push(o); }
  for (const i of want.indexes) { if (!opts[i]) return { error: 'has no option at index ' + i }; picked.push(opts[i]); }
  if (picked.length > 1 && !this.multiple) return { error: 'takes one option (it is not multiple)' };
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { values: Array.from(this.selectedOptions).map((o) => o.value) };
}
