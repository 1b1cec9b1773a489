// The snapshot walker: Playwright's aria snapshot (`injected/ariaSnapshot.ts` `generateAriaTree` in its
// default mode, with `roleUtils.ts` for roles, accessible names, states and what is hidden), written
// for this runtime, plus our refs and our options. It runs in an isolated world (page scripts cannot
// see or change it), walks the DOM and open shadow roots in document order, and stops once the output
// would pass max_chars. What it follows, rule for rule:
// - a node per element whose ARIA role is not generic/none/presentation (explicit valid role, else the
//   implicit role of html-aam as Playwright maps it, presentation inherited by table/list parts);
// - elements hidden for ARIA (display:none, visibility, aria-hidden, unslotted light children of a
//   shadow host, script/style/template) are left out with their subtree;
// - text: text nodes, with a space around each non-inline element (and <br>), CSS ::before/::after
//   content, whitespace collapsed; a textbox's value (not its text) as its text; a node whose only
//   text equals its name loses the text;
// - names: the accessible name computation (aria-labelledby, embedded controls, aria-label, labels,
//   alt/title/placeholder, legend/caption/figcaption, name from content for the roles that allow it);
// - states: checked, disabled, expanded, level, pressed, selected on the roles Playwright shows them;
// - props: a link's /url, a textbox's /placeholder when it is not the name.
// Differences on purpose (docs/protocol.md): an editing host without a role is a textbox; refs on
// interactive and named content roles; iframes'
// content nested under their `- iframe` line (same-origin iframes walked here; a cross-origin one is a
// hole the caller fills with a walk of its own in that frame); interactive/compact/max_depth/max_chars.
// Called as (opts, root?): root is the scope element (default: the body). Called as ({api: true}), it
// walks nothing and answers {role, name, hidden, attrs}: its rules for the selector engine (query.js).
// Returns {result: {items, complete, refFrames, refIds}, frames, holes, els}: items are [role, name,
// attrs, refIndex (-1: none), props ([[name, value]]), children, hole (-1: none)] or a text string;
// refFrames[i] is the index in frames (the walked <iframe> elements) of ref i's frame (els[i]), -1 for
// the walk's own frame; refIds[i] the ref an earlier walk gave els[i] (null: none); hole h is the
// cross-origin <iframe> holes[h]. The caller (`install` in walk.rs) keeps the walk and the refs it
// shows (REGISTER).
(function (opts, scopeRoot) {
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider',
    'spinbutton', 'treeitem', 'iframe']);
  const NAMED = new Set(['heading', 'img', 'figure', 'table', 'cell', 'columnheader', 'rowheader', 'dialog',
    'alertdialog', 'region']);
  const STRUCTURE = new Set(['group', 'list', 'listitem', 'paragraph', 'section', 'article', 'table', 'row',
    'rowgroup']);
  const VALID_ROLES = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote',
    'button', 'caption', 'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary',
    'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure',
    'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list', 'listbox',
    'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu', 'menubar', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation',
    'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search',
    'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript', 'switch',
    'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree',
    'treegrid', 'treeitem']);
  const CHECKED_ROLES = ['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'];
  const DISABLED_ROLES = ['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link',
    'menuitem', 'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox',
    'menu', 'menubar', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row',
    'rowheader', 'searchbox', 'select', 'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar',
    'tree', 'treegrid', 'treeitem'];
  const EXPANDED_ROLES = ['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox',
    'menuitem', 'row', 'rowheader', 'tab', 'treeitem', 'columnheader', 'menuitemcheckbox', 'menuitemradio',
    'switch'];
  const LEVEL_ROLES = ['heading', 'listitem', 'row', 'treeitem'];
  const SELECTED_ROLES = ['gridcell', 'option', 'row', 'tab', 'rowheader', 'columnheader', 'treeitem'];
  const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading',
    'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch',
    'tab', 'tooltip', 'treeitem']);
  const NAME_FROM_DESCENDANT = new Set(['', 'caption', 'code', 'contentinfo', 'definition', 'deletion',
    'emphasis', 'insertion', 'list', 'listitem', 'mark', 'none', 'paragraph', 'presentation', 'region', 'row',
    'rowgroup', 'section', 'strong', 'subscript', 'superscript', 'table', 'term', 'time']);
  const NAME_PROHIBITED = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic',
    'insertion', 'mark', 'paragraph', 'presentation', 'strong', 'subscript', 'suggestion', 'superscript',
    'term', 'time']);
  const PROHIBITED_LABEL_ROLES = ['caption', 'code', 'deletion', 'emphasis', 'generic', 'insertion',
    'paragraph', 'presentation', 'strong', 'subscript', 'superscript'];
  const GLOBAL_ATTRS = [['aria-atomic'], ['aria-busy'], ['aria-controls'], ['aria-current'],
    ['aria-describedby'], ['aria-details'], ['aria-dropeffect'], ['aria-flowto'], ['aria-grabbed'],
    ['aria-hidden'], ['aria-keyshortcuts'], ['aria-label', PROHIBITED_LABEL_ROLES],
    ['aria-labelledby', PROHIBITED_LABEL_ROLES], ['aria-live'], ['aria-owns'], ['aria-relevant'],
    ['aria-roledescription', ['generic']]];
  const LANDMARK_BLOCKERS = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), '
    + 'section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
  const PRESENTATION_PARENTS = { DD: ['DL', 'DIV'], DIV: ['DL'], DT: ['DL', 'DIV'], LI: ['OL', 'UL'],
    TBODY: ['TABLE'], TD: ['TR'], TFOOT: ['TABLE'], TH: ['TR'], THEAD: ['TABLE'],
    TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'] };
  const INPUT_ROLES = { button: 'button', checkbox: 'checkbox', image: 'button', number: 'spinbutton',
    radio: 'radio', range: 'slider', reset: 'button', submit: 'button' };

  // Estimated output chars so far; the walk stops a little past max_chars (the exact cut is the caller's).
  const budget = opts.maxChars * 1.05 + 200;
  let used = 0;
  let complete = true;
  const els = [];
  const holes = [];
  const refFrames = [];
  const frames = [];
  // The ref each element got from an earlier walk in this world (REGISTER in walk.rs), else null.
  const known = globalThis.__sandboxBrowserIds;
  const refIds = [];
  let frame = -1;

  // What the walk learns of each element, once (one lookup; a field is undefined until computed):
  // {s: its computed style (null without a window), display, role, hidden, hba (hidden by ancestry), name}.
  const facts = new Map();
  let lastDoc = null;
  let lastView = null;

  // ---- DOM helpers
  const tagOf = (e) => {
    const t = e.tagName;
    if (typeof t !== 'string') return '';
    const c = t.charCodeAt(0);
    return c >= 97 && c <= 122 ? t.toUpperCase() : t;
  };
  const factsOf = (e) => {
    let f = facts.get(e);
    if (f === undefined) {
      const doc = e.ownerDocument;
      if (doc !== lastDoc) {
        lastDoc = doc;
        lastView = doc.defaultView;
      }
      const s = lastView ? lastView.getComputedStyle(e) : null;
      f = { s, display: s ? s.display : '', role: undefined, hidden: undefined, hba: undefined, name: undefined };
      facts.set(e, f);
    }
    return f;
  };
  const style = (e) => factsOf(e).s;
  // The computed `display` ('' without a window).
  const displayOf = (e) => factsOf(e).display;
  const parentOrHost = (e) => {
    if (e.parentElement) return e.parentElement;
    const p = e.parentNode;
    return p && p.nodeType === 11 && p.host ? p.host : null;
  };
  const closestAcross = (e, css) => {
    while (e) {
      const found = e.closest(css);
      if (found) return found;
      let top = e;
      while (top.parentElement) top = top.parentElement;
      e = parentOrHost(top);
    }
    return null;
  };
  function idRefs(e, ref) {
    if (!ref) return [];
    const root = e.getRootNode();
    if (!root || (root.nodeType !== 9 && root.nodeType !== 11)) return [];
    const out = [];
    for (const id of ref.split(' ').filter(Boolean)) {
      let found = null;
      try { found = root.querySelector('#' + CSS.escape(id)); } catch { found = null; }
      if (found && !out.includes(found)) out.push(found);
    }
    return out;
  }
  const squash = (s) => s.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
  const flat = (s) => s.split('\u00A0').map((c) => c.replace(/\r\n/g, '\n').replace(/[\u200b\u00ad]/g, '')
    .replace(/\s\s*/g, ' ')).join('\u00A0').trim();

  // ---- roles
  const hasTabIndex = (e) => !Number.isNaN(Number(String(e.getAttribute('tabindex'))));
  const hasGlobalAria = (e, role) => GLOBAL_ATTRS.some(([a, no]) => !(no || []).includes(role || '') && e.hasAttribute(a));
  function nativelyDisabled(e) {
    if (!['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(tagOf(e))) return false;
    if (e.hasAttribute('disabled')) return true;
    if (tagOf(e) === 'OPTION' && e.closest('OPTGROUP[DISABLED]')) return true;
    const fieldset = e.closest('FIELDSET[DISABLED]');
    if (!fieldset) return false;
    const legend = fieldset.querySelector(':scope > LEGEND');
    return !legend || !legend.contains(e);
  }
  function focusable(e) {
    if (nativelyDisabled(e)) return false;
    const t = tagOf(e);
    if (['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(t)) return true;
    if (t === 'A' || t === 'AREA') return e.hasAttribute('href') || hasTabIndex(e);
    if (t === 'INPUT') return !e.hidden || hasTabIndex(e);
    return hasTabIndex(e);
  }
  const explicitRole = (e) => (e.getAttribute('role') || '').split(' ').map((r) => r.trim()).find((r) => VALID_ROLES.has(r)) || null;
  const conflictResolved = (e, role) => hasGlobalAria(e, role) || focusable(e);
  const named = (e) => e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby');
  function thRole(e) {
    const scope = e.getAttribute('scope');
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    const next = e.nextElementSibling;
    const prev = e.previousElementSibling;
    const row = e.parentElement && tagOf(e.parentElement) === 'TR' ? e.parentElement : null;
    if (!next && !prev) {
      if (row) {
        const table = closestAcross(row, 'table');
        if (table && table.rows.length <= 1) return null;
      }
      return 'columnheader';
    }
    const isTh = (x) => !!x && tagOf(x) === 'TH';
    const dataCell = (x) => !!x && tagOf(x) === 'TD' && !!((x.textContent || '').trim() || x.children.length > 0);
    if (isTh(next) && isTh(prev)) return 'columnheader';
    if (dataCell(next) || dataCell(prev)) return 'rowheader';
    return 'columnheader';
  }
  function tagRole(e) {
    switch (tagOf(e)) {
      case 'A': case 'AREA': return e.hasAttribute('href') ? 'link' : null;
      case 'ARTICLE': return 'article';
      case 'ASIDE': return 'complementary';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'BUTTON': return 'button';
      case 'CAPTION': return 'caption';
      case 'CODE': return 'code';
      case 'DATALIST': return 'listbox';
      case 'DD': return 'definition';
      case 'DEL': return 'deletion';
      case 'DETAILS': return 'group';
      case 'DFN': case 'DT': return 'term';
      case 'DIALOG': return 'dialog';
      case 'EM': return 'emphasis';
      case 'FIELDSET': return 'group';
      case 'FIGURE': return 'figure';
      case 'FOOTER': return closestAcross(e, LANDMARK_BLOCKERS) ? null : 'contentinfo';
      case 'FORM': return named(e) ? 'form' : null;
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'HEADER': return closestAcross(e, LANDMARK_BLOCKERS) ? null : 'banner';
      case 'HR': return 'separator';
      case 'HTML': return 'document';
      case 'IMG': return e.getAttribute('alt') === '' && !e.getAttribute('title') && !hasGlobalAria(e) && !hasTabIndex(e) ? 'presentation' : 'img';
      case 'INPUT': {
        const type = (e.type || '').toLowerCase();
        if (['email', 'search', 'tel', 'text', 'url', ''].includes(type)) {
          const list = idRefs(e, e.getAttribute('list'))[0];
          if (list && tagOf(list) === 'DATALIST') return 'combobox';
          return type === 'search' ? 'searchbox' : 'textbox';
        }
        if (type === 'hidden') return null;
        if (type === 'file') return 'button';
        return INPUT_ROLES[type] || 'textbox';
      }
      case 'INS': return 'insertion';
      case 'LI': return 'listitem';
      case 'MAIN': return 'main';
      case 'MARK': return 'mark';
      case 'MATH': return 'math';
      case 'MENU': case 'OL': case 'UL': return 'list';
      case 'METER': return 'meter';
      case 'NAV': return 'navigation';
      case 'OPTGROUP': return 'group';
      case 'OPTION': return 'option';
      case 'OUTPUT': return 'status';
      case 'P': return 'paragraph';
      case 'PROGRESS': return 'progressbar';
      case 'SEARCH': return 'search';
      case 'SECTION': return named(e) ? 'region' : null;
      case 'SELECT': return e.hasAttribute('multiple') || e.size > 1 ? 'listbox' : 'combobox';
      case 'STRONG': return 'strong';
      case 'SUB': return 'subscript';
      case 'SUP': return 'superscript';
      case 'SVG': return 'img';
      case 'TABLE': return 'table';
      case 'TBODY': case 'TFOOT': case 'THEAD': return 'rowgroup';
      case 'TD': {
        const table = closestAcross(e, 'table');
        const r = table ? explicitRole(table) : '';
        return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'TEXTAREA': return 'textbox';
      case 'TH': return thRole(e);
      case 'TIME': return 'time';
      case 'TR': return 'row';
      default: return null;
    }
  }
  function implicitRole(e) {
    const role = tagRole(e);
    if (!role) return null;
    // A table or list part under a presentational parent is presentational too.
    let at = e;
    while (at) {
      const parent = parentOrHost(at);
      const parents = PRESENTATION_PARENTS[tagOf(at)];
      if (!parents || !parent || !parents.includes(tagOf(parent))) break;
      const pr = explicitRole(parent);
      if ((pr === 'none' || pr === 'presentation') && !conflictResolved(parent, pr)) return pr;
      at = parent;
    }
    return role;
  }
  function roleOf(e) {
    const f = factsOf(e);
    if (f.role !== undefined) return f.role;
    let role = explicitRole(e);
    if (!role) role = implicitRole(e);
    else if (role === 'none' || role === 'presentation') {
      const implicit = implicitRole(e);
      if (conflictResolved(e, implicit)) role = implicit;
    }
    f.role = role;
    return role;
  }

  // ---- hidden
  const ignored = (e) => ['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE'].includes(tagOf(e));
  function visibleTextNode(t) {
    const range = t.ownerDocument.createRange();
    range.selectNode(t);
    const r = range.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function styleVisible(e, s) {
    if (!s) return true;
    if (e.checkVisibility && !e.checkVisibility()) return false;
    return s.visibility === 'visible';
  }
  function hiddenByAncestry(e) {
    const f = factsOf(e);
    let h = f.hba;
    if (h === undefined) {
      h = !!(e.parentElement && e.parentElement.shadowRoot && !e.assignedSlot);
      if (!h) h = !f.s || f.display === 'none' || (e.getAttribute('aria-hidden') || '').toLowerCase() === 'true';
      if (!h) {
        const p = parentOrHost(e);
        if (p) h = hiddenByAncestry(p);
      }
      f.hba = h;
    }
    return h;
  }
  function hidden(e) {
    const f = factsOf(e);
    if (f.hidden === undefined) f.hidden = computeHidden(e);
    return f.hidden;
  }
  function computeHidden(e) {
    if (ignored(e)) return true;
    const s = style(e);
    const slot = e.nodeName === 'SLOT';
    if (s && displayOf(e) === 'contents' && !slot) {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !hidden(c)) return false;
        if (c.nodeType === 3 && visibleTextNode(c)) return false;
      }
      return true;
    }
    const optionInSelect = e.nodeName === 'OPTION' && !!e.closest('select');
    if (!optionInSelect && !slot && !styleVisible(e, s)) return true;
    return hiddenByAncestry(e);
  }

  // ---- CSS content (::before, ::after, and an element's own `content: ... / "alt"`)
  function cssText(e, value, pseudo) {
    if (!value || value === 'none' || value === 'normal') return undefined;
    // Strings, attr(x) and a "/" before the alternative text; anything else is not text.
    const tokens = [];
    const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)|(\/)|(\S+))/gy;
    for (let m = re.exec(value); m; m = re.exec(value)) {
      if (m[1] !== undefined || m[2] !== undefined) tokens.push({ s: (m[1] ?? m[2]).replace(/\\(.)/g, '$1') });
      else if (m[3] !== undefined) tokens.push({ s: e.getAttribute(m[3]) || '' });
      else if (m[4]) tokens.push({ slash: true });
      else tokens.push({ other: true });
      if (re.lastIndex >= value.length) break;
    }
    let parts = tokens;
    const slash = tokens.findIndex((t) => t.slash);
    if (slash !== -1) parts = tokens.slice(slash + 1);
    else if (!pseudo) return undefined;
    if (parts.some((t) => t.other || t.slash)) return undefined;
    return parts.map((t) => t.s).join('');
  }
  const contentMemo = { '': new Map(), '::before': new Map(), '::after': new Map() };
  function cssContent(e, pseudo) {
    if (!mayContent[pseudo || ''].has(e)) return undefined;
    const memo = contentMemo[pseudo || ''];
    if (memo.has(e)) return memo.get(e);
    const text = computeCssContent(e, pseudo);
    memo.set(e, text);
    return text;
  }
  // Which elements CSS can give content (a speed-up of ours: asking every element's style for its
  // `content` and its ::before/::after costs most of a walk). Per tree scope (the document, each shadow
  // root, each same-origin frame's document), once, as the walk or a name enters it: the subjects of
  // the rules that set `content`, on ::before, on ::after or on the element itself (with an inline
  // style that names it), found by one querySelectorAll each; every element of the
  // scope, and its host, where the rules cannot be read (a cross-origin sheet) or reduced to a subject
  // (nesting, ::part, :host, ::slotted, keyframes). Chromium's own sheet gives no text content to an
  // element or its ::before/::after but for quotes, which are not text.
  const mayContent = { '': new Set(), '::before': new Set(), '::after': new Set() };
  const scopes = new Set();
  const validSelector = (sel) => {
    try { document.createDocumentFragment().querySelector(sel); return true; } catch { return false; }
  };
  // A selector list's selectors (commas inside parentheses, brackets or strings do not split it).
  function selectors(text) {
    const out = [];
    let depth = 0;
    let quote = '';
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === '\\') i++;
      else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) { out.push(text.slice(from, i)); from = i + 1; }
    }
    out.push(text.slice(from));
    return out.map((x) => x.trim()).filter(Boolean);
  }
  function enterScope(root) {
    if (!root || scopes.has(root)) return;
    scopes.add(root);
    const subjects = { '': ['[style*="content" i]'], '::before': [], '::after': [] };
    let all = false;
    const take = (rules) => {
      for (const r of rules) {
        if (r.styleSheet) { try { take(r.styleSheet.cssRules); } catch { all = true; } }
        const text = r.selectorText;
        const content = !!(r.style && r.style.getPropertyValue('content'));
        if (!text) {
          // A keyframe can animate `content`.
          if (content) all = true;
        } else if (/[&]|::part|:host|::slotted/i.test(text)) {
          all = true;
        } else if (content) {
          for (const part of selectors(text)) {
            let kind = '';
            let subject = part;
            for (const name of ['::before', '::after']) {
              const re = name === '::before' ? /::?before\b/gi : /::?after\b/gi;
              if (re.test(part)) { kind = name; subject = part.replace(re, '').trim() || '*'; }
            }
            // A rule for another pseudo-element (::marker, ::placeholder, ...) sets no element's content.
            if (!kind && /::|:first-(line|letter)\b/i.test(part)) continue;
            if (validSelector(subject)) subjects[kind].push(subject);
            else all = true;
          }
        }
        if (r.cssRules && r.cssRules.length) take(r.cssRules);
      }
    };
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    for (const sheet of sheets) {
      try { take(sheet.cssRules); } catch { all = true; }
    }
    const add = (kind, found) => { for (const x of found) mayContent[kind].add(x); };
    for (const kind of ['', '::before', '::after']) {
      if (all) {
        add(kind, root.querySelectorAll('*'));
        if (root.host) mayContent[kind].add(root.host);
      } else if (subjects[kind].length) {
        add(kind, root.querySelectorAll(subjects[kind].join(', ')));
      }
    }
  }
  function computeCssContent(e, pseudo) {
    const s = pseudo ? e.ownerDocument.defaultView.getComputedStyle(e, pseudo) : style(e);
    if (!s) return undefined;
    const value = s.content;
    if (!value || value === 'none' || value === 'normal') return undefined;
    if (s.display === 'none' || s.visibility === 'hidden') return undefined;
    let text = cssText(e, value, !!pseudo);
    if (pseudo && text !== undefined && (s.display || 'inline') !== 'inline') text = ' ' + text + ' ';
    return text;
  }

  // ---- accessible name
  function labelledByOf(e) {
    const ref = e.getAttribute('aria-labelledby');
    if (ref === null) return null;
    const refs = idRefs(e, ref);
    return refs.length ? refs : null;
  }
  function fromLabels(labels, o) {
    return [...labels].map((l) => alt(l, { ...o, inLabel: { hidden: hidden(l) }, inNative: undefined,
      inLabelledBy: undefined, inDescribedBy: undefined, target: undefined })).filter(Boolean).join(' ');
  }
  function accumulated(e, o) {
    const tokens = [];
    const visit = (n, skipSlotted) => {
      if (skipSlotted && n.assignedSlot) return;
      if (n.nodeType === 1) {
        const display = displayOf(n) || 'inline';
        let token = alt(n, o);
        if (display !== 'inline' || n.nodeName === 'BR') token = ' ' + token + ' ';
        tokens.push(token);
      } else if (n.nodeType === 3) {
        tokens.push(n.textContent || '');
      }
    };
    const shadow = e.shadowRoot;
    if (shadow) enterScope(shadow);
    tokens.push(cssContent(e, '::before') || '');
    const own = cssContent(e);
    if (own !== undefined) {
      tokens.push(own);
    } else {
      const assigned = e.nodeName === 'SLOT' ? e.assignedNodes() : [];
      if (assigned.length) {
        for (const c of assigned) visit(c, false);
      } else {
        for (let c = e.firstChild; c; c = c.nextSibling) visit(c, true);
        if (shadow) for (let c = shadow.firstChild; c; c = c.nextSibling) visit(c, true);
        for (const owned of idRefs(e, e.getAttribute('aria-owns'))) visit(owned, true);
      }
    }
    tokens.push(cssContent(e, '::after') || '');
    return tokens.join('');
  }
  // The text alternative of `e` (accname's steps 2A-2I, as Playwright computes them).
  function alt(e, o) {
    if (o.visited.has(e)) return '';
    const child = { ...o, target: o.target === 'self' ? 'descendant' : o.target };
    const inHiddenTraversal = !!(o.inLabelledBy?.hidden || o.inDescribedBy?.hidden || o.inNative?.hidden || o.inLabel?.hidden);
    if (ignored(e) || (!o.includeHidden && !inHiddenTraversal && hidden(e))) {
      o.visited.add(e);
      return '';
    }
    const labelledBy = labelledByOf(e);
    if (!o.inLabelledBy) {
      const text = (labelledBy || []).map((r) => alt(r, { ...o, inLabelledBy: { hidden: hidden(r) },
        inDescribedBy: undefined, target: undefined, inLabel: undefined, inNative: undefined })).join(' ');
      if (text) return text;
    }
    const role = roleOf(e) || '';
    const tag = tagOf(e);
    if (o.inLabel || o.inLabelledBy || o.target === 'descendant') {
      const ownLabel = [...(e.labels || [])].includes(e);
      const ownLabelledBy = (labelledBy || []).includes(e);
      if (!ownLabel && !ownLabelledBy) {
        if (role === 'textbox') {
          o.visited.add(e);
          return tag === 'INPUT' || tag === 'TEXTAREA' ? e.value : (e.textContent || '');
        }
        if (role === 'combobox' || role === 'listbox') {
          o.visited.add(e);
          let selected;
          if (tag === 'SELECT') {
            selected = [...e.selectedOptions];
            if (!selected.length && e.options.length) selected.push(e.options[0]);
          } else {
            const owned = (x, sel) => [...x.querySelectorAll(sel), ...idRefs(x, x.getAttribute('aria-owns')).flatMap((y) => [...(y.matches(sel) ? [y] : []), ...y.querySelectorAll(sel)])];
            const list = role === 'combobox' ? owned(e, '*').find((x) => roleOf(x) === 'listbox') : e;
            selected = list ? owned(list, '[aria-selected="true"]').filter((x) => roleOf(x) === 'option') : [];
          }
          if (!selected.length && tag === 'INPUT') return e.value;
          return selected.map((x) => alt(x, child)).join(' ');
        }
        if (['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter'].includes(role)) {
          o.visited.add(e);
          if (e.hasAttribute('aria-valuetext')) return e.getAttribute('aria-valuetext') || '';
          if (e.hasAttribute('aria-valuenow')) return e.getAttribute('aria-valuenow') || '';
          return e.getAttribute('value') || '';
        }
        if (role === 'menu') {
          o.visited.add(e);
          return '';
        }
      }
    }
    const label = e.getAttribute('aria-label') || '';
    if (label.trim()) {
      o.visited.add(e);
      return label;
    }
    if (role !== 'presentation' && role !== 'none') {
      const type = tag === 'INPUT' ? e.type : '';
      if (tag === 'INPUT' && ['button', 'submit', 'reset'].includes(type)) {
        o.visited.add(e);
        const value = e.value || '';
        if (value.trim()) return value;
        if (type === 'submit') return 'Submit';
        if (type === 'reset') return 'Reset';
        return e.getAttribute('title') || '';
      }
      if (tag === 'INPUT' && type === 'file') {
        o.visited.add(e);
        if (e.labels && e.labels.length && !o.inLabelledBy) return fromLabels(e.labels, o);
        return 'Choose File';
      }
      if (tag === 'INPUT' && type === 'image') {
        o.visited.add(e);
        if (e.labels && e.labels.length && !o.inLabelledBy) return fromLabels(e.labels, o);
        const a = e.getAttribute('alt') || '';
        if (a.trim()) return a;
        const title = e.getAttribute('title') || '';
        if (title.trim()) return title;
        return 'Submit';
      }
      if (!labelledBy && tag === 'BUTTON') {
        o.visited.add(e);
        if (e.labels && e.labels.length) return fromLabels(e.labels, o);
      }
      if (!labelledBy && tag === 'OUTPUT') {
        o.visited.add(e);
        if (e.labels && e.labels.length) return fromLabels(e.labels, o);
        return e.getAttribute('title') || '';
      }
      if (!labelledBy && (tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'INPUT')) {
        o.visited.add(e);
        if (e.labels && e.labels.length) return fromLabels(e.labels, o);
        const placeholderOk = (tag === 'INPUT' && ['text', 'password', 'number', 'search', 'tel', 'email', 'url'].includes(type)) || tag === 'TEXTAREA';
        const title = e.getAttribute('title') || '';
        if (!placeholderOk || title) return title;
        return e.getAttribute('placeholder') || '';
      }
      const captioned = (childTag) => {
        for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
          if (tagOf(c) === childTag) return alt(c, { ...child, inNative: { hidden: hidden(c) } });
        }
        return null;
      };
      if (!labelledBy && tag === 'FIELDSET') {
        o.visited.add(e);
        const legend = captioned('LEGEND');
        return legend !== null ? legend : (e.getAttribute('title') || '');
      }
      if (!labelledBy && tag === 'FIGURE') {
        o.visited.add(e);
        const caption = captioned('FIGCAPTION');
        return caption !== null ? caption : (e.getAttribute('title') || '');
      }
      if (tag === 'IMG' || tag === 'AREA') {
        o.visited.add(e);
        const a = e.getAttribute('alt') || '';
        if (a.trim()) return a;
        return e.getAttribute('title') || '';
      }
      if (tag === 'TABLE') {
        o.visited.add(e);
        const caption = captioned('CAPTION');
        if (caption !== null) return caption;
        const summary = e.getAttribute('summary') || '';
        if (summary) return summary;
      }
      if (tag === 'SVG' || e.ownerSVGElement) {
        o.visited.add(e);
        for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
          if (tagOf(c) === 'TITLE' && c.ownerSVGElement) return alt(c, { ...child, inLabelledBy: { hidden: hidden(c) } });
        }
      }
      if (e.ownerSVGElement && tag === 'A') {
        const title = e.getAttribute('xlink:title') || '';
        if (title.trim()) {
          o.visited.add(e);
          return title;
        }
      }
    }
    const summary = tag === 'SUMMARY' && role !== 'presentation' && role !== 'none';
    const fromContent = NAME_FROM_CONTENT.has(role) || (o.target === 'descendant' && NAME_FROM_DESCENDANT.has(role));
    if (fromContent || summary || o.inLabelledBy || o.inDescribedBy || o.inLabel || o.inNative) {
      o.visited.add(e);
      const text = accumulated(e, child);
      const value = o.target === 'self' ? text.trim() : text;
      if (value) return text;
    }
    if (!['presentation', 'none'].includes(role) || tag === 'IFRAME' || tag === 'FRAME') {
      o.visited.add(e);
      const title = e.getAttribute('title') || '';
      if (title.trim()) return title;
    }
    o.visited.add(e);
    return '';
  }
  function nameOf(e, role) {
    const f = factsOf(e);
    if (f.name !== undefined) return f.name;
    let name = '';
    if (!NAME_PROHIBITED.has(role || '')) name = squash(flat(alt(e, { visited: new Set(), target: 'self' })));
    f.name = name;
    return name;
  }

  // ---- states, in Playwright's order
  function disabledInChain(e) {
    for (let at = e; at; at = parentOrHost(at)) {
      const a = (at.getAttribute('aria-disabled') || '').toLowerCase();
      if (a === 'true') return true;
      if (a === 'false') return false;
    }
    return false;
  }
  function attrsOf(e, role) {
    const a = [];
    const tag = tagOf(e);
    if (CHECKED_ROLES.includes(role)) {
      let checked = false;
      if (tag === 'INPUT' && e.indeterminate) checked = 'mixed';
      else if (tag === 'INPUT' && ['checkbox', 'radio'].includes(e.type)) checked = e.checked;
      else {
        const c = e.getAttribute('aria-checked');
        checked = c === 'true' ? true : c === 'mixed' ? 'mixed' : false;
      }
      if (checked === 'mixed') a.push('checked=mixed');
      else if (checked === true) a.push('checked');
    }
    if (DISABLED_ROLES.includes(role) && (nativelyDisabled(e) || disabledInChain(e))) a.push('disabled');
    if (EXPANDED_ROLES.includes(role) && (tag === 'DETAILS' ? e.open : e.getAttribute('aria-expanded') === 'true')) a.push('expanded');
    if (LEVEL_ROLES.includes(role)) {
      let level = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 }[tag] || 0;
      if (!level) {
        const v = Number(e.getAttribute('aria-level') ?? NaN);
        if (Number.isInteger(v) && v >= 1) level = v;
      }
      if (level) a.push('level=' + level);
    }
    if (role === 'button') {
      const p = e.getAttribute('aria-pressed');
      if (p === 'true') a.push('pressed');
      else if (p === 'mixed') a.push('pressed=mixed');
    }
    if (tag === 'OPTION' ? e.selected : SELECTED_ROLES.includes(role) && (e.getAttribute('aria-selected') || '').toLowerCase() === 'true') a.push('selected');
    return a;
  }

  // ---- the tree: {role, name, attrs, element, props, children: (node | string)[], hole}
  function visit(parent, n, depth) {
    if (used > budget) { complete = false; return; }
    if (n.nodeType === 3) {
      if (n.nodeValue && (parent.role !== 'textbox' || parent.editable)) parent.children.push(n.nodeValue);
      return;
    }
    if (n.nodeType !== 1) return;
    const e = n;
    if (hidden(e)) return;
    const owned = [];
    if (e.hasAttribute('aria-owns')) {
      for (const id of e.getAttribute('aria-owns').split(/\s+/)) {
        const x = e.ownerDocument.getElementById(id);
        if (x) owned.push(x);
      }
    }
    const node = toNode(e, depth);
    if (node) parent.children.push(node);
    contents(node || parent, e, owned, node ? depth + 1 : depth);
  }
  function toNode(e, depth) {
    // Each node keeps the frame it was walked in (for its ref).
    // A `<frame>` of a `<frameset>` page is one too: its document under its line, as an iframe's.
    if (tagOf(e) === 'IFRAME' || tagOf(e) === 'FRAME') return { role: 'iframe', name: '', attrs: [], element: e, props: [], children: [], hole: -1, frame };
    let role = roleOf(e);
    // Our extension: an editing host (a `contenteditable` element whose parent is not editable) with no
    // role of its own is a textbox, so that an agent sees where it can type and has a ref for it (a
    // rich-text editor, a chat composer). Chromium's tree calls it generic (editable "richtext");
    // Playwright's default snapshot leaves it out, its AI snapshot shows `generic [ref]`.
    // Its content is its text (an input's text is its value).
    const host = e.isContentEditable && !(parentOrHost(e) || {}).isContentEditable;
    if ((!role || role === 'generic') && host) role = 'textbox';
    if (!role || role === 'presentation' || role === 'none' || role === 'generic') return null;
    const name = nameOf(e, role);
    const node = { role, name, attrs: attrsOf(e, role), element: e, props: [], children: [], hole: -1, frame, editable: host };
    if ((e instanceof e.ownerDocument.defaultView.HTMLInputElement || e instanceof e.ownerDocument.defaultView.HTMLTextAreaElement)
        && !['checkbox', 'radio', 'file'].includes(e.type)) {
      node.children = [e.value];
    }
    if (!opts.interactive || INTERACTIVE.has(role) || (name && NAMED.has(role))) {
      // An interactive line is `- role "name" [ref=eN]`: counted a little short, so that the walk goes
      // on to the limit and the caller's exact cut (not this estimate) ends the text.
      used += opts.interactive ? role.length + name.length + 12 : 2 * depth + role.length + name.length + 24;
    }
    return node;
  }
  function contents(node, e, owned, depth) {
    const display = displayOf(e) || 'inline';
    const block = display !== 'inline' || e.nodeName === 'BR' ? ' ' : '';
    if (block) node.children.push(block);
    const shadow = e.shadowRoot;
    if (shadow) enterScope(shadow);
    node.children.push(cssContent(e, '::before') || '');
    if ((tagOf(e) === 'IFRAME' || tagOf(e) === 'FRAME') && node.role === 'iframe') {
      // Our extension: the frame's content under its line.
      let inner = null;
      try { inner = e.contentDocument; } catch { inner = null; }
      if (inner && (inner.body || inner.documentElement)) {
        const outer = frame;
        frame = frames.length;
        frames.push(e);
        const root = inner.body || inner.documentElement;
        enterScope(inner);
        for (let c = root.firstChild; c; c = c.nextSibling) visit(node, c, depth);
        frame = outer;
      } else {
        node.hole = holes.length;
        holes.push(e);
      }
    } else {
      const assigned = e.nodeName === 'SLOT' ? e.assignedNodes() : [];
      if (assigned.length) {
        for (const c of assigned) visit(node, c, depth);
      } else {
        // Only a shadow host's children can be assigned to a slot (asking every node costs time).
        for (let c = e.firstChild; c; c = c.nextSibling) {
          if (!shadow || !c.assignedSlot) visit(node, c, depth);
        }
        if (shadow) for (let c = shadow.firstChild; c; c = c.nextSibling) visit(node, c, depth);
      }
    }
    for (const c of owned) visit(node, c, depth);
    node.children.push(cssContent(e, '::after') || '');
    if (block) node.children.push(block);
    if (node.children.length === 1 && node.name === node.children[0]) node.children = [];
    if (node.role === 'link' && e.hasAttribute('href')) node.props.push(['url', e.getAttribute('href')]);
    if (node.role === 'textbox' && e.hasAttribute('placeholder') && e.getAttribute('placeholder') !== node.name) {
      node.props.push(['placeholder', e.getAttribute('placeholder')]);
    }
    if (!opts.interactive) used += node.props.reduce((n, [k, v]) => n + k.length + v.length + 8, 0);
  }
  // Adjacent strings joined and whitespace collapsed; a node whose only text is its name loses it.
  function normalize(node) {
    const out = [];
    let buffer = [];
    const flush = () => {
      const text = squash(buffer.join(''));
      if (text) {
        out.push(text);
        if (!opts.interactive) used += text.length + 10;
      }
      buffer = [];
    };
    for (const c of node.children) {
      if (typeof c === 'string') buffer.push(c);
      else { flush(); normalize(c); out.push(c); }
    }
    flush();
    node.children = out;
    if (node.children.length === 1 && node.children[0] === node.name) node.children = [];
  }
  // To the caller's items, with refs, compact and max_depth applied.
  function items(node, depth) {
    const out = [];
    for (const c of node.children) {
      if (typeof c === 'string') { out.push(c); continue; }
      if (opts.compact && !c.name && STRUCTURE.has(c.role)) { out.push(...items(c, depth)); continue; }
      if (opts.maxDepth !== null && depth >= opts.maxDepth) continue;
      let ref = -1;
      if (INTERACTIVE.has(c.role) || (c.name && NAMED.has(c.role))) {
        ref = els.length;
        els.push(c.element);
        refFrames.push(c.frame);
        // An element keeps its ref while its role and name stay (as Playwright's aria refs): a
        // renamed button is another target for an agent, and gets a new ref.
        const had = known?.get(c.element);
        refIds.push(had && had.role === c.role && had.name === c.name ? had.id : null);
      }
      out.push([c.role, c.name, c.attrs, ref, c.props, items(c, depth + 1), c.hole]);
    }
    return out;
  }
  // The selector engine's use (query.js): roles, names, states and what is hidden, as a walk sees them.
  if (opts.api) {
    return {
      role: roleOf,
      // With `includeHidden` (a role selector's include-hidden), hidden content names too.
      name: (e, role, includeHidden) => {
        enterScope(e.getRootNode());
        if (!includeHidden || NAME_PROHIBITED.has(role || '')) return nameOf(e, role);
        return squash(flat(alt(e, { visited: new Set(), target: 'self', includeHidden: true })));
      },
      hidden,
      attrs: attrsOf,
    };
  }
  const root = { role: 'fragment', name: '', attrs: [], props: [], children: [], hole: -1 };
  const start = scopeRoot || document.body || document.documentElement;
  enterScope(start.getRootNode());
  visit(root, start, 0);
  normalize(root);
  return { result: { items: items(root, 0), complete, refFrames, refIds }, frames, holes, els };
})
