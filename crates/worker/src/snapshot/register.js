// Registers a walk's shown elements by ref id (for actions) and by element (for the next walk); see
// REGISTER in walk.rs.
function(last, pairs) {
  if (!last) return;
  globalThis.__sandboxBrowserRefs ??= new Map();
  globalThis.__sandboxBrowserIds ??= new WeakMap();
  const registry = globalThis.__sandboxBrowserRefs;
  const ids = globalThis.__sandboxBrowserIds;
  for (const [i, id, role, name] of pairs) {
    const had = ids.get(last.els[i]);
    if (had && had.id !== id) registry.delete(had.id);
    registry.set(id, new WeakRef(last.els[i]));
    ids.set(last.els[i], { id, role, name });
  }
  // Bounded: the oldest refs go first (an action on one is then `stale_ref`).
  for (const key of registry.keys()) {
    if (registry.size <= 100000) break;
    registry.delete(key);
  }
}
