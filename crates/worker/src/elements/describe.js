function() {
  let s = '<' + this.localName;
  for (const a of ['id', 'class', 'name', 'role']) if (this.hasAttribute && this.hasAttribute(a)) s += ' ' + a + '="' + this.getAttribute(a).slice(0, 40) + '"';
  return s + '>';
}
