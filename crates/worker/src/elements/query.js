// The selector engine: `(selector, root, walker, visible, frames) => Element | null`, the first match
// in document order of a Playwright selector or locator, through open shadow roots. `walker` is the
// snapshot's walker (walker.js) or null: the role and label engines take roles, accessible names,
// states and what is hidden from it (`walker({api: true})`), so a selector and a snapshot agree on
// them. `visible` is visible.js's test, which `visible=` and `:visible` apply. Into a frame
// (`internal:control=enter-frame`): with `frames` 'hop' the answer is `{frame, rest}` (the <iframe>
// or <frame> and the selector to run in its document, which the worker runs there, in whatever
// process), and so with 'count', whose answer is `"<matches> <visible matches>"` (page.verify and
// page.query count what Playwright's `locator.count()` counts); otherwise the search goes on in the frame's document when this script can reach it (same
// origin), and fails when it cannot. With 'all' the answer is every match, in document order.
//
// What it follows (Playwright's `injected/selectorParser.ts`, `selectorEvaluator.ts`,
// `injectedScript.ts` and `roleSelectorEngine.ts`, and `utils/isomorphic/locatorParser.ts` for the
// locator form), rule for rule:
// - parts joined by ` >> ` (outside quotes), each searched inside the matches of the one before;
// - a part is `engine=body`, or CSS, or XPath when it starts with `//` or `..`, or text when quoted;
// - engines: css (through open shadow roots; Playwright's `:has-text()`, `:text()`, `:text-is()`,
//   `:text-matches()` and `:visible` at the end of the part), xpath, text and internal:text (quoted:
//   the whole text, case-sensitive; unquoted or `"..."i`: a case-insensitive substring; `/re/flags`;
//   the smallest element that matches), role and internal:role (`button[name="Save"]`, with checked,
//   disabled, expanded, level, pressed, selected, include-hidden; internal:role's name is a
//   case-insensitive substring unless `"..."s`), internal:label, internal:attr (placeholder, alt,
//   title), internal:testid, id, data-testid, data-test-id, data-test, nth (from 0, negative from the
//   end), visible, internal:has-text, internal:has-not-text;
// - a locator as Playwright writes it: `getByRole('button', { name: 'Save', exact: true })`,
//   `getByText`, `getByLabel`, `getByPlaceholder`, `getByAltText`, `getByTitle`, `getByTestId`
//   (data-testid), `locator('css')`, chained, with `.first()`, `.last()`, `.nth(i)`,
//   `.filter({ hasText })`, `frameLocator('iframe')` and `.contentFrame()` (into a frame; `.first()`,
//   `.last()`, `.nth(i)` right after them pick the frame, `.owner()` is the frame element), an
//   optional leading `page.`.
// Differences: the first match is the answer (Playwright's locators refuse two: "strict mode
// violation"); layout engines (`left-of`, ...), `internal:has`, `internal:or`/`and` and
// `:has-text()` inside a CSS part (not at its end) are refused as not supported.
(selector, root, walker, visible, frames) => {
  root = root || document;
  const fail = (m) => { throw new SyntaxError(m); };
  const norm = (s) => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
  let aria = null;
  const api = () => {
    if (!aria) {
      if (!walker) fail(`the selector ${JSON.stringify(selector)} needs roles and names`);
      aria = walker({ api: true, maxChars: 0, maxDepth: null });
    }
    return aria;
  };

  // ---- every element under a root, in document order, a host's shadow root before its children
  function all(scope) {
    const out = [];
    const visit = (node) => {
      for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
        out.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
        visit(el);
      }
    };
    if (scope.nodeType === 1 && scope.shadowRoot) visit(scope.shadowRoot);
    visit(scope);
    return out;
  }
  // A scope without shadow hosts takes the plain querySelectorAll (a host inside a shadow root has
  // one outside it).
  function css(scope, text) {
    const found = Array.from(scope.querySelectorAll(text));
    const hosts = (scope.nodeType === 1 && scope.shadowRoot) || Array.from(scope.querySelectorAll('*')).some((e) => e.shadowRoot);
    return hosts ? all(scope).filter((e) => e.matches(text)) : found;
  }

  // ---- text (Playwright's elementText and createTextMatcher)
  const texts = new Map();
  function textOf(e) {
    let v = texts.get(e);
    if (v) return v;
    v = { full: '', normalized: '', immediate: [] };
    const skip = e.nodeName === 'SCRIPT' || e.nodeName === 'NOSCRIPT' || e.nodeName === 'STYLE'
      || (e.ownerDocument && e.ownerDocument.head && e.ownerDocument.head.contains(e));
    if (!skip) {
      if (e.nodeName === 'INPUT' && ['submit', 'button', 'reset'].includes(e.type)) {
        v = { full: e.value, normalized: norm(e.value), immediate: [e.value] };
      } else {
        let run = '';
        for (let c = e.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) { v.full += c.nodeValue || ''; run += c.nodeValue || ''; continue; }
          if (c.nodeType === 8) continue;
          if (run) v.immediate.push(run);
          run = '';
          if (c.nodeType === 1) v.full += textOf(c).full;
        }
        if (run) v.immediate.push(run);
        if (e.shadowRoot) v.full += textOf(e.shadowRoot).full;
        v.normalized = norm(v.full);
      }
    }
    texts.set(e, v);
    return v;
  }
  function regex(body) {
    const last = body.lastIndexOf('/');
    return new RegExp(body.slice(1, last), body.slice(last + 1));
  }
  // A `/source/flags` literal starting at s[from] (Playwright's readRegularExpression: escapes, and a
  // `/` inside a [class], are the source's): the RegExp and the index after it.
  function regexAt(s, from) {
    let i = from + 1;
    let cls = false;
    while (i < s.length && (cls || s[i] !== '/')) {
      if (s[i] === '\\') i++;
      else if (s[i] === '[') cls = true;
      else if (s[i] === ']') cls = false;
      i++;
    }
    i++;
    while (i < s.length && /[dgimsuvy]/.test(s[i])) i++;
    return { value: regex(s.slice(from, i)), end: i };
  }
  function unquote(s, internal) {
    if (internal || s[0] === '"') return JSON.parse(s[0] === "'" ? '"' + s.slice(1, -1).replace(/"/g, '\\"') + '"' : s);
    return s.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  function textMatcher(body, internal) {
    body = body.trim();
    if (body[0] === '/' && body.lastIndexOf('/') > 0) {
      const re = regex(body);
      return { kind: 'regex', test: (t) => { re.lastIndex = 0; return re.test(t.full); } };
    }
    let strict = false;
    const q = body[0];
    if (body.length > 1 && (q === '"' || q === "'") && body[body.length - 1] === q) {
      body = unquote(body, internal);
      strict = true;
    } else if (internal && body.length > 2 && q === '"' && body[body.length - 2] === '"' && /[is]/.test(body[body.length - 1])) {
      strict = body[body.length - 1] === 's';
      body = unquote(body.slice(0, -1), true);
    }
    const want = norm(body);
    if (strict && internal) return { kind: 'strict', test: (t) => t.normalized === want };
    if (strict) {
      return { kind: 'strict', test: (t) => (!want && !t.immediate.length) || t.immediate.some((s) => norm(s) === want) };
    }
    const lower = want.toLowerCase();
    return { kind: 'lax', test: (t) => t.normalized.toLowerCase().includes(lower) };
  }
  function byText(scope, body, internal) {
    const m = textMatcher(body, internal);
    const out = [];
    let missed = null;
    const consider = (e) => {
      if (m.kind === 'lax' && missed && missed.contains(e)) return;
      if (e.nodeName === 'SCRIPT' || e.nodeName === 'NOSCRIPT' || e.nodeName === 'STYLE' || !m.test(textOf(e))) {
        missed = e;
        return;
      }
      let children = false;
      for (let c = e.firstElementChild; c && !children; c = c.nextElementSibling) children = m.test(textOf(c));
      if (!children && e.shadowRoot) children = m.test(textOf(e.shadowRoot));
      if (!children || (m.kind === 'strict' && !internal)) out.push(e);
    };
    if (scope.nodeType === 1) consider(scope);
    for (const e of all(scope)) consider(e);
    return out;
  }

  // ---- `name[attr op value flag]...` (Playwright's parseAttributeSelector)
  function attributes(text) {
    let i = 0;
    const at = () => text[i] || '';
    const spaces = () => { while (i < text.length && /\s/.test(at())) i++; };
    const ident = () => { spaces(); let s = ''; while (i < text.length && /[\w\-\u0080-\uffff.+]/.test(at())) s += text[i++]; return s; };
    const quoted = () => {
      const q = text[i];
      let s = text[i++];
      while (i < text.length && at() !== q) { if (at() === '\\') s += text[i++]; s += text[i++]; }
      if (at() !== q) fail(`unterminated string in ${JSON.stringify(text)}`);
      return s + text[i++];
    };
    const name = ident();
    const attrs = [];
    spaces();
    while (at() === '[') {
      i++;
      spaces();
      const key = at() === '"' || at() === "'" ? unquote(quoted(), false) : ident();
      spaces();
      if (at() === ']') { i++; attrs.push({ key, op: 'truthy', value: true, exact: false }); spaces(); continue; }
      let op = text[i++];
      if (op !== '=') op += text[i++];
      if (!['=', '*=', '^=', '$=', '|=', '~='].includes(op)) fail(`bad operator in ${JSON.stringify(text)}`);
      spaces();
      let value;
      let exact = true;
      if (at() === '/') {
        ({ value, end: i } = regexAt(text, i));
      } else if (at() === '"' || at() === "'") {
        value = unquote(quoted(), false);
        spaces();
        if (/[iI]/.test(at())) { exact = false; i++; } else if (/[sS]/.test(at())) i++;
      } else {
        value = ident();
        value = value === 'true' ? true : value === 'false' ? false : value;
      }
      spaces();
      if (at() !== ']') fail(`expected "]" in ${JSON.stringify(text)}`);
      i++;
      spaces();
      attrs.push({ key, op, value, exact });
    }
    if (i < text.length) fail(`unexpected ${JSON.stringify(text.slice(i))} in ${JSON.stringify(text)}`);
    return { name, attrs };
  }
  function matchesValue(actual, a) {
    if (a.value instanceof RegExp) { a.value.lastIndex = 0; return typeof actual === 'string' && a.value.test(actual); }
    const x = typeof actual === 'string' && !a.exact ? actual.toUpperCase() : actual;
    const y = typeof a.value === 'string' && !a.exact ? a.value.toUpperCase() : a.value;
    if (a.op === '=') return x === y;
    if (typeof x !== 'string' || typeof y !== 'string') return false;
    if (a.op === '*=') return x.includes(y);
    if (a.op === '^=') return x.startsWith(y);
    if (a.op === '$=') return x.endsWith(y);
    if (a.op === '|=') return x === y || x.startsWith(y + '-');
    return x.split(' ').includes(y);
  }

  // ---- role (roleSelectorEngine.ts), with the walker's roles, names and states
  function byRole(scope, body, internal) {
    const { name: role, attrs } = attributes(body);
    if (!role) fail('a role selector needs a role: role=button[name="Save"]');
    const w = api();
    const hiddenToo = attrs.some((a) => a.key === 'include-hidden' && (a.op === 'truthy' || a.value === true));
    const tests = [];
    for (const a of attrs) {
      const flag = (word) => (_e, states) => {
        const has = states.find((s) => s === word || s.startsWith(word + '='));
        const v = !has ? false : has === word ? true : has.slice(word.length + 1);
        return String(v) === String(a.op === 'truthy' ? true : a.value);
      };
      if (a.key === 'name') {
        if (a.op === 'truthy') fail('"name" attribute must have a value');
        const want = typeof a.value === 'string' ? norm(a.value) : a.value;
        const op = internal && a.exact === false && a.op === '=' ? '*=' : a.op;
        tests.push((e) => matchesValue(norm(w.name(e, role, hiddenToo)), { ...a, op, value: want }));
      } else if (a.key === 'include-hidden') {
        // Read above: it applies to the whole selector.
      } else if (['checked', 'disabled', 'expanded', 'pressed', 'selected', 'level'].includes(a.key)) {
        tests.push(flag(a.key));
      } else {
        fail(`Unknown attribute "${a.key}", must be one of "checked", "disabled", "expanded", "include-hidden", "level", "name", "pressed", "selected".`);
      }
    }
    return all(scope).filter((e) => {
      if (w.role(e) !== role) return false;
      if (!hiddenToo && w.hidden(e)) return false;
      const states = tests.length ? w.attrs(e, role) : [];
      return tests.every((t) => t(e, states));
    });
  }
  function labelsOf(e) {
    const ids = e.getAttribute('aria-labelledby');
    if (ids) {
      const found = ids.split(/\s+/).map((id) => e.getRootNode().getElementById?.(id) || e.ownerDocument.getElementById(id)).filter(Boolean);
      if (found.length) return found.map(textOf);
    }
    const label = e.getAttribute('aria-label');
    if (label !== null && label.trim()) return [{ full: label, normalized: norm(label), immediate: [label] }];
    const input = e.nodeName === 'INPUT' && e.type !== 'hidden';
    if (input || ['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA'].includes(e.nodeName)) {
      return e.labels ? Array.from(e.labels).map(textOf) : [];
    }
    return [];
  }
  function byAttr(scope, body, names) {
    const { name, attrs } = attributes(body);
    if (name || attrs.length !== 1) fail(`Malformed attribute selector: ${body}`);
    const a = attrs[0];
    const keys = names || [a.key];
    const test = a.value instanceof RegExp ? (s) => { a.value.lastIndex = 0; return a.value.test(s); }
      : a.exact ? (s) => s === String(a.value) : (s) => s.toLowerCase().includes(String(a.value).toLowerCase());
    return all(scope).filter((e) => keys.some((k) => e.hasAttribute(k) && test(e.getAttribute(k))));
  }

  // ---- CSS with Playwright's pseudo-classes at the end of the part
  const PSEUDO = /:(has-text|text-is|text-matches|text|visible)(\((?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^()])*\))?\s*$/;
  function byCss(scope, body) {
    const filters = [];
    let rest = body.trim();
    for (let m = rest.match(PSEUDO); m; m = rest.match(PSEUDO)) {
      rest = rest.slice(0, m.index).trim();
      const arg = m[2] ? m[2].slice(1, -1).trim() : '';
      const kind = m[1];
      if (kind === 'visible') { filters.unshift((els) => els.filter(visible)); continue; }
      const literal = arg[0] === '"' || arg[0] === "'" ? unquote(arg, false) : arg;
      if (kind === 'has-text') {
        const want = norm(literal).toLowerCase();
        filters.unshift((els) => els.filter((e) => textOf(e).normalized.toLowerCase().includes(want)));
      } else {
        const textBody = kind === 'text' ? literal : kind === 'text-is' ? JSON.stringify(literal) : '/' + literal + '/';
        filters.unshift((els) => {
          const hits = new Set(byText(els.length ? els[0].ownerDocument : scope, textBody, kind === 'text-is'));
          return els.filter((e) => hits.has(e));
        });
      }
    }
    if (/:(has-text|text-is|text-matches|text|visible)\b/.test(rest)) {
      fail(`${JSON.stringify(body)}: Playwright's :has-text(), :text() and :visible are taken at the end of a selector part; chain with >> (div:has-text("x") >> span)`);
    }
    let els = css(scope, rest || '*');
    for (const f of filters) els = f(els);
    return els;
  }
  function byXpath(scope, body) {
    const doc = scope.ownerDocument || scope;
    const r = doc.evaluate(body, scope, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < r.snapshotLength; i++) if (r.snapshotItem(i).nodeType === 1) out.push(r.snapshotItem(i));
    return out;
  }

  // ---- a locator as Playwright writes it, to selector parts
  const ENTER_FRAME = 'internal:control=enter-frame';
  function fromLocator(src) {
    let i = 0;
    const at = () => src[i] || '';
    const spaces = () => { while (i < src.length && /\s/.test(at())) i++; };
    const expect = (c) => { spaces(); if (at() !== c) fail(`expected "${c}" at ${i} in ${JSON.stringify(src)}`); i++; };
    function value() {
      spaces();
      const c = at();
      if (c === '"' || c === "'" || c === '`') {
        let s = '';
        i++;
        while (i < src.length && at() !== c) {
          if (at() === '\\') { i++; const e = at(); s += e === 'n' ? '\n' : e === 't' ? '\t' : e; i++; continue; }
          s += src[i++];
        }
        i++;
        return s;
      }
      if (c === '/') {
        const found = regexAt(src, i);
        i = found.end;
        return found.value;
      }
      if (c === '{') {
        i++;
        const o = {};
        for (spaces(); at() !== '}'; spaces()) {
          let key;
          if (at() === '"' || at() === "'") {
            key = value();
          } else {
            const word = src.slice(i).match(/^[\w$-]+/);
            if (!word) fail(`bad key at ${i} in ${JSON.stringify(src)}`);
            key = word[0];
            i += key.length;
          }
          expect(':');
          o[key] = value();
          spaces();
          if (at() === ',') i++;
        }
        i++;
        return o;
      }
      const word = src.slice(i).match(/^-?[\w.]+/);
      if (!word) fail(`bad value at ${i} in ${JSON.stringify(src)}`);
      i += word[0].length;
      return word[0] === 'true' ? true : word[0] === 'false' ? false : Number(word[0]);
    }
    const text = (v, exact) => (v instanceof RegExp ? String(v) : JSON.stringify(v) + (exact ? 's' : 'i'));
    const parts = [];
    // On a frame locator (`frameLocator()`, `contentFrame()`), first/last/nth pick the frame: the
    // part goes before the step into it, as Playwright's FrameLocator writes `iframe >> nth=0 >>
    // internal:control=enter-frame`.
    const nth = (n) => {
      if (parts[parts.length - 1] === ENTER_FRAME) parts.splice(parts.length - 1, 0, `nth=${n}`);
      else parts.push(`nth=${n}`);
    };
    spaces();
    if (/^(page|frame|this)\s*\./.test(src.slice(i))) { i = src.indexOf('.', i) + 1; }
    for (;;) {
      spaces();
      const m = src.slice(i).match(/^([A-Za-z]+)\s*\(/);
      if (!m) fail(`expected a locator method at ${i} in ${JSON.stringify(src)}`);
      i += m[0].length;
      const args = [];
      for (spaces(); at() !== ')'; spaces()) { args.push(value()); spaces(); if (at() === ',') i++; }
      i++;
      const [a, o = {}] = args;
      switch (m[1]) {
        case 'locator': parts.push(a); break;
        case 'getByRole': {
          const props = [];
          for (const k of ['checked', 'disabled', 'selected', 'expanded', 'includeHidden', 'level', 'pressed']) {
            if (o[k] !== undefined) props.push(`[${k === 'includeHidden' ? 'include-hidden' : k}=${o[k]}]`);
          }
          if (o.name !== undefined) props.push(`[name=${o.name instanceof RegExp ? String(o.name) : JSON.stringify(o.name) + (o.exact ? 's' : 'i')}]`);
          parts.push(`internal:role=${a}${props.join('')}`);
          break;
        }
        case 'getByText': parts.push(`internal:text=${text(a, o.exact)}`); break;
        case 'getByLabel': parts.push(`internal:label=${text(a, o.exact)}`); break;
        case 'getByPlaceholder': parts.push(`internal:attr=[placeholder=${text(a, o.exact)}]`); break;
        case 'getByAltText': parts.push(`internal:attr=[alt=${text(a, o.exact)}]`); break;
        case 'getByTitle': parts.push(`internal:attr=[title=${text(a, o.exact)}]`); break;
        case 'getByTestId': parts.push(`internal:testid=[data-testid=${text(a, true)}]`); break;
        case 'frameLocator': parts.push(a, ENTER_FRAME); break;
        case 'contentFrame': parts.push(ENTER_FRAME); break;
        // A frame locator's owner() is the <iframe> itself.
        case 'owner': if (parts[parts.length - 1] === ENTER_FRAME) parts.pop(); break;
        case 'first': nth('0'); break;
        case 'last': nth('-1'); break;
        case 'nth': nth(String(a)); break;
        case 'filter':
          if (a && a.hasText !== undefined) parts.push(`internal:has-text=${text(a.hasText, false)}`);
          if (a && a.hasNotText !== undefined) parts.push(`internal:has-not-text=${text(a.hasNotText, false)}`);
          if (a && a.visible !== undefined) parts.push(`visible=${a.visible}`);
          break;
        default: fail(`${m[1]}() is not a locator method this runtime takes (getByRole, getByText, getByLabel, getByPlaceholder, getByAltText, getByTitle, getByTestId, locator, frameLocator, contentFrame, owner, first, last, nth, filter)`);
      }
      spaces();
      if (i >= src.length) return parts;
      if (at() !== '.') fail(`unexpected ${JSON.stringify(src.slice(i))} in ${JSON.stringify(src)}`);
      i++;
    }
  }

  // ---- parts (Playwright's parseSelectorString)
  function split(text) {
    const parts = [];
    let quote = '';
    let from = 0;
    // Inside a text part, after its first character, quotes are the text's own (`text=it's`).
    const textPart = (i) => /^\s*text\s*=.+$/s.test(text.slice(from, i));
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') { i++; continue; }
      if (quote) { if (c === quote) quote = ''; continue; }
      if ((c === '"' || c === "'" || c === '`') && !textPart(i)) { quote = c; continue; }
      if (c === '>' && text[i + 1] === '>') { parts.push(text.slice(from, i)); from = i + 2; i++; }
    }
    parts.push(text.slice(from));
    return parts.map((p) => p.trim());
  }
  const ENGINES = {
    css: (s, b) => byCss(s, b),
    xpath: (s, b) => byXpath(s, b),
    text: (s, b) => byText(s, b, false),
    'internal:text': (s, b) => byText(s, b, true),
    role: (s, b) => byRole(s, b, false),
    'internal:role': (s, b) => byRole(s, b, true),
    'internal:label': (s, b) => { const m = textMatcher(b, true); return all(s).filter((e) => labelsOf(e).some(m.test)); },
    'internal:attr': (s, b) => byAttr(s, b, null),
    'internal:testid': (s, b) => byAttr(s, b, null),
    id: (s, b) => css(s, `[id=${JSON.stringify(b)}]`),
    'data-testid': (s, b) => css(s, `[data-testid=${JSON.stringify(b)}]`),
    'data-test-id': (s, b) => css(s, `[data-test-id=${JSON.stringify(b)}]`),
    'data-test': (s, b) => css(s, `[data-test=${JSON.stringify(b)}]`),
    'internal:has-text': (s, b) => (s.nodeType === 1 && textMatcher(b, true).test(textOf(s)) ? [s] : []),
    'internal:has-not-text': (s, b) => (s.nodeType === 1 && !textMatcher(b, true).test(textOf(s)) ? [s] : []),
  };

  const source = selector.trim();
  if (!source) fail('the selector is empty');
  const parts = /^(page\s*\.\s*)?(getBy[A-Za-z]+|locator|frameLocator)\s*\(/.test(source) ? fromLocator(source) : split(source);
  let roots = [root];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    // Into a frame (Playwright's `internal:control=enter-frame`, which `frameLocator()` and
    // `contentFrame()` write): the first match so far must be an <iframe> or a <frame>.
    if (/^internal:control\s*=\s*enter-frame$/.test(part)) {
      const owner = roots.find((e) => e && e.nodeType === 1);
      if (!owner) return null;
      if (owner.tagName !== 'IFRAME' && owner.tagName !== 'FRAME') {
        fail(`${JSON.stringify(parts.slice(0, index).join(' >> '))} matches a <${owner.localName}>, not an <iframe> or <frame> to go into`);
      }
      const rest = parts.slice(index + 1).join(' >> ');
      if (!rest) fail(`${JSON.stringify(selector)} ends in a frame: name an element inside it`);
      if (frames === 'hop' || frames === 'count') return { frame: owner, rest };
      let inner = null;
      try { inner = owner.contentDocument; } catch { inner = null; }
      if (!inner) fail(`${JSON.stringify(selector)} goes into a frame of another origin, which this cannot look into; take its elements' refs from page.snapshot`);
      roots = [inner];
      continue;
    }
    const eq = part.indexOf('=');
    let name = 'css';
    let body = part;
    if (eq > 0 && /^[a-zA-Z_0-9\-+:*]+$/.test(part.slice(0, eq).trim())) {
      name = part.slice(0, eq).trim();
      body = part.slice(eq + 1);
    } else if (part.length > 1 && (part[0] === '"' || part[0] === "'") && part[part.length - 1] === part[0]) {
      name = 'text';
    } else if (/^\(*\/\//.test(part) || part.startsWith('..')) {
      name = 'xpath';
    }
    if (name === 'nth') {
      const n = Number(body);
      if (!Number.isInteger(n)) fail(`nth=${body}: an integer is wanted`);
      const at = n < 0 ? roots.length + n : n;
      roots = at >= 0 && at < roots.length ? [roots[at]] : [];
      continue;
    }
    if (name === 'visible') {
      const want = body.trim() !== 'false';
      roots = roots.filter((e) => e.nodeType === 1 && visible(e) === want);
      continue;
    }
    const engine = ENGINES[name];
    if (!engine) fail(`unknown selector engine "${name}" in ${JSON.stringify(selector)}`);
    const next = new Set();
    for (const r of roots) for (const e of engine(r, body)) next.add(e);
    const many = roots.length > 1;
    roots = [...next];
    if (many) {
      roots.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    }
  }
  if (frames === 'all') return roots.filter((e) => e && e.nodeType === 1);
  if (frames === 'count') {
    const found = roots.filter((e) => e && e.nodeType === 1);
    return `${found.length} ${found.filter((e) => visible(e)).length}`;
  }
  return roots.find((e) => e && e.nodeType === 1) || null;
}
