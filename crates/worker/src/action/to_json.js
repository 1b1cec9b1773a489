// `page.evaluate`'s value as JSON without losing what JSON cannot hold (tags such as `$undefined`,
// `$number`, `$node`; see TO_JSON in actions.rs). Called on the evaluated object.
function() {
  'use strict';
  // The value is returned whole, as Playwright's serializer returns it, up to about LIMIT bytes of JSON
  // (a count kept as it goes: 8 per value plus each string's and key's length). Past it, each
  // container still open ends with one `$truncated` entry saying how much was left out.
  const LIMIT = 64 * 1024 * 1024;
  let size = 0;
  const cut = (n, what) => `${n} more ${what}${n === 1 ? '' : 's'}: the value passed ${LIMIT >> 20} MiB as JSON`;
  // The objects being converted, from the root down: one met again is a cycle.
  const path = new Set();
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
  // `all` (an array, a typed array, a Map's or a Set's entries) converted by `one`, ending with one
  // `$truncated` entry once the value has passed LIMIT.
  const items = (all, one) => {
    const out = [];
    let left = all.length;
    for (const x of all) {
      if (size > LIMIT) { out.push({ $truncated: cut(left, 'item') }); break; }
      out.push(one(x));
      left--;
    }
    return out;
  };
  const conv = (v, depth) => {
    size += 8;
    switch (typeof v) {
      case 'undefined': return { $undefined: true };
      case 'number': return Number.isFinite(v) ? (Object.is(v, -0) ? { $number: '-0' } : v) : { $number: String(v) };
      case 'bigint': return { $bigint: v.toString() };
      case 'string': size += v.length; return v;
      case 'boolean': return v;
      case 'symbol': return { $symbol: v.toString() };
      case 'function': return { $function: v.name || 'anonymous' };
    }
    if (v === null) return null;
    if (typeof Node !== 'undefined' && v instanceof Node) return { $node: node(v) };
    if (path.has(v)) return { $circular: true };
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
    path.add(v);
    try {
      if (v instanceof Error) return { $error: String(v) };
      // Typed arrays as arrays of their numbers (Playwright keeps their type; JSON has none).
      if (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView))) return items(v, (x) => conv(x, depth + 1));
      if (v instanceof Map) return { $map: items(Array.from(v), ([k, x]) => [conv(k, depth + 1), conv(x, depth + 1)]) };
      if (v instanceof Set) return { $set: items(Array.from(v), (x) => conv(x, depth + 1)) };
      const out = {};
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (size > LIMIT) { out.$truncated = cut(keys.length - i, 'key'); break; }
        size += k.length;
        try { out[k] = conv(v[k], depth + 1); } catch (e) { out[k] = { $truncated: String(e) }; }
      }
      return out;
    } finally { path.delete(v); }
  };
  return conv(this, 0);
}
