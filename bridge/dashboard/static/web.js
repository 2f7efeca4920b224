// Web nodes in the inspector: the elements of a WebView's page that the hub merged into the
// screen (their automation id starts with "web:"). The page marks them (data-web="<selector>"
// on their outline and their line); this file styles them apart — a dotted blue outline on
// the picture, and the CSS id or role selector that picks the element after its line — and
// adds a one-line legend under the picture while the screen shows any.
(() => {
const style = document.createElement("style");
style.textContent = `
  #outlines rect[data-web] { stroke: #2b6cd4; stroke-dasharray: 2 3; stroke-width: 2; fill: rgba(43,108,212,.06); }
  #outlines rect[data-web].hover { stroke: #f29d3d; }
  #outlines rect[data-web].selected { stroke: #e2336b; }
  #tree .node[data-web]::after { content: "  web " attr(data-web); font-size: 11px; color: #2b6cd4; border: 1px dotted #2b6cd4; border-radius: 3px; padding: 0 .3em; margin-left: .4em; }
  #web-legend { font-size: 11px; color: #2b6cd4; margin: .2em 0; }
  #web-legend::before { content: ""; display: inline-block; width: 1.4em; height: .7em; border: 2px dotted #2b6cd4; margin-right: .4em; vertical-align: middle; }
`;
document.head.append(style);

function legend() {
  const count = document.querySelectorAll("#outlines rect[data-web]").length;
  let note = document.getElementById("web-legend");
  if (!count) { if (note) note.remove(); return; }
  if (!note) {
    note = document.createElement("div");
    note.id = "web-legend";
    note.dataset.testid = "web-legend";
    const tree = document.getElementById("tree");
    tree.parentNode.insertBefore(note, tree);
  }
  note.textContent = count + " from a WebView's page (its accessibility tree, over DevTools)";
}
new MutationObserver(legend).observe(document.getElementById("outlines"), { childList: true });
})();
