async function(seen) {
  if (!this.isConnected) return { attached: false };
  const a = this.getBoundingClientRect();
  const same = (r, q) => r.x === q.x && r.y === q.y && r.width === q.width && r.height === q.height;
  // The animation clock's time: the last frame's (Chromium moves it on at each frame, and by a 60 Hz
  // frame's interval when that much time passes without one), ms.
  const clock = () => (document.timeline ? document.timeline.currentTime : null);
  // Stable: the same box across animation frames: one frame for a still element (a page script that
  // moves it from its own animation-frame callback runs first), two when a CSS or Web animation runs on
  // it or an ancestor (Playwright's definition). A page that gets no frame within 200 ms (hidden, or a
  // loaded machine) is compared after that time, and then a running animation counts as movement.
  const running = document.getAnimations().filter((an) => an.playState === 'running'
    && an.effect && an.effect.target && (an.effect.target === this || an.effect.target.contains(this)));
  const animated = running.length > 0;
  // An animation still waiting to start (pending: its clock not yet running, on a busy page) has not
  // moved the element yet, but will; its clock may start at either frame below, so that both
  // measurements still see it at its start: pending before the frames or after them, not stable this
  // round.
  const pendingBefore = running.some((an) => an.pending);
  // Frames over which an animation's clock did not advance by a frame's worth (a loaded machine can
  // deliver them milliseconds apart) show no movement whether or not the animation moves the element:
  // a slow one (600 px in 20 s) moves less than a layout unit (1/64 px) in a millisecond. No evidence of
  // stillness this round; the retry loop looks again.
  const clocks = running.map((an) => an.currentTime);
  const FRAME_MS = 16;
  const frame = () => new Promise((r) => { const t = setTimeout(() => r(false), 200); requestAnimationFrame(() => { clearTimeout(t); r(true); }); });
  // With an animation, the box between the two frames counts too: a periodic animation whose frames
  // came a whole period apart (a loaded machine) would otherwise look still.
  let mid = a;
  // `seen`: this element's box when its last check ended, and the clock's time then ({x, y, width,
  // height, time}). With the same box now and the clock at most one frame on, no frame is waited for:
  // - the clock where it was: no frame has gone by, and that check saw the box the same on both sides
  //   of its frame; there is no newer evidence to wait for (actions in a row on one element come
  //   mid-frame);
  // - the clock one frame on: the box is the same on both sides of that frame, which is what waiting
  //   for the next frame would show.
  // Further apart (a pause: the element may have moved and come back) the next frame is waited for.
  // Playwright waits for new frames every time (injectedScript.ts `_checkElementIsStable`).
  const ONE_FRAME = 17;
  const now = clock();
  const recent = !animated && !pendingBefore && seen != null && now != null && now >= seen.time
    && now - seen.time <= ONE_FRAME && same(a, seen);
  let framed = recent || await frame();
  if (framed && animated) {
    mid = this.getBoundingClientRect();
    framed = await frame();
  }
  const starting = pendingBefore || running.some((an, i) => an.pending || !(an.currentTime - clocks[i] >= FRAME_MS));
  if (!this.isConnected) return { attached: false };
  const b = recent ? a : this.getBoundingClientRect();
  const disabled = this.disabled === true || this.getAttribute('aria-disabled') === 'true'
    || (!!this.closest && !!this.closest('fieldset[disabled]') && 'disabled' in this);
  // Read-only as Playwright's `elementState('editable')` has it (roleUtils.ts `getReadonly`): an
  // <input>, <textarea> or <select> by its `readonly`, an element whose role takes `aria-readonly` by
  // that, a [contenteditable] never; anything else cannot be edited at all (null), which no wait changes.
  const readonlyRoles = ['checkbox', 'combobox', 'grid', 'gridcell', 'listbox', 'radiogroup', 'slider',
    'spinbutton', 'textbox', 'columnheader', 'rowheader', 'searchbox', 'switch', 'treegrid'];
  const role = (this.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
  const readonly = ['input', 'textarea', 'select'].includes(this.localName) ? this.hasAttribute('readonly')
    : readonlyRoles.includes(role) ? this.getAttribute('aria-readonly') === 'true'
      : this.isContentEditable ? false : null;
  const stable = !starting && !(animated && !framed) && [mid, b].every((r) => same(r, a));
  // The evidence for the next check of this element: its box now and the clock's time, when it was
  // found still and not animated.
  const time = recent ? now : clock();
  const box = stable && framed && !animated && time != null
    ? { x: b.x, y: b.y, width: b.width, height: b.height, time } : null;
  return {
    attached: true,
    visible: isVisible(this),
    stable,
    box,
    enabled: !disabled,
    editable: readonly === false,
    never_editable: readonly === null,
  };
}
