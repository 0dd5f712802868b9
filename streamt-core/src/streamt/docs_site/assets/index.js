// streamt docs site: search and filter the index table in place (no network, no library).
(function () {
  "use strict";
  var search = document.getElementById("search");
  var kind = document.getElementById("kind-filter");
  var tag = document.getElementById("tag-filter");
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#resources tbody tr"));
  var keys = rows.map(function (row) { return row.getAttribute("data-search"); });
  var timer = 0;

  function apply() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var wantKind = kind.value;
    var wantTag = tag.value ? "|" + tag.value + "|" : "";
    var count = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = (!wantKind || row.getAttribute("data-kind") === wantKind) &&
        (!wantTag || row.getAttribute("data-tags").indexOf(wantTag) >= 0) &&
        words.every(function (w) { return keys[i].indexOf(w) >= 0; });
      row.hidden = !ok;
      if (ok) count++;
    }
    shown.textContent = count + " shown";
  }

  function later() { clearTimeout(timer); timer = setTimeout(apply, rows.length > 2000 ? 120 : 0); }
  document.getElementById("filters").addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
  search.addEventListener("input", later);
  kind.addEventListener("change", apply);
  tag.addEventListener("change", apply);
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) { search.value = initial; }
  apply();
})();
