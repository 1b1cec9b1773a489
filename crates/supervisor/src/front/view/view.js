// The live view's page: the sessions (polled from /api/sessions) and one session watched over its
// WebSocket (/ws?session=ID): frames, actions, console errors, the last snapshot, and the takeover.
// Served by the runtime itself; no build step, no dependencies.
'use strict';

const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const c of children) node.append(c);
  return node;
};
const withToken = (path, params = {}) => {
  const q = new URLSearchParams({ ...params, token });
  return `${path}?${q}`;
};

let watched = null; // session id
let socket = null;
let viewerId = null;
let holder = null;
let frame = null; // the last frame's metadata: {w, h, top, scale}
let frames = 0;

function status(text) { $('status').textContent = text; }

function outcome(record) {
  return record.code ? el('span', { className: 'failed', textContent: record.code })
                     : el('span', { className: 'ok', textContent: 'ok' });
}

async function refresh() {
  let body;
  try {
    const r = await fetch(withToken('/api/sessions'));
    if (!r.ok) { status(`the runtime answered ${r.status}: ${await r.text()}`); return; }
    body = await r.json();
  } catch (e) {
    status(`the runtime does not answer (${e.message})`);
    return;
  }
  status(`${body.sessions.length} session(s)` + (body.takeover ? ' · takeover on' : ''));
  const rows = $('sessions').tBodies[0];
  rows.replaceChildren();
  for (const s of body.sessions) {
    const last = s.last ? el('span', {}, `${s.last.method} `, outcome(s.last)) : '';
    const row = el('tr', { className: s.session_id === watched ? 'selected' : '' },
      el('td', {}, el('code', { textContent: s.session_id }), s.held ? el('span', { className: 'held', textContent: ' (held)' }) : ''),
      el('td', { textContent: String(s.tabs) }),
      el('td', {}, el('span', { className: 'title', textContent: s.title }), el('span', { className: 'url', textContent: s.url })),
      el('td', {}, last),
      el('td', { textContent: String(s.resets) }));
    row.dataset.session = s.session_id;
    row.addEventListener('click', () => watch(s.session_id));
    rows.append(row);
  }
  $('no-sessions').hidden = body.sessions.length > 0;
  const reportLink = (r) =>
    el('a', { href: withToken(`/reports/${encodeURIComponent(r.name)}`), textContent: r.name, target: '_blank', rel: 'noopener' });
  $('reports').replaceChildren(...body.reports.filter((r) => r.session_id === watched).map((r) => el('li', {}, reportLink(r))));
  $('all-reports').replaceChildren(...body.reports.map((r) =>
    el('li', {}, reportLink(r), ' ', el('code', { textContent: r.session_id }))));
  $('no-reports').hidden = body.reports.length > 0;
}

function watch(id) {
  if (socket) socket.close();
  watched = id;
  frames = 0;
  frame = null;
  holder = null;
  $('watch-pane').hidden = false;
  $('watched-id').textContent = id;
  $('log').tBodies[0].replaceChildren();
  $('console').replaceChildren();
  $('snapshot').textContent = '(none yet)';
  $('screen').removeAttribute('src');
  $('screen').dataset.frames = '0';
  $('no-frame').hidden = false;
  for (const row of $('sessions').tBodies[0].rows) row.classList.toggle('selected', row.dataset.session === id);
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(`${scheme}://${location.host}${withToken('/ws', { session: id })}`);
  socket.onmessage = (e) => onMessage(JSON.parse(e.data));
  socket.onclose = () => { if (watched === id) status(`stopped watching ${id}`); };
  refresh();
}

