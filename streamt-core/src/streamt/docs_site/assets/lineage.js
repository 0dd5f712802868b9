// streamt docs site: the lineage graph. Positions come precomputed from `docs generate`; this
// script only pans, zooms, highlights and draws. It draws only what is near the viewport, and
// boxes without labels when zoomed far out, so a 5,000-model graph stays responsive.
(function () {
  "use strict";
  var W = 180, H = 34, LABELS_FROM = 0.45, MAX_LABELLED = 1500;
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var svg = document.getElementById("graph");
  var view = document.getElementById("viewport");
  var nodes = data.nodes, edges = data.edges;
  var byName = {}, parents = [], children = [];
  nodes.forEach(function (n, i) { byName[n[0]] = i; parents.push([]); children.push([]); });
  edges.forEach(function (e) { children[e[0]].push(e[1]); parents[e[1]].push(e[0]); });
  var scale = 1, tx = 0, ty = 0;
  var drawn = null; // the graph-space rectangle and detail level last drawn
  var lit = null, focus = -1;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function size() { var r = svg.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 600 }; }
  function bounds() {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    nodes.forEach(function (n) { x0 = Math.min(x0, n[3]); y0 = Math.min(y0, n[4]); x1 = Math.max(x1, n[3] + W); y1 = Math.max(y1, n[4] + H); });
    return nodes.length ? { x0: x0, y0: y0, x1: x1, y1: y1 } : { x0: 0, y0: 0, x1: W, y1: H };
  }
  function fit() {
    var b = bounds(), s = size(), pad = 20;
    scale = Math.min((s.w - 2 * pad) / (b.x1 - b.x0), (s.h - 2 * pad) / (b.y1 - b.y0), 1.5);
    tx = pad - b.x0 * scale + Math.max(0, (s.w - 2 * pad - (b.x1 - b.x0) * scale) / 2);
    ty = pad - b.y0 * scale;
    update(true);
  }
  function visibleRect(margin) {
    var s = size();
    var x0 = -tx / scale, y0 = -ty / scale, w = s.w / scale, h = s.h / scale;
    return { x0: x0 - w * margin, y0: y0 - h * margin, x1: x0 + w * (1 + margin), y1: y0 + h * (1 + margin) };
  }
  function inside(r, x, y, w, h) { return x + w >= r.x0 && x <= r.x1 && y + h >= r.y0 && y <= r.y1; }
  function covers(outer, inner) { return inner.x0 >= outer.x0 && inner.y0 >= outer.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1; }

  function draw() {
    var r = visibleRect(0.5), picked = [];
    for (var i = 0; i < nodes.length; i++) if (inside(r, nodes[i][3], nodes[i][4], W, H)) picked.push(i);
    var labels = scale >= LABELS_FROM && picked.length <= MAX_LABELLED;
    var out = [];
    for (var k = 0; k < edges.length; k++) {
      var a = nodes[edges[k][0]], b = nodes[edges[k][1]];
      var x1 = a[3] + W, y1 = a[4] + H / 2, x2 = b[3], y2 = b[4] + H / 2;
      if (!inside(r, Math.min(x1, x2), Math.min(y1, y2), Math.abs(x2 - x1), Math.abs(y2 - y1))) continue;
      out.push('<path class="edge" data-k="' + k + '" data-from="' + esc(a[0]) + '" data-to="' + esc(b[0]) + '" d="M' + x1 + " " + y1 +
        " C" + (x1 + 50) + " " + y1 + " " + (x2 - 50) + " " + y2 + " " + x2 + " " + y2 + '"/>');
    }
    picked.forEach(function (i) {
      var n = nodes[i], cls = "node " + n[1] + (labels ? "" : " dot");
      var label = n[0].length > 24 ? n[0].slice(0, 23) + "\u2026" : n[0];
      out.push('<g class="' + cls + '" data-i="' + i + '" data-name="' + esc(n[0]) + '" data-type="' + esc(n[1]) + '">' +
        '<rect x="' + n[3] + '" y="' + n[4] + '" width="' + W + '" height="' + H + '" rx="6"/>' +
        (labels ? '<text x="' + (n[3] + 10) + '" y="' + (n[4] + 21) + '">' + esc(label) + "</text>" : "") +
        "<title>" + esc(n[2] + " " + n[0]) + "</title></g>");
    });
    view.innerHTML = out.join("");
    paint();
    drawn = { rect: r, labels: labels, scale: scale };
  }
  function update(force) {
    view.setAttribute("transform", "translate(" + tx + " " + ty + ") scale(" + scale + ")");
    var now = visibleRect(0);
    if (force || !drawn || !covers(drawn.rect, now) || Math.abs(Math.log(scale / drawn.scale)) > 0.4) draw();
  }
  var pending = false;
  function schedule() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; update(false); }); } }

  // Everything upstream and downstream of `start`; an edge is lit when it lies on one of those paths.
  function closure(start) {
    var sides = [parents, children].map(function (adj) {
      var mark = {}, stack = [start];
      mark[start] = true;
      while (stack.length) {
        adj[stack.pop()].forEach(function (next) { if (!mark[next]) { mark[next] = true; stack.push(next); } });
      }
      return mark;
    });
    var seenNodes = {}, seenEdges = {};
    sides.forEach(function (mark) { Object.keys(mark).forEach(function (k) { seenNodes[k] = true; }); });
    edges.forEach(function (e, k) {
      if ((sides[0][e[0]] && sides[0][e[1]]) || (sides[1][e[0]] && sides[1][e[1]])) seenEdges[k] = true;
    });
    return { nodes: seenNodes, edges: seenEdges };
  }
  // Classes only, never a redraw: replacing the element under the pointer would swallow the click.
  var litIndex = -1;
  function paint() {
    svg.classList.toggle("highlighting", !!lit);
    Array.prototype.forEach.call(view.children, function (el) {
      if (el.tagName === "path") {
        el.classList.toggle("lit", !!(lit && lit.edges[el.getAttribute("data-k")]));
      } else {
        var i = +el.getAttribute("data-i");
        el.classList.toggle("lit", !!(lit && lit.nodes[i]));
        el.classList.toggle("focus", i === focus);
      }
    });
  }
  function highlight(i) {
    if (i === litIndex) return;
    litIndex = i; lit = i < 0 ? null : closure(i); paint();
  }
  function centre(i) {
    var s = size(), n = nodes[i];
    scale = Math.max(scale, 0.9);
    tx = s.w / 2 - (n[3] + W / 2) * scale; ty = s.h / 2 - (n[4] + H / 2) * scale;
    focus = i; litIndex = i; lit = closure(i); update(true);
  }

  var drag = null, moved = false;
  svg.addEventListener("pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, tx: tx, ty: ty }; moved = false; });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { moved = true; svg.classList.add("dragging"); }
    tx = drag.tx + dx; ty = drag.ty + dy; schedule();
  });
  window.addEventListener("pointerup", function () { drag = null; svg.classList.remove("dragging"); });
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    var factor = Math.exp(-ev.deltaY * 0.0015), next = Math.min(4, Math.max(0.02, scale * factor));
    tx = px - (px - tx) * (next / scale); ty = py - (py - ty) * (next / scale); scale = next; schedule();
  }, { passive: false });
  function zoomBy(f) { var s = size(); var next = Math.min(4, Math.max(0.02, scale * f)); tx = s.w / 2 - (s.w / 2 - tx) * (next / scale); ty = s.h / 2 - (s.h / 2 - ty) * (next / scale); scale = next; update(false); }
  document.getElementById("zoom-in").addEventListener("click", function () { zoomBy(1.4); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoomBy(1 / 1.4); });
  document.getElementById("fit").addEventListener("click", function () { focus = -1; highlight(-1); fit(); });
  view.addEventListener("mouseover", function (ev) {
    var g = ev.target.closest && ev.target.closest(".node");
    if (g && !drag) highlight(+g.getAttribute("data-i"));
  });
  view.addEventListener("mouseleave", function () { if (focus < 0) highlight(-1); else highlight(focus); });
  view.addEventListener("click", function (ev) {
    var g = ev.target.closest && ev.target.closest(".node");
    if (g && !moved) location.href = nodes[+g.getAttribute("data-i")][5];
  });
  document.getElementById("focus").addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter") return;
    var q = ev.target.value.trim(), i = byName[q];
    if (i === undefined) { var low = q.toLowerCase(); i = nodes.findIndex(function (n) { return n[0].toLowerCase().indexOf(low) >= 0; }); }
    if (i !== undefined && i >= 0) centre(i);
  });
  window.addEventListener("resize", function () { update(true); });
  fit();
  function fromHash() {
    var m = /[#&]node=([^&]*)/.exec(location.hash), i = m ? byName[decodeURIComponent(m[1])] : undefined;
    if (i !== undefined) centre(i);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
