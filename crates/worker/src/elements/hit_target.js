// Whether the element at the click point (`o`, at `x`, `y` in the frame's viewport) counts as `this`, as
// in Playwright's `expectHitTarget` (injected/injectedScript.ts). Called on the element.
function(o, x, y) {
  let hit = o;
  for (let root = hit.shadowRoot; root; root = hit.shadowRoot) {
    // `elementsFromPoint`, not `elementFromPoint`: over slotted text the latter answers the host.
    const deeper = root.elementsFromPoint(x, y)[0];
    if (!deeper || deeper === hit) break;
    hit = deeper;
  }
  for (let n = hit; n; ) {
    if (n === this) return true;
    if (n.assignedSlot) n = n.assignedSlot;
    else if (n.parentNode && n.parentNode.nodeType === 11) n = n.parentNode.host;
    else n = n.parentNode;
  }
  return !!this.labels && Array.from(this.labels).some((l) => l === hit || l.contains(hit));
}
