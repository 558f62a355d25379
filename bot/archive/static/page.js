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

  function nameOf(side) {
    var fromDuellists = get(get(data.duellists, side), "name");
    if (typeof fromDuellists === "string" && fromDuellists) return fromDuellists;
    var fighter = get(get(data, "fighters"), side);
    if (typeof get(fighter, "name") === "string") return fighter.name;
    return "Duellist " + String(side).toUpperCase();
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
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "bigint" || typeof v === "number") return String(v);
    if (typeof v === "string") return v === "" ? "\u2014" : v;
    if (Array.isArray(v)) return v.length ? v.map(formatValue).join(", ") : "none";
    if (isObject(v)) {
      var keys = Object.keys(v);
      if (!keys.length) return "none";
      return keys.map(function (k) { return humanize(k) + ": " + formatValue(v[k]); }).join("; ");
    }
    return String(v);
  }

  function when(iso) {
    if (typeof iso !== "string" || !iso) return null;
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
    var title = "Duel #" + data.duel_id + ": " + nameOf("a") + " vs " + nameOf("b");
    document.title = title;
    document.getElementById("duel-title").textContent = title;
    var ruleset = data.ruleset_title || data.ruleset || "unknown ruleset";
    var status = data.status === "ended"
      ? (data.winner_name ? "won by " + data.winner_name : "ended")
      : String(data.status || "");
    document.getElementById("duel-subtitle").textContent = ruleset + " \u00b7 " + status;

    var undone = rounds.filter(function (r) { return r.status === "undone"; }).length;
    facts(document.getElementById("duel-facts"), [
      ["Duel", "#" + data.duel_id],
      ["Ruleset", data.ruleset_title ? data.ruleset_title + " (" + data.ruleset + ")" : data.ruleset],
      ["Status", data.status + (data.end_kind ? " (" + humanize(data.end_kind).toLowerCase() + ")" : "")],
      ["Winner", data.winner_name || (data.status === "ended" ? "none" : null)],
      ["How it ended", data.end_reason],
      ["Started", when(data.created_at)],
      ["Ended", when(data.ended_at)],
      ["Rounds", rounds.length + (undone ? " (" + undone + " undone)" : "")],
      ["Rolls", rollCount()],
      ["Export format", data.format ? data.format + (data.version !== undefined ? " v" + data.version : "") : null],
      ["Exported", when(data.exported_at)]
    ]);
  }

  /* The sheet of a side as snapshotted: the export's own snapshot when it has one, else the
   * state before the first round, else the state after the first round with a result. */
  function sheetOf(side) {
    var candidates = [
      [get(get(data, "fighters"), side), "as snapshotted when the duel started"],
      [get(get(data.duellists, side), "sheet"), "as snapshotted when the duel started"],
      [get(get(rounds[0], "state_before"), side), "before round " + get(rounds[0], "number")]
    ];
    for (var i = 0; i < rounds.length; i++) {
      var st = get(get(rounds[i], "result"), "state");
      if (isObject(get(st, side))) {
        candidates.push([st[side], "after round " + rounds[i].number + " (this export has no snapshot of the start)"]);
        break;
      }
    }
    candidates.push([data.duellists && data.duellists[side], "as exported"]);
    for (var j = 0; j < candidates.length; j++) {
      if (isObject(candidates[j][0])) return candidates[j];
    }
    return [{}, "not in this export"];
  }

  function renderDuellists() {
    var box = document.getElementById("duellists");
    SIDES.forEach(function (side) {
      var found = sheetOf(side);
      var heading = el("h2", null, nameOf(side));
      if (data.winner === side) heading.appendChild(el("span", { className: "winner", text: "winner" }));
      box.appendChild(el("article", { className: "duellist", "data-side": side },
        el("p", { className: "kicker", text: "Duellist " + side.toUpperCase() }),
        heading,
        el("p", { className: "source muted", text: "Sheet " + found[1] }),
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
        facts(dl, [[humanize(p) + " (house rule)", houseRules[p]]]);
        listed = true;
      });
    }
    if (!listed) dl.appendChild(el("dd", { className: "muted", text: "This export lists no options." }));
  }

  /* Which log line each roll fed. An explicit roll.log_index wins; otherwise consecutive
   * rolls for the same side and purpose form a group, fed to the first line from the last
   * match on that names the roller and, after the word "roll", gives the group's values one
   * after another (then the same without the name). A guess from the text, shown as such. */
  function numbersAfterRoll(line) {  // the numbers after the first "roll" of the line
    var at = String(line).search(/roll/i);
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
    if (indices.length === 1) return "roll #" + indices[0];
    return "rolls #" + indices[0] + "\u2013#" + indices[indices.length - 1];
  }

  /* A round's name in its ruleset's words: the label its close fixed ("Step 4", "Round 1,
   * forfeit choice"), else "Round N" (a result published before labels, an open round). */
  function roundName(r, result) {
    var label = get(result, "label");
    if (typeof label === "string" && label) return label.charAt(0).toUpperCase() + label.slice(1);
    return "Round " + r.number;
  }

  function renderRound(r) {
    var number = r.number;
    var result = isObject(r.result) ? r.result : null;
    var section = el("section", {
      className: "round", id: "round-" + number, "data-round": number, "data-status": r.status
    });
    var head = el("div", { className: "round-head" },
      el("h2", { text: roundName(r, result) }),
      r.status === "undone" ? el("span", { className: "badge undone", text: "undone" }) : null,
      r.status === "open" ? el("span", { className: "badge", text: "open" }) : null,
      el("span", { className: "badge verify", text: result ? "not checked" : "sealed" }));
    section.appendChild(head);

    if (r.status === "undone") {
      var who = r.undone_by_name || (r.undone_by ? "user " + r.undone_by : null);
      section.appendChild(el("p", { className: "note" },
        "Undone" + (who ? " by " + who : "") + (r.undone_at ? " on " + when(r.undone_at) : "") +
        (r.undo_reason ? ": " + r.undo_reason : "") +
        ". Kept in the ledger; its rolls still come from its committed seed."));
    }
    var follows = get(result, "follows_undo_of");
    if (follows !== undefined && follows !== null) {
      section.appendChild(el("p", { className: "note", text: "This result follows the undo of round " + follows + "." }));
    }

    if (!result) {
      section.appendChild(el("p", { className: "muted",
        text: "This round is still open: its moves and its seed stay secret until it closes." }));
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
        label = choice === null || choice === undefined ? "no move" : humanize(choice);
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
      outcomeText = humanize(outcome || "no outcome");
      if (winner === "a" || winner === "b") outcomeText += ": " + nameOf(winner) + " wins";
      if (get(result, "ended")) outcomeText += " (the duel ends)";
      else if (get(result, "locked") === true) outcomeText += " (locked in combat)";
    }
    section.appendChild(el("p", { className: "outcome" }, "Outcome: ", outcomeText));
    var resultFacts = get(result, "facts");
    if (Array.isArray(resultFacts) && resultFacts.length) {
      // The ruleset's own facts of the result (rule 2.14: "Locked in combat").
      section.appendChild(el("p", { className: "muted", text: resultFacts.map(function (f) {
        return Array.isArray(f) ? f[0] + ": " + f[1] : String(f);
      }).join(" \u00b7 ") }));
    }
    var closedText = [r.closed_at ? "Closed " + when(r.closed_at) : null,
      r.close_reason ? "(" + humanize(r.close_reason).toLowerCase() + ")" : null].filter(Boolean).join(" ");
    if (closedText) section.appendChild(el("p", { className: "muted", text: closedText }));

    var rolls = Array.isArray(result.rolls) ? result.rolls : [];
    var log = Array.isArray(result.log) ? result.log : [];
    var fed = feedMap(rolls, log);
    section.appendChild(el("h3", { text: "Rolls (" + rolls.length + ")" }));
    if (!rolls.length) {
      section.appendChild(el("p", { className: "muted", text: "No dice were rolled in this round." }));
    } else {
      var list = el("ol", { className: "rolls" });
      rolls.forEach(function (roll, k) {
        var purpose = get(roll, "purpose");
        var what = el("span", { className: "what" },
          nameOf(get(roll, "for")) + (purpose ? " \u00b7 " + humanize(purpose) : ""));
        if (fed[k] !== null) {
          what.appendChild(document.createTextNode(" "));
          what.appendChild(el("span", { className: "fed" }, "\u2192 ",
            el("a", { href: "#round-" + number + "-log-" + fed[k], text: "log step " + (fed[k] + 1) })));
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

    section.appendChild(el("h3", { text: "Log, with the rules cited" }));
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
    [[stateBefore, "State before the round"], [stateAfter, "State after the round"]].forEach(function (pair) {
      if (!isObject(pair[0])) return;
      var grid = el("div", { className: "state-grid" });
      SIDES.forEach(function (side) {
        if (isObject(pair[0][side])) grid.appendChild(el("div", null, el("strong", { text: nameOf(side) }), sheetFacts(pair[0][side])));
      });
      var rest = {};
      Object.keys(pair[0]).forEach(function (k) { if (SIDES.indexOf(k) < 0) rest[k] = pair[0][k]; });
      if (Object.keys(rest).length) grid.appendChild(el("div", null, el("strong", { text: "Duel" }), sheetFacts(rest)));
      section.appendChild(el("details", null, el("summary", { text: pair[1] }), grid));
    });
    var roundOptions = get(result, "options");
    if (isObject(roundOptions) && JSON.stringify(roundOptions) !== JSON.stringify(data.options)) {
      section.appendChild(el("p", { className: "muted", text: "Options used: " + formatValue(roundOptions) }));
    }
    return section;
  }

  function proofList(r) {
    return facts(el("dl", { className: "proof" }), [
      ["Commitment", r.commitment],
      ["Seed", r.seed === null || r.seed === undefined ? "secret until the round closes" : r.seed],
      ["Check", el("span", { className: "check-line", "data-check": "commitment", text: r.seed ? "not checked yet" : "nothing to check yet" })]
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
    summary.textContent = "Checking\u2026";
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
          problems.push("the seed is not 64 hexadecimal characters");
        } else {
          var seedBytes = hexToBytes(seed);
          var digest = bytesToHex(await engine.sha256(seedBytes));
          commitOk = digest === String(r.commitment).toLowerCase();
          if (!commitOk) problems.push("SHA-256 of the seed is " + digest + ", not the published commitment");
          key = await engine.hmacKey(seedBytes);
        }
        if (!result) problems.push("a seed without a published result");
        if (checkLine) {
          checkLine.textContent = commitOk
            ? "\u2714 SHA-256(seed) is the commitment: the seed was fixed before the round opened"
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
            reasons.push(index === null ? "it has no roll number"
              : "it is roll #" + index + " in place " + k + (numbersComplete
                ? ": the rolls are out of order" : ": a roll before it is missing or moved"));
          }
          if (get(roll, "label") !== expectedLabel) reasons.push("its label should be " + expectedLabel);
          var sides = asBigInt(get(roll, "sides"));
          var value = asBigInt(get(roll, "value"));
          var derived = null;
          // A die the ruleset never rolls (DICE0 gives 0 from any seed, so it "re-derives").
          if (sides !== null && allowedDice !== null && allowedDice.indexOf(String(sides)) < 0) {
            foreignDie = true;
            reasons.push("a " + dieText(sides) + " is not one of this duel's dice (" +
              allowedDice.map(function (x) { return dieText(BigInt(x)); }).join(", ") + ")");
          }
          // The log must state this roll's value at this place.
          if (stated !== null) {
            if (k >= stated.length) { miscited = true; reasons.push("the log does not state this roll"); }
            else if (stated[k] !== String(get(roll, "value"))) {
              miscited = true;
              reasons.push("the log states " + stated[k] + " here, not " + formatValue(get(roll, "value")));
            }
          }
          if (sides === null) reasons.push("its die is not a whole number of sides");
          else if (sides > TWO_64) reasons.push("a die of more than 2^64 sides cannot be derived");
          else if (key !== null) {
            derived = await deriveRoll(engine, key, expectedLabel, sides);
            if (value === null || value !== derived) {
              reasons.push("published " + formatValue(get(roll, "value")) + ", re-derived " + derived);
            }
          }
          if (!commitOk) reasons.push("its round's seed does not match the commitment");
          var good = reasons.length === 0;
          if (node) {
            if (derived !== null) node.setAttribute("data-derived", String(derived));
            mark(node, good, good ? "\u2714 re-derived " + derived : "\u2718 " + reasons[0], reasons);
          }
          if (good) { ok++; rollsOk++; }
          summary.textContent = "Checking\u2026 " + total + " rolls so far";
        }
        if (misnumbered) problems.push("its rolls are not numbered 0 to " + (rolls.length - 1) + " in order: a roll is missing or moved");
        if (foreignDie) problems.push("a roll uses a die this duel never rolls");
        if (stated !== null && stated.length > rolls.length) {
          miscited = true;
          problems.push("its log states " + stated.length + " dice but " + rolls.length +
            " are recorded: a roll the log cites is not recorded");
        }
        if (miscited) problems.push("its log does not state exactly its recorded rolls");
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
          : (rolls.length - rollsOk) + " of its " + rolls.length + " rolls do not match (marked below)");
        badge.textContent = roundGood ? "\u2714 verified" : "\u2718 mismatch";
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
      var text = (allGood ? "\u2714 " : "\u2718 ") + ok + " of " + total + " rolls match; " +
        roundsOk + " of " + roundsChecked + " rounds verified (seed matches its commitment, every roll re-derived" +
        (allowedDice !== null ? ", numbered in order and one of the duel's dice" : ", numbered in order") +
        (logPattern !== null ? ", stated by the log" : "") + ").";
      if (allowedDice === null) text += " The dice were not checked against the ruleset's: it does not say which it rolls.";
      if (logPattern === null) text += " The log was not checked against the rolls: the ruleset does not say how its log states them.";
      text += " Not checked here: the outcome (who won); run " + verifyCommand + " for that.";
      if (engine.name !== "webcrypto") text += " Computed with the page's own SHA-256: this browser withholds WebCrypto here.";
      summary.textContent = text;
      summary.setAttribute("data-state", "done");
    } catch (err) {
      summary.setAttribute("data-state", "error");
      summary.textContent = "The check could not run: " + (err && err.message ? err.message : String(err));
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
