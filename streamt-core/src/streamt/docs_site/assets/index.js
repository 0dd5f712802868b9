// streamt docs site: the index. Rows come from the JSON in the page and are drawn a page at a time,
// so the list opens fast at any project size; search and filters run over all of them.
(function () {
  "use strict";
  var PAGE = 200;
  var rows = JSON.parse(document.getElementById("index-data").textContent);
  var search = document.getElementById("search");
  var kind = document.getElementById("kind-filter");
  var tag = document.getElementById("tag-filter");
  var shown = document.getElementById("shown");
  var more = document.getElementById("more");
  var body = document.querySelector("#resources tbody");
  var keys = rows.map(function (r) { return (r[0] + " " + r[5] + " " + r[3] + " " + r[4].join(" ")).toLowerCase(); });
  var matches = [], drawn = 0, timer = 0;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function row(i) {
    var r = rows[i];
    return '<tr data-kind="' + esc(r[1]) + '" data-search="' + esc(keys[i]) + '"><td><a href="' + esc(r[6]) + '">' +
      esc(r[0]) + "</a></td><td>" + esc(r[1]) + "</td><td>" + esc(r[2]) + "</td><td>" + esc(r[3]) + "</td><td>" +
      esc(r[4].join(", ")) + "</td><td>" + esc(r[5]) + "</td></tr>";
  }
  function drawMore() {
    var next = matches.slice(drawn, drawn + PAGE);
    body.insertAdjacentHTML("beforeend", next.map(row).join(""));
    drawn += next.length;
    more.hidden = drawn >= matches.length;
    more.textContent = "show " + Math.min(PAGE, matches.length - drawn) + " more";
    shown.textContent = matches.length + " of " + rows.length + (drawn < matches.length ? " (" + drawn + " listed)" : "");
  }
  function apply() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var wantKind = kind.value, wantTag = tag.value;
    matches = [];
    for (var i = 0; i < rows.length; i++) {
      if (wantKind && rows[i][1] !== wantKind) continue;
      if (wantTag && rows[i][4].indexOf(wantTag) < 0) continue;
      var key = keys[i], ok = true;
      for (var w = 0; w < words.length && ok; w++) ok = key.indexOf(words[w]) >= 0;
      if (ok) matches.push(i);
    }
    body.innerHTML = "";
    drawn = 0;
    drawMore();
  }
  function later() { clearTimeout(timer); timer = setTimeout(apply, 60); }
  document.getElementById("filters").addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
  search.addEventListener("input", later);
  kind.addEventListener("change", apply);
  tag.addEventListener("change", apply);
  more.addEventListener("click", drawMore);
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) search.value = initial;
  apply();
})();
