/* duelbot archive page: shows a duel from its embedded JSON export and re-derives every
 * commitment and roll in the browser (docs/fairness.md; the DOM contract: docs/archive.md).
 * Everything shown is built with textContent from the JSON: no HTML from the data is parsed. */
(function () {
  "use strict";

  var TWO_64 = BigInt(2) ** BigInt(64);
  var SIDES = ["a", "b"];
  var raw = document.getElementById("duel-data").textContent;
  var data = parseExport(raw);
  var rounds = Array.isArray(data.rounds) ? data.rounds : [];
  // What the ruleset (bot/rules) said when the page was rendered: the dice this duel can
  // roll and how its log states them (docs/archive.md). Absent or null: not checked.
  var rulesNode = document.getElementById("duel-rules");
  var rulesFacts = rulesNode ? parseExport(rulesNode.textContent) : {};
  var allowedDice = Array.isArray(get(rulesFacts, "dice")) ? rulesFacts.dice.map(String) : null;
  var logPattern = null;
  try {
    var source = get(rulesFacts, "log_dice_pattern");
    if (typeof source === "string" && source) logPattern = new RegExp(source, "g");
  } catch (e) { logPattern = null; }
  var verifyCommand = "duelbot verify duel-" + data.duel_id + ".json";
  // The page's own texts in the duel's language, built by the page's builder from the
  // catalogs (bot/archive/page_texts.py): templates with {fields}, plural texts by CLDR
  // category, and the moments shown, as the reader's locale writes them.
  var textsNode = document.getElementById("duel-texts");
  var TEXTS = textsNode ? JSON.parse(textsNode.textContent) : {};
  var LANG = document.documentElement.lang || "en";
  var plurals = null;
  try { plurals = new Intl.PluralRules(LANG); } catch (e) { plurals = new Intl.PluralRules("en"); }

  /* -- reading the JSON ---------------------------------------------------------------- */

  function parseExport(text) {
    // Integers beyond 2^53 (a die of up to 2^64 sides) would lose digits as Numbers: keep
    // them exact as BigInt where the browser gives the source text (Chromium 114+).
    return JSON.parse(text, function (key, value, context) {
      if (typeof value === "number" && !Number.isSafeInteger(value) && context &&
          typeof context.source === "string" && /^-?\d+$/.test(context.source)) {
        return BigInt(context.source);
      }
      return value;
    });
  }

  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function get(obj, key) { return isObject(obj) && key in obj ? obj[key] : undefined; }

  /* A text of the page: its template with each {field} filled in one pass (a value is never
   * searched for fields itself). A plural text takes the form for fields.count. */
  function t(key, fields) {
    var template = get(TEXTS, key);
    if (isObject(template)) {
      var count = fields ? fields.count : undefined;
      var category = "other";
      try { category = plurals.select(Number(count)); } catch (e) { category = "other"; }
      template = get(template, category) || get(template, "other");
    }
    if (typeof template !== "string") template = key;
    return template.replace(/\{([a-z_]+)\}/g, function (whole, name) {
      return fields && name in fields ? String(fields[name]) : whole;
    });
  }

  function nameOf(side) {
    var fromDuellists = get(get(data.duellists, side), "name");
    if (typeof fromDuellists === "string" && fromDuellists) return fromDuellists;
    var fighter = get(get(data, "fighters"), side);
    if (typeof get(fighter, "name") === "string") return fighter.name;
    return t("duellist", { side: String(side).toUpperCase() });
  }

  /* -- small DOM helpers --------------------------------------------------------------- */

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] === undefined || attrs[k] === null) return;
        if (k === "text") node.textContent = String(attrs[k]);
        else if (k === "className") node.className = attrs[k];
        else node.setAttribute(k, String(attrs[k]));
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function humanize(key) {
    var text = String(key);
    if (/^[a-z]{1,3}$/.test(text)) return text.toUpperCase();  // str, agi, hp
    text = text.replace(/[_-]+/g, " ").trim().replace(/\b[b-df-hj-np-tv-z]{2,3}\b/g, function (w) {
      return w.toUpperCase();  // hp max -> HP max: a short word without a vowel is an abbreviation
    });
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function formatValue(v) {
    if (v === null || v === undefined) return "\u2014";
    if (typeof v === "boolean") return v ? t("yes") : t("no");
    if (typeof v === "bigint" || typeof v === "number") return String(v);
    if (typeof v === "string") return v === "" ? "\u2014" : v;
    if (Array.isArray(v)) return v.length ? v.map(formatValue).join(", ") : t("none");
    if (isObject(v)) {
      var keys = Object.keys(v);
      if (!keys.length) return t("none");
      return keys.map(function (k) { return humanize(k) + ": " + formatValue(v[k]); }).join("; ");
    }
    return String(v);
  }

  function when(iso) {
    if (typeof iso !== "string" || !iso) return null;
    var shown = get(get(TEXTS, "dates"), iso);
    if (typeof shown === "string") return shown;
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    return d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function facts(dl, pairs) {
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === "") return;
      dl.appendChild(el("dt", { text: pair[0] }));
      var dd = el("dd");
      if (typeof pair[1] === "object" && pair[1].nodeType) dd.appendChild(pair[1]);
      else dd.textContent = formatValue(pair[1]);
      dl.appendChild(dd);
    });
    return dl;
  }

  function sheetFacts(sheet) {
    var dl = el("dl", { className: "facts" });
    Object.keys(sheet).forEach(function (k) {
      if (k === "name" || k === "user_id") return;
      facts(dl, [[humanize(k), sheet[k] === null ? "\u2014" : sheet[k]]]);
    });
    return dl;
  }

  function dieText(sides) {
    var s = String(sides);
    return (typeof sides === "number" || typeof sides === "bigint") && sides > 0
      ? "d" + s : "DICE" + s;
  }

  /* -- the page ------------------------------------------------------------------------ */

  function rollCount() {
    return rounds.reduce(function (n, r) {
      var rolls = get(get(r, "result"), "rolls");
      return n + (Array.isArray(rolls) ? rolls.length : 0);
    }, 0);
  }

  function renderHeader() {
    var title = t("duel_title", { duel: data.duel_id, a: nameOf("a"), b: nameOf("b") });
    document.title = title;
    document.getElementById("duel-title").textContent = title;
    var ruleset = data.ruleset_title || data.ruleset || t("unknown_ruleset");
    var status = data.status === "ended"
      ? (data.winner_name ? t("won_by", { name: data.winner_name }) : statusText("ended"))
      : statusText(data.status);
    document.getElementById("duel-subtitle").textContent = ruleset + " \u00b7 " + status;

    var undone = rounds.filter(function (r) { return r.status === "undone"; }).length;
    var how = data.end_kind ? t("end_kind_" + data.end_kind) : null;
    if (how === "end_kind_" + data.end_kind) how = humanize(data.end_kind).toLowerCase();
    facts(document.getElementById("duel-facts"), [
      [t("fact_duel"), "#" + data.duel_id],
      [t("fact_ruleset"), data.ruleset_title ? data.ruleset_title + " (" + data.ruleset + ")" : data.ruleset],
      [t("fact_status"), how ? t("status_how", { status: statusText(data.status), how: how }) : statusText(data.status)],
      [t("fact_winner"), data.winner_name || (data.status === "ended" ? t("none") : null)],
      [t("fact_how_it_ended"), data.end_reason],
      [t("fact_started"), when(data.created_at)],
      [t("fact_ended"), when(data.ended_at)],
      [t("fact_rounds"), undone ? t("rounds_undone", { rounds: rounds.length, count: undone }) : rounds.length],
      [t("fact_rolls"), rollCount()],
      [t("fact_export_format"), data.format ? data.format + (data.version !== undefined ? " v" + data.version : "") : null],
      [t("fact_exported"), when(data.exported_at)]
    ]);
  }

  /* A duel's status in the page's language (an unknown one as the export has it). */
  function statusText(status) {
    if (status === "live" || status === "ended") return t("status_" + status);
    return String(status || "");
  }

  /* The sheet of a side as snapshotted: the export's own snapshot when it has one, else the
   * state before the first round, else the state after the first round with a result. */
  function sheetOf(side) {
    var candidates = [
      [get(get(data, "fighters"), side), t("sheet_snapshot")],
      [get(get(data.duellists, side), "sheet"), t("sheet_snapshot")],
      [get(get(rounds[0], "state_before"), side), t("sheet_before", { number: get(rounds[0], "number") })]
    ];
    for (var i = 0; i < rounds.length; i++) {
      var st = get(get(rounds[i], "result"), "state");
      if (isObject(get(st, side))) {
        candidates.push([st[side], t("sheet_after", { number: rounds[i].number })]);
        break;
      }
    }
    candidates.push([data.duellists && data.duellists[side], t("sheet_exported")]);
    for (var j = 0; j < candidates.length; j++) {
      if (isObject(candidates[j][0])) return candidates[j];
    }
    return [{}, t("sheet_missing")];
  }

  function renderDuellists() {
    var box = document.getElementById("duellists");
    SIDES.forEach(function (side) {
      var found = sheetOf(side);
      var heading = el("h2", null, nameOf(side));
      if (data.winner === side) heading.appendChild(el("span", { className: "winner", text: t("winner") }));
      box.appendChild(el("article", { className: "duellist", "data-side": side },
        el("p", { className: "kicker", text: t("duellist", { side: side.toUpperCase() }) }),
        heading,
        el("p", { className: "source muted", text: found[1] }),
        sheetFacts(found[0])));
    });
  }

  function renderRules() {
    var dl = document.getElementById("rules-list");
    var listed = false;
    // A future export may list the rules with their meanings: [[name, meaning], ...] or
    // [{name, meaning}, ...]; show those as given.
    var named = data.rules_in_force || data.rules;
    if (Array.isArray(named)) {
      named.forEach(function (rule) {
        var name = Array.isArray(rule) ? rule[0] : get(rule, "name");
        var meaning = Array.isArray(rule) ? rule[1] : (get(rule, "meaning") || get(rule, "value"));
        if (name !== undefined) { facts(dl, [[String(name), meaning]]); listed = true; }
      });
    }
    if (!listed) {
      var options = isObject(data.options) ? data.options : {};
      Object.keys(options).forEach(function (k) {
        if (isObject(options[k])) {
          Object.keys(options[k]).forEach(function (p) {
            facts(dl, [[humanize(p) + " (" + humanize(k).toLowerCase() + ")", options[k][p]]]);
          });
        } else {
          facts(dl, [[humanize(k), options[k]]]);
        }
        listed = true;
      });
    }
    // House rules a ruleset keeps in its state (the first state the export has).
    var firstState = get(rounds[0], "state_before") ||
      get(get(rounds.filter(function (r) { return isObject(r.result); })[0], "result"), "state");
    var houseRules = isObject(data.house_rules) ? data.house_rules : get(firstState, "house_rules");
    if (isObject(houseRules)) {
      Object.keys(houseRules).forEach(function (p) {
        facts(dl, [[t("house_rule", { name: humanize(p) }), houseRules[p]]]);
        listed = true;
      });
    }
    if (!listed) dl.appendChild(el("dd", { className: "muted", text: t("no_options") }));
  }

  /* Which log line each roll fed. An explicit roll.log_index wins; otherwise consecutive
   * rolls for the same side and purpose form a group, fed to the first line from the last
   * match on that names the roller and, after the word "roll", gives the group's values one
   * after another (then the same without the name). A guess from the text, shown as such. */
  function numbersAfterRoll(line) {  // the numbers after the first "roll" of the line
    var lower = String(line).toLowerCase();
    var at = lower.indexOf("roll");
    var word = String(t("log_roll_word")).toLowerCase();  // the log's word in its language
    var own = word && word !== "roll" ? lower.indexOf(word) : -1;
    if (own >= 0 && (at < 0 || own < at)) at = own;
    return at < 0 ? [] : (String(line).slice(at).match(/\d+/g) || []);
  }
  function hasRun(haystack, needles) {  // needles appear one after another in haystack
    for (var start = 0; start + needles.length <= haystack.length; start++) {
      var i = 0;
      while (i < needles.length && haystack[start + i] === needles[i]) i++;
      if (i === needles.length) return true;
    }
    return false;
  }
  function feedMap(rolls, log) {
    var fed = rolls.map(function () { return null; });
    var pointer = 0;
    var k = 0;
    while (k < rolls.length) {
      var roll = rolls[k];
      if (Number.isInteger(get(roll, "log_index"))) { fed[k] = roll.log_index; k++; continue; }
      var end = k + 1;
      while (end < rolls.length && get(rolls[end], "for") === get(roll, "for") &&
             get(rolls[end], "purpose") === get(roll, "purpose") &&
             !Number.isInteger(get(rolls[end], "log_index"))) end++;
      var values = rolls.slice(k, end).map(function (r) { return String(get(r, "value")); });
      var who = nameOf(get(roll, "for"));
      var found = -1;
      for (var pass = 0; pass < 2 && found < 0; pass++) {
        for (var i = pointer; i < log.length; i++) {
          var line = String(log[i]);
          if (pass === 0 && line.indexOf(who) < 0) continue;
          if (hasRun(numbersAfterRoll(line), values)) { found = i; break; }
        }
      }
      for (var g = k; g < end; g++) fed[g] = found < 0 ? null : found;
      if (found >= 0) pointer = found;
      k = end;
    }
    return fed;
  }

  function rangeText(indices) {
    if (indices.length === 1) return t("roll_one", { index: indices[0] });
    return t("roll_range", { first: indices[0], last: indices[indices.length - 1] });
  }

  /* A round's name in its ruleset's words: the label its close fixed ("Step 4", "Round 1,
   * forfeit choice"), else "Round N" (a result published before labels, an open round). */
  function roundName(r, result) {
    var label = get(result, "label");
    if (typeof label === "string" && label) return label.charAt(0).toUpperCase() + label.slice(1);
    return t("round", { number: r.number });
  }

  function renderRound(r) {
    var number = r.number;
    var result = isObject(r.result) ? r.result : null;
    var section = el("section", {
      className: "round", id: "round-" + number, "data-round": number, "data-status": r.status
    });
    var head = el("div", { className: "round-head" },
      el("h2", { text: roundName(r, result) }),
      r.status === "undone" ? el("span", { className: "badge undone", text: t("badge_undone") }) : null,
      r.status === "open" ? el("span", { className: "badge", text: t("badge_open") }) : null,
      el("span", { className: "badge verify", text: result ? t("badge_not_checked") : t("badge_sealed") }));
    section.appendChild(head);

    if (r.status === "undone") {
      var who = r.undone_by_name || (r.undone_by ? t("user", { id: r.undone_by }) : null);
      var at = r.undone_at ? when(r.undone_at) : null;
      var undone = who && at ? t("undone_by_on", { who: who, when: at })
        : who ? t("undone_by", { who: who }) : at ? t("undone_on", { when: at }) : t("undone");
      if (r.undo_reason) undone = t("undone_reason", { undone: undone, reason: r.undo_reason });
      section.appendChild(el("p", { className: "note" }, t("undone_kept", { undone: undone })));
    }
    var follows = get(result, "follows_undo_of");
    if (follows !== undefined && follows !== null) {
      section.appendChild(el("p", { className: "note", text: t("follows_undo", { number: follows }) }));
    }

    if (!result) {
      section.appendChild(el("p", { className: "muted",
        text: t("still_open") }));
      section.appendChild(proofList(r));
      return section;
    }

    var labels = get(result, "labels") || {};
    var choices = get(result, "choices") || get(r, "choices") || {};
    var moves = el("ul", { className: "moves" });
    SIDES.forEach(function (side) {
      var label = get(labels, side);
      if (label === undefined || label === null) {
        var choice = get(choices, side);
        label = choice === null || choice === undefined ? t("no_move") : humanize(choice);
      }
      moves.appendChild(el("li", { "data-side": side },
        el("span", { className: "who", text: nameOf(side) }), String(label)));
    });
    section.appendChild(moves);

    var outcome = get(result, "outcome") || r.outcome;
    var winner = get(result, "winner");
    var sentence = get(result, "sentence");
    var outcomeText;
    if (typeof sentence === "string" && sentence) {
      // The ruleset's own sentence, fixed at the close: never an outcome code.
      outcomeText = sentence;
    } else {
      outcomeText = outcome ? humanize(outcome) : t("no_outcome");
      if (winner === "a" || winner === "b") outcomeText = t("outcome_winner", { outcome: outcomeText, name: nameOf(winner) });
      // (A ruleset's own state, such as rule 2.14's lock, is in the result's facts.)
      if (get(result, "ended")) outcomeText = t("outcome_ends", { outcome: outcomeText });
    }
    section.appendChild(el("p", { className: "outcome" }, t("outcome_line", { outcome: outcomeText })));
    var resultFacts = get(result, "facts");
    if (Array.isArray(resultFacts) && resultFacts.length) {
      // The ruleset's own facts of the result (rule 2.14: "Locked in combat").
      section.appendChild(el("p", { className: "muted", text: resultFacts.map(function (f) {
        return Array.isArray(f) ? f[0] + ": " + f[1] : String(f);
      }).join(" \u00b7 ") }));
    }
    var closeWhy = r.close_reason
      ? (get(get(TEXTS, "close_reasons"), r.close_reason) || humanize(r.close_reason).toLowerCase())
      : null;
    var closedText = r.closed_at
      ? (closeWhy ? t("closed_why", { when: when(r.closed_at), reason: closeWhy }) : t("closed", { when: when(r.closed_at) }))
      : (closeWhy ? t("closed_why_only", { reason: closeWhy }) : "");
    if (closedText) section.appendChild(el("p", { className: "muted", text: closedText }));

    var rolls = Array.isArray(result.rolls) ? result.rolls : [];
    var log = Array.isArray(result.log) ? result.log : [];
    var fed = feedMap(rolls, log);
    section.appendChild(el("h3", { text: t("rolls_heading", { count: rolls.length }) }));
    if (!rolls.length) {
      section.appendChild(el("p", { className: "muted", text: t("no_dice") }));
    } else {
      var list = el("ol", { className: "rolls" });
      rolls.forEach(function (roll, k) {
        var purpose = get(roll, "purpose");
        var purposeShown = purpose ? (get(result.roll_purposes, purpose) || humanize(purpose)) : "";
        var what = el("span", { className: "what" },
          nameOf(get(roll, "for")) + (purpose ? " \u00b7 " + purposeShown : ""));
        if (fed[k] !== null) {
          what.appendChild(document.createTextNode(" "));
          what.appendChild(el("span", { className: "fed" }, "\u2192 ",
            el("a", { href: "#round-" + number + "-log-" + fed[k], text: t("log_step", { step: fed[k] + 1 }) })));
        }
        list.appendChild(el("li", {
          className: "roll", id: "round-" + number + "-roll-" + k,
          "data-round": number, "data-roll": k, "data-label": get(roll, "label"),
          "data-log-step": fed[k] === null ? null : fed[k] + 1
        },
          el("span", { className: "k", text: "#" + k }),
          what,
          el("span", { className: "die", text: dieText(get(roll, "sides")) }),
          el("span", { className: "value", text: formatValue(get(roll, "value")) }),
          el("span", { className: "label", text: formatValue(get(roll, "label")) }),
          el("span", { className: "check", text: "" })));
      });
      section.appendChild(list);
    }

    section.appendChild(el("h3", { text: t("log_heading") }));
    var ol = el("ol", { className: "log" });
    log.forEach(function (line, i) {
      var feeders = [];
      fed.forEach(function (f, k) { if (f === i) feeders.push(k); });
      ol.appendChild(el("li", { id: "round-" + number + "-log-" + i },
        String(line),
        feeders.length ? el("span", { className: "fed-by", text: "\u2190 " + rangeText(feeders) }) : null));
    });
    section.appendChild(ol);
    section.appendChild(proofList(r));

    var stateBefore = get(r, "state_before");
    var stateAfter = get(result, "state");
    [[stateBefore, t("state_before")], [stateAfter, t("state_after")]].forEach(function (pair) {
      if (!isObject(pair[0])) return;
      var grid = el("div", { className: "state-grid" });
      SIDES.forEach(function (side) {
        if (isObject(pair[0][side])) grid.appendChild(el("div", null, el("strong", { text: nameOf(side) }), sheetFacts(pair[0][side])));
      });
      var rest = {};
      Object.keys(pair[0]).forEach(function (k) { if (SIDES.indexOf(k) < 0) rest[k] = pair[0][k]; });
      if (Object.keys(rest).length) grid.appendChild(el("div", null, el("strong", { text: t("state_duel") }), sheetFacts(rest)));
      section.appendChild(el("details", null, el("summary", { text: pair[1] }), grid));
    });
    var roundOptions = get(result, "options");
    if (isObject(roundOptions) && JSON.stringify(roundOptions) !== JSON.stringify(data.options)) {
      section.appendChild(el("p", { className: "muted", text: t("options_used", { options: formatValue(roundOptions) }) }));
    }
    return section;
  }

  function proofList(r) {
    return facts(el("dl", { className: "proof" }), [
      [t("proof_commitment"), r.commitment],
      [t("proof_seed"), r.seed === null || r.seed === undefined ? t("seed_secret") : r.seed],
      [t("proof_check"), el("span", { className: "check-line", "data-check": "commitment", text: r.seed ? t("check_not_yet") : t("check_nothing") })]
    ]);
  }

  /* -- verification (docs/fairness.md) ------------------------------------------------- */

  var encoder = new TextEncoder();

  function hexToBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function bytesToHex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }

  /* The page's own SHA-256 and HMAC, used only where the browser withholds WebCrypto (a page
   * served over plain http from a host other than this machine). */
  var K256 = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ]);
  function sha256js(message) {
    var length = message.length;
    var padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(message);
    padded[length] = 0x80;
    var view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    var h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    var w = new Uint32Array(64);
    for (var off = 0; off < padded.length; off += 64) {
      for (var t = 0; t < 16; t++) w[t] = view.getUint32(off + 4 * t);
      for (t = 16; t < 64; t++) {
        var a15 = w[t - 15], a2 = w[t - 2];
        var s0 = ((a15 >>> 7) | (a15 << 25)) ^ ((a15 >>> 18) | (a15 << 14)) ^ (a15 >>> 3);
        var s1 = ((a2 >>> 17) | (a2 << 15)) ^ ((a2 >>> 19) | (a2 << 13)) ^ (a2 >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
      }
      var A = h[0], B = h[1], C = h[2], D = h[3], E = h[4], F = h[5], G = h[6], H = h[7];
      for (t = 0; t < 64; t++) {
        var S1 = ((E >>> 6) | (E << 26)) ^ ((E >>> 11) | (E << 21)) ^ ((E >>> 25) | (E << 7));
        var t1 = (H + S1 + ((E & F) ^ (~E & G)) + K256[t] + w[t]) >>> 0;
        var S0 = ((A >>> 2) | (A << 30)) ^ ((A >>> 13) | (A << 19)) ^ ((A >>> 22) | (A << 10));
        var t2 = (S0 + ((A & B) ^ (A & C) ^ (B & C))) >>> 0;
        H = G; G = F; F = E; E = (D + t1) >>> 0; D = C; C = B; B = A; A = (t1 + t2) >>> 0;
      }
      h[0] += A; h[1] += B; h[2] += C; h[3] += D; h[4] += E; h[5] += F; h[6] += G; h[7] += H;
    }
    var out = new Uint8Array(32);
    var outView = new DataView(out.buffer);
    for (var i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
    return out;
  }
  function hmacJs(key, message) {  // key: the 32 seed bytes (never longer than a block)
    var inner = new Uint8Array(64 + message.length);
    var outer = new Uint8Array(64 + 32);
    for (var i = 0; i < 64; i++) {
      var k = i < key.length ? key[i] : 0;
      inner[i] = k ^ 0x36;
      outer[i] = k ^ 0x5c;
    }
    inner.set(message, 64);
    outer.set(sha256js(inner), 64);
    return sha256js(outer);
  }

  function cryptoEngine() {
    var forced = /(^|[#&])engine=js(&|$)/.test(location.hash);
    var subtle = window.crypto && window.crypto.subtle;
    if (subtle && !forced) {
      return {
        name: "webcrypto",
        sha256: function (bytes) {
          return subtle.digest("SHA-256", bytes).then(function (d) { return new Uint8Array(d); });
        },
        hmacKey: function (seed) {
          return subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
        },
        hmac: function (key, message) {
          return subtle.sign("HMAC", key, message).then(function (d) { return new Uint8Array(d); });
        }
      };
    }
    return {
      name: "javascript",
      sha256: function (bytes) { return Promise.resolve(sha256js(bytes)); },
      hmacKey: function (seed) { return Promise.resolve(seed); },
      hmac: function (key, message) { return Promise.resolve(hmacJs(key, message)); }
    };
  }

  function asBigInt(value) {
    if (typeof value === "bigint") return value;
    if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
    return null;
  }

  /* The k-th roll: X <= 0 gives 0 with no randomness; else HMAC-SHA256(seed, label:c), the
   * first 8 bytes big-endian, accepted below 2^64 - (2^64 mod X) (rejection sampling). */
  async function deriveRoll(engine, key, label, sides) {
    if (sides <= BigInt(0)) return BigInt(0);
    var limit = TWO_64 - (TWO_64 % sides);
    for (var counter = 0; ; counter++) {
      var h = await engine.hmac(key, encoder.encode(label + ":" + counter));
      var v = BigInt(0);
      for (var i = 0; i < 8; i++) v = (v << BigInt(8)) | BigInt(h[i]);
      if (v < limit) return v % sides + BigInt(1);
    }
  }

  /* The dice values a round's log states, in order: every match of the ruleset's pattern,
   * the groups that took part, each possibly a list "1, 2, 5". */
  function statedValues(log) {
    var values = [];
    log.forEach(function (line) {
      logPattern.lastIndex = 0;
      var m;
      while ((m = logPattern.exec(String(line))) !== null) {
        if (m[0] === "") { logPattern.lastIndex++; continue; }
        for (var g = 1; g < m.length; g++) {
          if (m[g] !== undefined) values = values.concat(m[g].split(", "));
        }
      }
    });
    return values;
  }

  /* The k of a roll's label duel:D:round:N:roll:k, or null. */
  function labelIndex(label) {
    var m = /^duel:[^:]+:round:[^:]+:roll:(\d+)$/.exec(String(label));
    return m ? Number(m[1]) : null;
  }

  function mark(node, ok, text, reasons) {
    node.setAttribute("data-verify", ok ? "ok" : "mismatch");
    if (reasons && reasons.length) node.setAttribute("data-mismatch", reasons.join("; "));
    else node.removeAttribute("data-mismatch");
    if (text !== null) {
      var check = node.querySelector(".check");
      if (check) check.textContent = text;
    }
  }

  var running = false;

  async function verifyAll() {
    if (running) return;
    running = true;
    var button = document.getElementById("verify-button");
    var summary = document.getElementById("verify-summary");
    button.disabled = true;
    ["data-total", "data-ok", "data-rounds", "data-rounds-ok", "data-result", "data-engine",
     "data-dice", "data-log", "data-outcome"].forEach(function (a) {
      summary.removeAttribute(a);
    });
    summary.setAttribute("data-state", "running");
    summary.textContent = t("checking");
    document.querySelectorAll("[data-verify]").forEach(function (n) { n.removeAttribute("data-verify"); });
    try {
      var engine = cryptoEngine();
      summary.setAttribute("data-engine", engine.name);
      var total = 0, ok = 0, roundsChecked = 0, roundsOk = 0;
      for (var ri = 0; ri < rounds.length; ri++) {
        var r = rounds[ri];
        var section = document.getElementById("round-" + r.number);
        var badge = section.querySelector(".badge.verify");
        var result = isObject(r.result) ? r.result : null;
        var rolls = result && Array.isArray(result.rolls) ? result.rolls : [];
        if (!result && (r.seed === null || r.seed === undefined)) {
          section.setAttribute("data-verify", "sealed");
          continue;
        }
        roundsChecked++;
        var problems = [];
        var seed = typeof r.seed === "string" ? r.seed.toLowerCase() : "";
        var seedOk = /^[0-9a-f]{64}$/.test(seed);
        var commitOk = false;
        var key = null;
        var checkLine = section.querySelector('[data-check="commitment"]');
        if (!seedOk) {
          problems.push(t("seed_not_hex"));
        } else {
          var seedBytes = hexToBytes(seed);
          var digest = bytesToHex(await engine.sha256(seedBytes));
          commitOk = digest === String(r.commitment).toLowerCase();
          if (!commitOk) problems.push(t("seed_digest", { digest: digest }));
          key = await engine.hmacKey(seedBytes);
        }
        if (!result) problems.push(t("seed_without_result"));
        if (checkLine) {
          checkLine.textContent = commitOk
            ? "\u2714 " + t("commitment_ok")
            : "\u2718 " + problems.join("; ");
        }
        var stated = logPattern ? statedValues(Array.isArray(result && result.log) ? result.log : []) : null;
        var misnumbered = false, miscited = false, foreignDie = false;
        // Every number 0 .. n-1 there (only their order wrong), or not (a roll is missing)?
        var numbersComplete = rolls.map(function (x) { return labelIndex(get(x, "label")); })
          .sort(function (x, y) { return x - y; })
          .every(function (x, i) { return x === i; });
        var rollsOk = 0;
        for (var k = 0; k < rolls.length; k++) {
          total++;
          var roll = rolls[k];
          var node = document.getElementById("round-" + r.number + "-roll-" + k);
          var reasons = [];
          var expectedLabel = "duel:" + data.duel_id + ":round:" + r.number + ":roll:" + k;
          // Every roll number 0, 1, 2, ... present and in order: a deleted or moved roll
          // leaves a gap or a step back here.
          var index = labelIndex(get(roll, "label"));
          if (index !== k) {
            misnumbered = true;
            reasons.push(index === null ? t("no_roll_number")
              : t(numbersComplete ? "out_of_order" : "missing_before", { index: index, place: k }));
          }
          if (get(roll, "label") !== expectedLabel) reasons.push(t("label_should_be", { label: expectedLabel }));
          var sides = asBigInt(get(roll, "sides"));
          var value = asBigInt(get(roll, "value"));
          var derived = null;
          // A die the ruleset never rolls (DICE0 gives 0 from any seed, so it "re-derives").
          if (sides !== null && allowedDice !== null && allowedDice.indexOf(String(sides)) < 0) {
            foreignDie = true;
            reasons.push(t("foreign_die", { die: dieText(sides),
              dice: allowedDice.map(function (x) { return dieText(BigInt(x)); }).join(", ") }));
          }
          // The log must state this roll's value at this place.
          if (stated !== null) {
            if (k >= stated.length) { miscited = true; reasons.push(t("log_lacks_roll")); }
            else if (stated[k] !== String(get(roll, "value"))) {
              miscited = true;
              reasons.push(t("log_states_other", { stated: stated[k], value: formatValue(get(roll, "value")) }));
            }
          }
          if (sides === null) reasons.push(t("die_not_whole"));
          else if (sides > TWO_64) reasons.push(t("die_too_big"));
          else if (key !== null) {
            derived = await deriveRoll(engine, key, expectedLabel, sides);
            if (value === null || value !== derived) {
              reasons.push(t("published_derived", { value: formatValue(get(roll, "value")), derived: derived }));
            }
          }
          if (!commitOk) reasons.push(t("round_seed_bad"));
          var good = reasons.length === 0;
          if (node) {
            if (derived !== null) node.setAttribute("data-derived", String(derived));
            mark(node, good, good ? "\u2714 " + t("rederived", { value: derived }) : "\u2718 " + reasons[0], reasons);
          }
          if (good) { ok++; rollsOk++; }
          summary.textContent = t("checking_so_far", { count: total });
        }
        if (misnumbered) problems.push(t("misnumbered", { last: rolls.length - 1 }));
        if (foreignDie) problems.push(t("foreign_die_round"));
        if (stated !== null && stated.length > rolls.length) {
          miscited = true;
          problems.push(t("log_states_more", { count: stated.length, recorded: rolls.length }));
        }
        if (miscited) problems.push(t("log_not_exact"));
        var roundGood = problems.length === 0 && rollsOk === rolls.length;
        if (roundGood) roundsOk++;
        mark(section, roundGood, null, problems);
        // Why, in words on the round itself (a missing roll has no roll of its own to mark).
        var why = section.querySelector(".round-problems");
        if (!why) {
          why = el("p", { className: "round-problems" });
          section.insertBefore(why, section.querySelector(".round-head").nextSibling);
        }
        why.hidden = roundGood;
        why.textContent = roundGood ? "" : "\u2718 " + (problems.length ? problems.join("; ")
          : t("rolls_differ", { bad: rolls.length - rollsOk, count: rolls.length }));
        badge.textContent = roundGood ? "\u2714 " + t("badge_verified") : "\u2718 " + t("badge_mismatch");
        badge.className = "badge verify " + (roundGood ? "verify-ok" : "verify-mismatch");
      }
      var allGood = ok === total && roundsOk === roundsChecked;
      summary.setAttribute("data-total", String(total));
      summary.setAttribute("data-ok", String(ok));
      summary.setAttribute("data-rounds", String(roundsChecked));
      summary.setAttribute("data-rounds-ok", String(roundsOk));
      summary.setAttribute("data-result", allGood ? "ok" : "mismatch");
      summary.setAttribute("data-dice", allowedDice !== null ? "checked" : "unchecked");
      summary.setAttribute("data-log", logPattern !== null ? "checked" : "unchecked");
      summary.setAttribute("data-outcome", "not-checked");
      var checks = "checks_" + (allowedDice !== null ? (logPattern !== null ? "dice_log" : "dice")
        : (logPattern !== null ? "log" : "basic"));
      var text = (allGood ? "\u2714 " : "\u2718 ") + t("summary_rolls", { ok: ok, count: total }) + " " +
        t("summary_rounds", { ok: roundsOk, count: roundsChecked, checks: t(checks) });
      if (allowedDice === null) text += " " + t("dice_unchecked");
      if (logPattern === null) text += " " + t("log_unchecked");
      text += " " + t("outcome_unchecked", { command: verifyCommand });
      if (engine.name !== "webcrypto") text += " " + t("own_sha");
      summary.textContent = text;
      summary.setAttribute("data-state", "done");
    } catch (err) {
      summary.setAttribute("data-state", "error");
      summary.textContent = t("check_failed", { error: err && err.message ? err.message : String(err) });
    } finally {
      button.disabled = false;
      running = false;
    }
  }

  function downloadJson() {
    var blob = new Blob([raw], { type: "application/json" });
    var link = el("a", { href: URL.createObjectURL(blob), download: "duel-" + data.duel_id + ".json" });
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  renderHeader();
  document.getElementById("verify-command").textContent = verifyCommand;
  renderDuellists();
  renderRules();
  var roundsBox = document.getElementById("rounds");
  rounds.forEach(function (r) { roundsBox.appendChild(renderRound(r)); });
  document.getElementById("verify-button").addEventListener("click", verifyAll);
  document.getElementById("download-json").addEventListener("click", downloadJson);
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.setAttribute("open", ""); });
  });
  if (/(^|[#&])verify(&|$)/.test(location.hash)) verifyAll();
})();
