function(value) {
  // As Playwright's fill (injectedScript.ts `fill`): the <input> types it types into and those whose
  // value it sets (trimmed), a number that must read as one, a <textarea>, a [contenteditable];
  // anything else cannot be filled. The answer is 'ok', 'insert' (a [contenteditable], its content
  // selected: the caller types the value over it, as Playwright does) or why not. Ours: the value goes in through the
  // element's own setter (so frameworks see it), and a value the input refused (a malformed date) is
  // an error that leaves the field as it was, not a fill that emptied it.
  const setValue = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];
  const typeInto = ['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'];
  const type = this.localName === 'input' ? this.type.toLowerCase() : null;
  if (type !== null) {
    const instead = { checkbox: 'page.check', radio: 'page.check', file: 'page.upload' }[type];
    if (!typeInto.includes(type) && !setValue.includes(type)) return `input of type "${type}" cannot be filled${instead ? ` (${instead} sets it)` : ''}`;
    if (type === 'number' || setValue.includes(type)) value = value.trim();
    if (type === 'number' && Number.isNaN(Number(value))) return `"${value}" is not a number (input[type=number])`;
  } else if (this.localName !== 'textarea' && !this.isContentEditable) {
    return `is not an <input>, <textarea> or [contenteditable] element${this.localName === 'select' ? ' (page.select chooses its options)' : ''}`;
  }
  if (this.isContentEditable) {
    // Its content selected (the editing host focused), for the value to be typed over it: 'insert'.
    let host = this;
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    host.focus();
    const range = this.ownerDocument.createRange();
    range.selectNodeContents(this);
    const selection = this.ownerDocument.defaultView.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return 'insert';
  }
  this.focus();
  const proto = type !== null ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
  const set = Object.getOwnPropertyDescriptor(proto, 'value').set;
  const before = this.value;
  set.call(this, value);
  if (this.value !== value) { set.call(this, before); return `refused the value "${value}" (input[type=${type}])`; }
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return 'ok';
}
