/* duelbot archive index: filter the server's duels by duellist, ruleset and status. The rows
 * are plain HTML (the index works without JavaScript); ?duellist=&ruleset=&status= preset it. */
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#duel-index tbody tr"));
  var duellist = document.getElementById("filter-duellist");
  var ruleset = document.getElementById("filter-ruleset");
  var status = document.getElementById("filter-status");
  var count = document.getElementById("filter-count");

  function apply() {
    var who = duellist.value.trim().toLocaleLowerCase();
    var shown = 0;
    rows.forEach(function (row) {
      var names = (row.getAttribute("data-duellists") || "").toLocaleLowerCase();
      var visible = (!who || names.indexOf(who) >= 0) &&
        (!ruleset.value || row.getAttribute("data-ruleset") === ruleset.value) &&
        (!status.value || row.getAttribute("data-status") === status.value);
      row.hidden = !visible;
      if (visible) shown++;
    });
    count.textContent = "Showing " + shown + " of " + rows.length + " duel" + (rows.length === 1 ? "" : "s") + ".";
  }

  var query = new URLSearchParams(location.search);
  if (query.get("duellist")) duellist.value = query.get("duellist");
  if (query.get("ruleset")) ruleset.value = query.get("ruleset");
  if (query.get("status")) status.value = query.get("status");
  [duellist, ruleset, status].forEach(function (input) {
    input.addEventListener("input", apply);
    input.addEventListener("change", apply);
  });
  apply();
})();
