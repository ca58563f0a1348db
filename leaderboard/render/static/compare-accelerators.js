// The accelerator compare page: two accelerators side by side on every MLPerf benchmark lineage
// both ran, the pair chosen at build time (same benchmark, same or nearest chip count, nearest
// rounds), and what makes a pair not like for like called out above the table. Data: data/accelerator-results.js (a script, for file://).
(function () {
  "use strict";
  var data = window.leaderboardAccelerators;
  var root = document.getElementById("compare-accelerators");
  if (!data || !root) return;
  root.hidden = false;
  var selects = [document.getElementById("accelerator-a"), document.getElementById("accelerator-b")];
  var status = document.getElementById("pair-status");
  var callouts = document.getElementById("pair-callouts");
  var table = document.getElementById("pair-table");
  var base = (document.querySelector('link[rel="stylesheet"]').getAttribute("href") || "").replace(/static\/site\.css$/, "");

  function number(value, digits) {
    if (value === null || value === undefined) return "—";
    return Number.isInteger(value) ? value.toLocaleString("en-US") :
      value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  function usd(value) {
    if (value === null || value === undefined) return "n/a";
    return "$" + value.toLocaleString("en-US", value >= 100 ? { maximumFractionDigits: 0 } :
      { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  // A system of processors alone (cpu_only) counts CPUs where the others count accelerator chips,
  // and its chip-hours are processor-hours.
  function count(row) {
    return number(row.chips, 0) + (row.cpu_only ? " CPU" : " chip") + (row.chips === 1 ? "" : "s");
  }
  function hoursUnit(row) { return row.cpu_only ? "processor-hours" : "chip-hours"; }
  function name(id) {
    var option = selects[0].querySelector('option[value="' + CSS.escape(id) + '"]');
    return option ? option.textContent : id;
  }
  function comparable(row) { return row.division === "closed" && row.availability === "available"; }
  function benchmarkLabel(row) {
    var segment = data.segments[row.segment];
    return segment ? segment.label : row.benchmark_name + " (target " + row.quality_target + ")";
  }
  // The pair per benchmark lineage was chosen when the site was built (leaderboard/render/pairs.py):
  // same benchmark, both trusted, the same or nearest chip count, the nearest rounds.
  function pairsOf(first, second) {
    var swapped = first > second;
    var found = data.pairs[swapped ? second + " " + first : first + " " + second] || [];
    return found.map(function (item) {
      var x = data.results[item[1]], y = data.results[item[2]];
      var pair = swapped ? { a: y, b: x } : { a: x, b: y };
      pair.lineage = data.lineages[item[0]];
      pair.sameRound = pair.a.round === pair.b.round;
      pair.sameUnit = !pair.a.cpu_only === !pair.b.cpu_only;
      pair.sameScale = pair.a.chips === pair.b.chips && pair.sameUnit;
      pair.sameBenchmark = pair.a.segment === pair.b.segment;
      pair.trusted = pair.a.verified && pair.b.verified && pair.a.ranked && pair.b.ranked && comparable(pair.a) && comparable(pair.b);
      return pair;
    });
  }
  function notesFor(title, pair) {
    var notes = [];
    var a = pair.a, b = pair.b;
    if (!pair.sameBenchmark) {
      notes.push(title + ": different benchmarks or quality targets (" + benchmarkLabel(a) + " and " + benchmarkLabel(b) + ").");
    }
    if (!pair.sameUnit) {
      var cpu = a.cpu_only ? a : b;
      notes.push(title + ", " + name(cpu.accelerator) + ": a system of processors alone; its count (" + count(cpu) +
        ") is of processors, not accelerator chips, and its chip-hours are processor-hours: not like for like.");
    } else if (!pair.sameScale) {
      notes.push(title + ": different " + (a.cpu_only ? "CPU" : "chip") + " counts (" + count(a) + " and " + count(b) +
        "; the nearest the two ran): times at different scales are not like for like.");
    }
    if (!pair.sameRound) {
      notes.push(title + ": results from different rounds (" + data.rounds[a.round].name + " and " +
        data.rounds[b.round].name + "); software, rules and systems changed in between.");
    }
    [a, b].forEach(function (row) {
      var who = name(row.accelerator);
      if (row.division === "open") {
        var reference = data.segments[row.segment] ? data.segments[row.segment].reference_model : null;
        notes.push(title + ", " + who + ": open division, " + (row.model ? "model " + row.model : "a model or rules of its own") +
          (reference ? ", not the reference " + reference : "") + ".");
      }
      if (row.availability !== "available") notes.push(title + ", " + who + ": a " + row.availability + " system, not commercially available.");
      if (!row.verified) notes.push(title + ", " + who + ": self-reported; Result not verified by MLCommons Association.");
    });
    return notes;
  }
  function cell(tag, text) {
    var element = document.createElement(tag);
    element.textContent = text;
    return element;
  }
  // Every cell names what MLPerf's guidelines ask a comparison to name: the benchmark, round,
  // division, chip count and availability, and whether MLCommons verified the result.
  function resultCell(row) {
    var td = document.createElement("td");
    var link = cell("a", number(row.minutes, 3) + " min");
    link.href = base + row.path;
    td.appendChild(link);
    td.appendChild(document.createElement("br"));
    var said = benchmarkLabel(row) + ", " + data.rounds[row.round].name + ", " + row.division + " division, " +
      count(row) + ", " + row.availability + "; " + number(row.chip_hours, 1) + " " + hoursUnit(row) + ", ";
    var who = "; " + row.submitter + (row.framework ? ", " + row.framework : "");
    if (row.cost !== null && row.cost !== undefined) {
      td.appendChild(cell("small", said + usd(row.cost) + " on-demand" + (row.cost_mark ? " (" + row.cost_mark + ")" : "") + who));
    } else {
      // Why there is no cost, behind the "n/a" itself (keyboard and touch reach it; a title does not).
      td.appendChild(cell("small", said));
      var details = document.createElement("details");
      details.className = "na in-small";
      details.appendChild(cell("summary", "n/a on-demand"));
      details.appendChild(cell("p", row.cost_note || "no on-demand price in the catalog"));
      td.appendChild(details);
      td.appendChild(cell("small", who));
    }
    if (!row.verified) {
      td.appendChild(document.createElement("br"));
      var note = cell("small", "Self-reported: Result not verified by MLCommons Association");
      note.className = "unverified";
      td.appendChild(note);
    }
    return td;
  }
  // The URL fragment names the pair, #<first>-vs-<second> (ids may hold hyphens: the split is
  // the one that names two accelerators of the page); the older #a=<first>&b=<second> is read too.
  function known(id) { return !!(id && selects[0].querySelector('option[value="' + CSS.escape(id) + '"]')); }
  function fromHash() {
    var hash = decodeURIComponent(location.hash.replace(/^#/, ""));
    if (hash.indexOf("=") >= 0) {
      var params = new URLSearchParams(hash);
      return [params.get("a") || "", params.get("b") || ""];
    }
    var at = hash.indexOf("-vs-");
    while (at >= 0) {
      var first = hash.slice(0, at), second = hash.slice(at + 4);
      if (known(first) && known(second)) return [first, second];
      at = hash.indexOf("-vs-", at + 1);
    }
    return [known(hash) ? hash : "", ""];
  }
  function toHash(ids) {
    if (ids[0] && ids[1]) return "#" + ids[0] + "-vs-" + ids[1];
    return ids[0] ? "#" + ids[0] : "";
  }
  function render() {
    var ids = selects.map(function (s) { return s.value; });
    var hash = toHash(ids);
    if (hash !== location.hash) history.replaceState(null, "", hash || location.pathname + location.search);
    table.hidden = true;
    callouts.hidden = true;
    if (!ids[0] || !ids[1]) { status.textContent = "Pick two accelerators."; return; }
    if (ids[0] === ids[1]) { status.textContent = "Pick two different accelerators."; return; }
    var pairs = pairsOf(ids[0], ids[1]);
    if (!pairs.length) { status.textContent = name(ids[0]) + " and " + name(ids[1]) + " ran no MLPerf benchmark in common."; return; }
    status.textContent = name(ids[0]) + " and " + name(ids[1]) + " both ran " + pairs.length + " benchmark" + (pairs.length > 1 ? "s" : "") + ".";
    var notes = [];
    pairs.forEach(function (p) { notes = notes.concat(notesFor(p.lineage.title, p)); });
    var list = callouts.querySelector("ul");
    list.textContent = "";
    notes.forEach(function (text) { list.appendChild(cell("li", text)); });
    callouts.hidden = !notes.length;
    var head = table.tHead, body = table.tBodies[0];
    head.textContent = "";
    body.textContent = "";
    var tr = document.createElement("tr");
    ["Benchmark", name(ids[0]), name(ids[1]), "Speed-up of the second"].forEach(function (text) {
      var th = cell("th", text);
      th.scope = "col";
      tr.appendChild(th);
    });
    head.appendChild(tr);
    pairs.forEach(function (p) {
      var row = document.createElement("tr");
      var th = cell("th", p.lineage.title);
      th.scope = "row";
      row.appendChild(th);
      row.appendChild(resultCell(p.a));
      row.appendChild(resultCell(p.b));
      // A speed-up only between like results: same benchmark and chip count, both verified,
      // closed-division and available; from two rounds it says so.
      var like = p.sameBenchmark && p.sameScale && p.trusted;
      var ratio = number(p.a.minutes / p.b.minutes, 2) + "×";
      row.appendChild(cell("td", !like ? "not like for like" : p.sameRound ? ratio : ratio + " (different rounds)"));
      row.dataset.like = !like ? "no" : p.sameRound ? "yes" : "rounds";
      body.appendChild(row);
    });
    table.hidden = false;
  }
  function follow() {
    fromHash().forEach(function (id, i) { selects[i].value = known(id) ? id : ""; });
    render();
  }
  selects.forEach(function (s) { s.addEventListener("change", render); });
  window.addEventListener("hashchange", follow);
  follow();
})();
