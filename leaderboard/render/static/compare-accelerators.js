// The accelerator compare page: two accelerators side by side on every MLPerf benchmark both
// ran, from the same round where they met, else each one's latest, and what makes a pair not
// like for like called out above the table. Data: data/accelerator-results.js (a script, for file://).
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
  function name(id) {
    var option = selects[0].querySelector('option[value="' + CSS.escape(id) + '"]');
    return option ? option.textContent : id;
  }
  function roundDate(row) { return data.rounds[row.round] ? data.rounds[row.round].date : ""; }
  function comparable(row) { return row.division === "closed" && row.availability === "available"; }
  function fastest(rows) {
    return rows.slice().sort(function (x, y) { return x.minutes - y.minutes || (x.id < y.id ? -1 : 1); })[0];
  }
  function preferred(rows) {
    var closed = rows.filter(comparable);
    return closed.length ? closed : rows;
  }
  function latest(rows) {
    var newest = rows.reduce(function (best, row) { return roundDate(row) > best ? roundDate(row) : best; }, "");
    return fastest(rows.filter(function (row) { return roundDate(row) === newest; }));
  }
  // The pair for one benchmark lineage: same round (and segment) where both ran, the latest
  // such; in it the largest chip count both ran; else each one's latest result.
  function pick(rowsA, rowsB) {
    rowsA = preferred(rowsA);
    rowsB = preferred(rowsB);
    var key = function (row) { return row.segment + "|" + row.round; };
    var keysB = {};
    rowsB.forEach(function (row) { keysB[key(row)] = true; });
    var common = rowsA.filter(function (row) { return keysB[key(row)]; })
      .sort(function (x, y) { return roundDate(y).localeCompare(roundDate(x)) || key(x).localeCompare(key(y)); });
    if (!common.length) return { a: latest(rowsA), b: latest(rowsB), sameRound: false, sameScale: false };
    var shared = key(common[0]);
    var inA = rowsA.filter(function (row) { return key(row) === shared; });
    var inB = rowsB.filter(function (row) { return key(row) === shared; });
    var chipsB = inB.map(function (row) { return row.chips; });
    var counts = inA.map(function (row) { return row.chips; }).filter(function (c) { return chipsB.indexOf(c) >= 0; });
    if (!counts.length) return { a: fastest(inA), b: fastest(inB), sameRound: true, sameScale: false };
    var scale = Math.max.apply(null, counts);
    var at = function (row) { return row.chips === scale; };
    return { a: fastest(inA.filter(at)), b: fastest(inB.filter(at)), sameRound: true, sameScale: true };
  }
  function notesFor(title, pair) {
    var notes = [];
    var a = pair.a, b = pair.b;
    if (!pair.sameRound) {
      notes.push(title + ": results from different rounds (" + data.rounds[a.round].name + " and " +
        data.rounds[b.round].name + "); software, rules and systems changed in between.");
    }
    if (a.segment !== b.segment) {
      notes.push(title + ": different benchmarks or quality targets (" + data.segments[a.segment].label + " and " +
        data.segments[b.segment].label + ").");
    }
    if (!pair.sameScale) {
      notes.push(title + ": different chip counts (" + number(a.chips, 0) + " and " + number(b.chips, 0) +
        "): times at different scales are not like for like.");
    }
    [a, b].forEach(function (row) {
      var who = name(row.accelerator);
      if (row.division === "open") {
        var reference = data.segments[row.segment] ? data.segments[row.segment].reference_model : null;
        notes.push(title + ", " + who + ": open division, " + (row.model ? "model " + row.model : "a model or rules of its own") +
          (reference ? ", not the reference " + reference : "") + ".");
      }
      if (row.availability !== "available") notes.push(title + ", " + who + ": a " + row.availability + " system, not commercially available.");
    });
    return notes;
  }
  function cell(tag, text) {
    var element = document.createElement(tag);
    element.textContent = text;
    return element;
  }
  function resultCell(row) {
    var td = document.createElement("td");
    var link = cell("a", number(row.minutes, 3) + " min");
    link.href = base + row.path;
    td.appendChild(link);
    td.appendChild(document.createElement("br"));
    td.appendChild(cell("small", number(row.chips, 0) + " chips, " + data.rounds[row.round].name + ", " + row.division + ", " +
      row.availability + "; " + number(row.chip_hours, 1) + " chip-hours, " + usd(row.cost) + " on-demand" + (row.cost_mark ? " (" + row.cost_mark + ")" : "") + "; " + row.submitter));
    if (!row.verified) {
      td.appendChild(document.createElement("br"));
      var note = cell("small", "Result not verified by MLCommons Association");
      note.className = "unverified";
      td.appendChild(note);
    }
    return td;
  }
  function render() {
    var ids = selects.map(function (s) { return s.value; });
    var params = new URLSearchParams();
    if (ids[0]) params.set("a", ids[0]);
    if (ids[1]) params.set("b", ids[1]);
    history.replaceState(null, "", params.toString() ? "#" + params.toString() : location.pathname + location.search);
    table.hidden = true;
    callouts.hidden = true;
    if (!ids[0] || !ids[1]) { status.textContent = "Pick two accelerators."; return; }
    if (ids[0] === ids[1]) { status.textContent = "Pick two different accelerators."; return; }
    var pairs = [];
    data.lineages.forEach(function (lineage) {
      var rows = ids.map(function (id) {
        return data.results.filter(function (r) { return r.lineage === lineage.id && r.accelerator === id; });
      });
      if (rows[0].length && rows[1].length) pairs.push({ lineage: lineage, pair: pick(rows[0], rows[1]) });
    });
    if (!pairs.length) { status.textContent = name(ids[0]) + " and " + name(ids[1]) + " ran no MLPerf benchmark in common."; return; }
    status.textContent = name(ids[0]) + " and " + name(ids[1]) + " both ran " + pairs.length + " benchmark" + (pairs.length > 1 ? "s" : "") + ".";
    var notes = [];
    pairs.forEach(function (p) { notes = notes.concat(notesFor(p.lineage.title, p.pair)); });
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
      row.appendChild(resultCell(p.pair.a));
      row.appendChild(resultCell(p.pair.b));
      var like = p.pair.sameRound && p.pair.sameScale && p.pair.a.segment === p.pair.b.segment;
      row.appendChild(cell("td", like ? number(p.pair.a.minutes / p.pair.b.minutes, 2) + "×" : "not like for like"));
      row.dataset.like = like ? "yes" : "no";
      body.appendChild(row);
    });
    table.hidden = false;
  }
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));
  [params.get("a"), params.get("b")].forEach(function (id, i) {
    if (id && selects[i].querySelector('option[value="' + CSS.escape(id) + '"]')) selects[i].value = id;
  });
  selects.forEach(function (s) { s.addEventListener("change", render); });
  render();
})();