function onMessage(m) {
  switch (m.t) {
    case 'hello':
      viewerId = m.viewer;
      $('take').hidden = !m.takeover;
      break;
    case 'frame': {
      frames += 1;
      frame = m;
      const img = $('screen');
      img.src = `data:image/jpeg;base64,${m.data}`;
      img.dataset.frames = String(frames);
      $('no-frame').hidden = true;
      break;
    }
    case 'action': {
      for (const text of m.console || []) {
        const list = $('console');
        list.prepend(el('li', { textContent: `${m.method}: ${text}` }));
        while (list.children.length > 100) list.lastChild.remove();
      }
      const at = new Date(m.at_ms).toLocaleTimeString();
      const row = el('tr', {},
        el('td', { textContent: at }),
        el('td', {}, el('code', { textContent: m.method })),
        el('td', { className: 'params' }, el('code', { textContent: JSON.stringify(m.params) })),
        el('td', {}, outcome(m), m.message ? el('div', { className: 'failed', textContent: m.message }) : ''),
        el('td', { textContent: String(m.ms) }));
      const body = $('log').tBodies[0];
      body.prepend(row);
      while (body.rows.length > 200) body.deleteRow(-1);
      break;
    }
    case 'snapshot':
      $('snapshot').textContent = m.text;
      break;
    case 'control':
      holder = m.held ? m.holder : null;
      showControl();
      break;
    case 'control_pending':
      $('take').disabled = true;
      $('control-state').textContent = m.message;
      break;
    case 'error':
      status(m.message);
      break;
    case 'closed':
      status(`session ${watched} is closed`);
      break;
    default:
      break;
  }
}

function mine() { return holder !== null && holder === viewerId; }

function showControl() {
  const held = holder !== null;
  $('take').disabled = held;
  $('release').hidden = !mine();
  $('note-label').hidden = !mine();
  $('screen').classList.toggle('mine', mine());
  $('control-state').textContent = mine() ? 'You hold this session: the agent waits until you hand it back.'
    : held ? 'Another person holds this session.' : '';
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

// A point on the frame as the page's CSS px, as DevTools' screencast view maps it: the frame shows the
// device (w x h CSS px) scaled to the image's box; the page starts `top` below its top, at pinch zoom
// `scale`.
function pagePoint(e) {
  const box = $('screen').getBoundingClientRect();
  const x = (e.clientX - box.left) * (frame.w / box.width);
  const y = (e.clientY - box.top) * (frame.h / box.height) - frame.top;
  return { x: x / frame.scale, y: y / frame.scale };
}

const BUTTONS = ['left', 'middle', 'right', 'back', 'forward'];
function modifiers(e) {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

function mouse(type, e) {
  if (!mine() || !frame) return;
  e.preventDefault();
  const p = pagePoint(e);
  const button = type === 'mouseMoved' ? 'none' : (BUTTONS[e.button] || 'left');
  send({ t: 'mouse', type, x: p.x, y: p.y, button, buttons: e.buttons, click_count: type === 'mouseMoved' ? 0 : Math.max(1, e.detail || 1), modifiers: modifiers(e) });
}

let lastMove = 0;
function setUp() {
  const img = $('screen');
  img.addEventListener('mousedown', (e) => { img.focus(); mouse('mousePressed', e); });
  img.addEventListener('mouseup', (e) => mouse('mouseReleased', e));
  img.addEventListener('mousemove', (e) => {
    const now = performance.now();
    if (now - lastMove < 30) return;
    lastMove = now;
    mouse('mouseMoved', e);
  });
  img.addEventListener('contextmenu', (e) => { if (mine()) e.preventDefault(); });
  img.addEventListener('dragstart', (e) => e.preventDefault());
  img.addEventListener('wheel', (e) => {
    if (!mine() || !frame) return;
    e.preventDefault();
    const p = pagePoint(e);
    send({ t: 'wheel', x: p.x, y: p.y, dx: e.deltaX, dy: e.deltaY });
  }, { passive: false });
  const key = (type) => (e) => {
    if (!mine() || document.activeElement !== img) return;
    e.preventDefault();
    const text = e.key.length === 1 ? e.key : e.key === 'Enter' ? '\r' : undefined;
    send({ t: 'key', type, key: e.key, code: e.code, key_code: e.keyCode, text, modifiers: modifiers(e), location: e.location });
  };
  img.addEventListener('keydown', key('keyDown'));
  img.addEventListener('keyup', key('keyUp'));
  $('take').addEventListener('click', () => send({ t: 'take' }));
  $('release').addEventListener('click', () => {
    send({ t: 'release', note: $('note').value });
    $('note').value = '';
  });
  refresh();
  setInterval(refresh, 1000);
}

setUp();
