/* duelbot archive index: filter the server's duels by duellist, ruleset and status. The rows
 * are plain HTML (the index works without JavaScript); ?duellist=&ruleset=&status= preset it. */
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#duel-index tbody tr"));
  var duellist = document.getElementById("filter-duellist");
  var ruleset = document.getElementById("filter-ruleset");
  var status = document.getElementById("filter-status");
  var count = document.getElementById("filter-count");
  // "Showing 1 of 2 duels." in the index's language: one template per plural category,
  // written by the index's builder (bot/archive/site.py).
  var textsNode = document.getElementById("archive-texts");
  var texts = textsNode ? JSON.parse(textsNode.textContent) : {};
  var plurals;
  try { plurals = new Intl.PluralRules(document.documentElement.lang || "en"); }
  catch (e) { plurals = new Intl.PluralRules("en"); }

  function showing(shown, total) {
    var forms = texts.showing || {};
    var template = forms[plurals.select(total)] || forms.other || "{shown} / {count}";
    return template.replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return name === "shown" ? String(shown) : name === "count" ? String(total) : whole;
    });
  }

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
    count.textContent = showing(shown, rows.length);
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
