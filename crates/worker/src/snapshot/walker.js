// The large-page snapshot: an in-page walk of the DOM (and open shadow roots) in document order that
// stops once the output would pass max_chars. Runs in an isolated world (page scripts cannot see or
// change it). Roles are ARIA's (explicit `role`, else the element's implicit role); names follow the
// accessible name computation for the common cases (aria-labelledby, aria-label, labels, alt, title,
// placeholder, name from content). Same-origin iframes are walked too (their `contentDocument`); a
// cross-origin one is a hole the caller fills with a walk of its own in that frame.
// Returns {json: {items, complete, refFrames, refIds}, frames, holes, els}: items are [role, name, attrs,
// refIndex (-1: none), url, children, hole (-1: none)] or a text string; refFrames[i] is the index in
// frames (the walked <iframe> elements) of ref i's frame (els[i]), -1 for the walk's own frame;
// refIds[i] the ref an earlier walk gave els[i] (null: none); hole h is the
// cross-origin <iframe> holes[h]. The caller keeps the refs it shows (see `register` in snapshot.rs).
(function (opts) {
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider',
    'spinbutton', 'treeitem', 'iframe']);
  const NAMED = new Set(['heading', 'img', 'figure', 'table', 'cell', 'columnheader', 'rowheader', 'dialog',
    'alertdialog', 'region']);
  const FROM_CONTENT = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'option',
    'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'checkbox', 'radio', 'switch',
    'tooltip', 'row']);
  const STRUCTURE = new Set(['group', 'list', 'listitem', 'paragraph', 'section', 'article', 'table', 'row',
    'rowgroup']);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);
  // Estimated output chars so far; the walk stops a little past max_chars (the exact cut is the caller's).
  const budget = opts.maxChars * 1.05 + 200;
  let used = 0;
  let complete = true;
  const els = [];
  const holes = [];
  const refFrames = [];
  // The ref each element got from an earlier walk in this world (REGISTER in walk.rs), else null.
  const known = globalThis.__sandboxBrowserIds;
  const refIds = [];
  const frames = [];
  let frame = -1;

  const squash = (s) => s.replace(/\s+/g, ' ').trim();

  function implicitRole(el) {
    const tag = el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
      case 'article': return 'article';
      case 'aside': return 'complementary';
      case 'button': return 'button';
      case 'datalist': return 'listbox';
      case 'details': return 'group';
      case 'dialog': return 'dialog';
      case 'fieldset': return 'group';
      case 'figure': return 'figure';
      case 'footer': return 'contentinfo';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': return 'banner';
      case 'hr': return 'separator';
      case 'img': return el.getAttribute('alt') === '' ? null : 'img';
      case 'input': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        if (t === 'hidden') return 'hidden';
        if (t === 'checkbox') return 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'nav': return 'navigation';
      case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'section': return 'region';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'summary': return 'button';
      case 'table': return 'table';
      case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
      case 'td': return 'cell';
      case 'th': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'textarea': return 'textbox';
      case 'tr': return 'row';
      case 'dt': return 'term';
      case 'dd': return 'definition';
      case 'blockquote': return 'blockquote';
      case 'iframe': return 'iframe';
      default: return null;
    }
  }

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    return explicit || implicitRole(el);
  }

  function hidden(el) {
    if (el.getAttribute('aria-hidden') === 'true' || el.hidden) return true;
    if (SKIP.has(el.localName)) return true;
    if (getComputedStyle(el).display === 'contents') return false;
    return !el.checkVisibility({ visibilityProperty: true });
  }

  function childNodesOf(node) {
    if (node.shadowRoot) return node.shadowRoot.childNodes;
    if (node.localName === 'slot') {
      const assigned = node.assignedNodes();
      if (assigned.length) return assigned;
    }
    return node.childNodes;
  }

  // Text of a subtree for a name from content.
  function contentText(node, depth) {
    if (depth > 20) return '';
    let out = '';
    for (const c of childNodesOf(node)) {
      if (c.nodeType === Node.TEXT_NODE) out += c.textContent;
      else if (c.nodeType === Node.ELEMENT_NODE && !hidden(c)) {
        const label = c.getAttribute('aria-label');
        if (label && label.trim()) out += ' ' + label + ' ';
        else if (c.localName === 'img') out += ' ' + (c.getAttribute('alt') || '') + ' ';
        else out += ' ' + contentText(c, depth + 1) + ' ';
      }
    }
    return out;
  }

  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || '').trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    return ids.map((id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id)))
      .filter(Boolean);
  }

  function nameOf(el, role) {
    const labelled = byIds(el, 'aria-labelledby');
    if (labelled.length) return squash(labelled.map((l) => contentText(l, 0)).join(' '));
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return squash(label);
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(t)) {
        return squash(el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : ''));
      }
      if (t === 'image') return squash(el.getAttribute('alt') || el.getAttribute('title') || 'Submit');
      if (el.labels && el.labels.length) return squash([...el.labels].map((l) => contentText(l, 0)).join(' '));
      return squash(el.getAttribute('title') || el.getAttribute('placeholder') || '');
    }
    if (tag === 'img' || tag === 'area') return squash(el.getAttribute('alt') || el.getAttribute('title') || '');
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return squash(contentText(legend, 0));
    }
    if (tag === 'table') {
      const caption = el.querySelector(':scope > caption');
      if (caption) return squash(contentText(caption, 0));
    }
    if (tag === 'figure') {
      const caption = el.querySelector(':scope > figcaption');
      if (caption) return squash(contentText(caption, 0));
    }
    if (tag === 'iframe') return squash(el.getAttribute('title') || '');
    if (FROM_CONTENT.has(role)) {
      const text = squash(contentText(el, 0));
      if (text) return text;
    }
    return squash(el.getAttribute('title') || '');
  }

  function attrsOf(el, role) {
    const a = [];
    const aria = (n) => el.getAttribute('aria-' + n);
    const checked = aria('checked') ?? ((role === 'checkbox' || role === 'radio' || role === 'switch') && 'checked' in el
      ? String(el.indeterminate ? 'mixed' : el.checked) : null);
    if (checked === 'true') a.push('checked');
    else if (checked === 'mixed') a.push('checked=mixed');
    if (el.disabled === true || aria('disabled') === 'true') a.push('disabled');
    if (aria('expanded') === 'true') a.push('expanded');
    // Playwright's order: checked, disabled, expanded, level, pressed, selected.
    if (role === 'heading') {
      const level = aria('level') || (/^h[1-6]$/.test(el.localName) ? el.localName[1] : null);
      if (level) a.push('level=' + level);
    }
    const pressed = aria('pressed');
    if (pressed === 'true') a.push('pressed');
    else if (pressed === 'mixed') a.push('pressed=mixed');
    if (aria('selected') === 'true' || (el.localName === 'option' && el.selected)) a.push('selected');
    return a;
  }

  function pushText(out, text) {
    const t = text.replace(/\s+/g, ' ');
    if (!t.trim()) return;
    if (out.length && typeof out[out.length - 1] === 'string') out[out.length - 1] += t;
    else out.push(t);
    if (!opts.interactive) used += t.length + 10;
  }

  // Appends the items for `node`'s children to `out`.
  function walk(node, depth, out) {
    for (const c of childNodesOf(node)) {
      if (used > budget) { complete = false; return; }
      if (c.nodeType === Node.TEXT_NODE) { pushText(out, c.textContent); continue; }
      if (c.nodeType !== Node.ELEMENT_NODE || hidden(c)) continue;
      const role = roleOf(c);
      const flat = !role || role === 'generic' || role === 'none' || role === 'presentation' || role === 'hidden';
      const name = flat ? '' : nameOf(c, role);
      if (flat || (opts.compact && !name && STRUCTURE.has(role)) || role === 'form' && !name
          || role === 'region' && !name) {
        walk(c, depth, out);
        continue;
      }
      if (opts.maxDepth !== null && depth >= opts.maxDepth) continue;
      const wantsRef = INTERACTIVE.has(role) || (name && NAMED.has(role));
      let ref = -1;
      if (wantsRef) { ref = els.length; els.push(c); refFrames.push(frame); refIds.push(known?.get(c) ?? null); }
      const url = role === 'link' ? c.getAttribute('href') : null;
      const attrs = attrsOf(c, role);
      if (!opts.interactive || ref >= 0) {
        used += 2 * depth + role.length + name.length + (ref >= 0 ? 18 : 6) + (url ? url.length + 2 * depth + 12 : 0)
          + attrs.reduce((n, a) => n + a.length + 3, 0);
      }
      const children = [];
      const before = used;
      let hole = -1;
      if (role !== 'iframe') walk(c, depth + 1, children);
      else {
        // A same-origin frame's document is reachable; a cross-origin one's is not (null).
        let inner = null;
        try { inner = c.contentDocument; } catch (e) { inner = null; }
        if (inner && (inner.body || inner.documentElement)) {
          const outer = frame;
          frame = frames.length;
          frames.push(c);
          walk(inner.body || inner.documentElement, depth + 1, children);
          frame = outer;
        } else {
          hole = holes.length;
          holes.push(c);
        }
      }
      // Text that only repeats the name is not shown: it does not count.
      if (name && children.length === 1 && typeof children[0] === 'string' && squash(children[0]) === name) {
        used = before;
      }
      out.push([role, name, attrs, ref, url, children, hole]);
    }
  }

  const items = [];
  walk(document.body || document.documentElement, 0, items);
  return { json: JSON.stringify({ items, complete, refFrames, refIds }), frames, holes, els };
})
