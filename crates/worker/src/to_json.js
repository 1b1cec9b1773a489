// `page.evaluate`'s value as JSON without losing what JSON cannot hold (tags such as `$undefined`,
// `$number`, `$node`; see TO_JSON in actions.rs). Called on the evaluated object.
function() {
  'use strict';
  let budget = 20000;
  const stack = [];
  const node = (n) => {
    if (n.nodeType !== 1) return n.nodeName;
    let s = '<' + n.localName;
    for (const a of ['id', 'class', 'name', 'href']) if (n.hasAttribute(a)) s += ' ' + a + '="' + n.getAttribute(a).slice(0, 40) + '"';
    return s + '>';
  };
  const plain = new Set(['Object', 'Array', 'Map', 'Set', 'Error', 'Date', 'RegExp', 'Arguments', 'Promise']);
  const platform = (v, tag) => {
    if (plain.has(tag) || ArrayBuffer.isView(v) || v instanceof Error) return false;
    try {
      const ctor = Object.getPrototypeOf(v)?.constructor;
      return typeof ctor === 'function' && ctor !== Object && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(ctor));
    } catch { return false; }
  };
  const conv = (v, depth) => {
    if (--budget < 0) return { $truncated: 'too many values' };
    switch (typeof v) {
      case 'undefined': return { $undefined: true };
      case 'number': return Number.isFinite(v) ? (Object.is(v, -0) ? { $number: '-0' } : v) : { $number: String(v) };
      case 'bigint': return { $bigint: v.toString() };
      case 'string': case 'boolean': return v;
      case 'symbol': return { $symbol: v.toString() };
      case 'function': return { $function: v.name || 'anonymous' };
    }
    if (v === null) return null;
    if (typeof Node !== 'undefined' && v instanceof Node) return { $node: node(v) };
    if (stack.includes(v)) return { $circular: true };
    if (depth > 32) return { $truncated: 'too deep' };
    // Typed values keep their type, as Playwright's serializer (`utilityScriptSerializers.ts`) keeps
    // them, and nothing else's own `toJSON` is called: an object with one is returned as it is (its
    // `toJSON` shown as a function), as Playwright returns it.
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? { $date: 'Invalid Date' } : v.toISOString();
    if (typeof URL !== 'undefined' && v instanceof URL) return v.href;
    if (v instanceof RegExp) return { $regexp: String(v) };
    // Window and the other platform objects (Location, Navigator, Storage, events, ...) as their
    // class, not a dump of their properties; the page's own objects and classes keep their fields.
    const tag = Object.prototype.toString.call(v).slice(8, -1);
    if (v === globalThis || platform(v, tag)) return { $object: tag };
    stack.push(v);
    try {
      if (Array.isArray(v)) return v.map((x) => conv(x, depth + 1));
      if (v instanceof Map) return { $map: Array.from(v, ([k, x]) => [conv(k, depth + 1), conv(x, depth + 1)]) };
      if (v instanceof Set) return { $set: Array.from(v, (x) => conv(x, depth + 1)) };
      if (v instanceof Error) return { $error: String(v) };
      const out = {};
      for (const k of Object.keys(v)) {
        try { out[k] = conv(v[k], depth + 1); } catch (e) { out[k] = { $truncated: String(e) }; }
      }
      return out;
    } finally { stack.pop(); }
  };
  return conv(this, 0);
}
