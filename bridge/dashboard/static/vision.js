// Vision nodes in the inspector: text the hub read from the screenshot where the
// accessibility tree is blind (a canvas). The page marks them (data-source="VISION" on their
// outline and their line in the element list); this file styles them apart — a dashed teal
// outline on the picture, and "vision 0.97" (the reading's confidence) after their line — and
// adds a one-line legend under the picture while the screen shows any.
(() => {
const style = document.createElement("style");
style.textContent = `
  #outlines rect[data-source="VISION"] { stroke: #0e9f8e; stroke-dasharray: 6 4; stroke-width: 2; fill: rgba(14,159,142,.08); }
  #outlines rect[data-source="VISION"].hover { stroke: #f29d3d; }
  #outlines rect[data-source="VISION"].selected { stroke: #e2336b; }
  #tree .node[data-source="VISION"] { color: #0b7a6d; }
  #tree .node[data-source="VISION"]::after { content: "  vision " attr(data-confidence); font-size: 11px; color: #0e9f8e; border: 1px dashed #0e9f8e; border-radius: 3px; padding: 0 .3em; margin-left: .4em; }
  #vision-legend { font-size: 11px; color: #0b7a6d; margin: .2em 0; }
  #vision-legend::before { content: ""; display: inline-block; width: 1.4em; height: .7em; border: 2px dashed #0e9f8e; margin-right: .4em; vertical-align: middle; }
`;
document.head.append(style);

function legend() {
  const count = document.querySelectorAll('#outlines rect[data-source="VISION"]').length;
  let note = document.getElementById("vision-legend");
  if (!count) { if (note) note.remove(); return; }
  if (!note) {
    note = document.createElement("div");
    note.id = "vision-legend";
    note.dataset.testid = "vision-legend";
    const tree = document.getElementById("tree");
    tree.parentNode.insertBefore(note, tree);
  }
  note.textContent = count + " read by vision (OCR of the screenshot; weaker than accessibility)";
}
new MutationObserver(legend).observe(document.getElementById("outlines"), { childList: true });
})();
