"""Measurements of a loaded page for the fit tests: what sticks out sideways, what text overlaps."""

# Elements whose box reaches past the viewport, or past an ancestor that clips it (what
# scrolls inside its own box is reachable; SCROLLED_JS lists those boxes).
OVERFLOW_JS = r"""(function () {
  var out = [], vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1)
    out.push('page ' + document.documentElement.scrollWidth + ' > ' + vw);
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (!r.width || !r.height) return;
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      var ov = getComputedStyle(a).overflowX;
      if (ov === 'auto' || ov === 'scroll') return;  // reachable by scrolling its own box
      if (ov !== 'visible') {
        var ar = a.getBoundingClientRect();
        if (r.right > ar.right + 1) out.push(el.tagName + ' ' + (el.textContent || '').slice(0, 40) + ': cut at ' + Math.round(ar.right));
        return;
      }
    }
    if (r.right > vw + 1) out.push(el.tagName + ' ' + (el.textContent || '').slice(0, 40) + ': ' + Math.round(r.right) + ' > ' + vw);
  });
  return out.slice(0, 20);
})()"""

# Pairs of text boxes (each text node's own rectangles) that overlap by more than a sliver.
OVERLAP_JS = r"""(function () {
  var boxes = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var n = walker.currentNode;
    if (!n.textContent.trim()) continue;
    var p = n.parentElement;
    if (!p || p.closest('title, style, script, details:not([open]) > :not(summary)')) continue;
    var cs = getComputedStyle(p);  // text for screen readers only is not drawn
    if (cs.visibility === 'hidden' || cs.opacity === '0' || (cs.position === 'absolute' && cs.clip !== 'auto')) continue;
    var pr = p.getBoundingClientRect();
    if (pr.width <= 1 && pr.height <= 1) continue;
    var range = document.createRange();
    range.selectNodeContents(n);
    Array.from(range.getClientRects()).forEach(function (r) {
      if (r.width > 0.5 && r.height > 0.5) boxes.push({r: r, t: n.textContent.trim().slice(0, 30)});
    });
  }
  var out = [];
  for (var i = 0; i < boxes.length; i++)
    for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i].r, b = boxes[j].r;
      var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 2 && h > 2) out.push(boxes[i].t + ' / ' + boxes[j].t);
    }
  return out.slice(0, 20);
})()"""

# Boxes that scroll sideways because their content is wider (a wide table in a narrow window).
SCROLLED_JS = r"""(function () {
  var out = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var ov = getComputedStyle(el).overflowX;
    if ((ov === 'auto' || ov === 'scroll') && el.scrollWidth > el.clientWidth + 1)
      out.push(el.tagName + '.' + el.className + ' ' + (el.textContent || '').slice(0, 40));
  });
  return out.slice(0, 20);
})()"""

# The elements matching a selector that are not wholly in view with every box scrolled to its start:
# past the viewport's right edge, or past the visible part of a box that scrolls or clips them.
def OUT_OF_VIEW_JS(selector: str) -> str:
    import json

    return r"""(function (selector) {
  var out = [], vw = document.documentElement.clientWidth, found = document.querySelectorAll(selector);
  if (!found.length) return ['nothing matches ' + selector];
  found.forEach(function (el) {
    var r = el.getBoundingClientRect(), right = vw;
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') right = Math.min(right, a.getBoundingClientRect().right);
    if (r.right > right + 1) out.push(el.tagName + '[' + (el.dataset.field || el.className) + '] ' +
                                      (el.textContent || '').slice(0, 30) + ': ' + Math.round(r.right) + ' > ' + Math.round(right));
  });
  return out.slice(0, 20);
})(""" + json.dumps(selector) + ")"
