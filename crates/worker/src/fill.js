function(value) {
  this.focus();
  if (this.isContentEditable) { this.textContent = value; this.dispatchEvent(new InputEvent('input', { bubbles: true })); return 'ok'; }
  const proto = this.localName === 'textarea' ? HTMLTextAreaElement.prototype : this.localName === 'input' ? HTMLInputElement.prototype : null;
  if (!proto) return 'no';
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, value);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return 'ok';
}
