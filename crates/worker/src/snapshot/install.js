// The snapshot's object in an isolated world, stored under the page's marker global (walk.rs
// `install`): `walker` is walker.js; `walk(opts, root)` runs it, keeps its elements as `last`
// (`{id, els}`, numbered in the world) for register.js, and answers the result as JSON text with its
// number, its frames' and holes' counts and the document's title; with frames or holes,
// `[text, ...frames, ...holes]`.
function(walker) {
  const sb = {
    walks: 0,
    last: null,
    walk(opts, root) {
      const r = walker(opts, root);
      sb.last = { id: ++sb.walks, els: r.els };
      const text = JSON.stringify({
        ...r.result,
        walk: sb.last.id,
        frameCount: r.frames.length,
        holeCount: r.holes.length,
        title: document.title,
      });
      return r.frames.length || r.holes.length ? [text, ...r.frames, ...r.holes] : text;
    },
  };
  return sb;
}
