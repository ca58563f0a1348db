// The site's behaviour: sorting and filtering leaderboards (state in the URL fragment, so a
// view is a permalink), interactive charts, and the compare page. Data is only ever written
// with textContent, never as HTML. Without JavaScript every page is complete and static.
(function () {
  "use strict";

  var TIERS = ["on-demand", "spot", "1-year", "3-year", "purchase"];
  var FILTERS = ["division", "availability", "accelerator", "submitter"];
  var METRIC_LABEL = { minutes: "minutes", chip_hours: "chip-hours", cost: "cost", models_per_minute: "models per minute" };
  // Metrics where more is better (weak-scaling boards of MLPerf HPC): sorted the largest first.
  var HIGHER_IS_BETTER = { models_per_minute: true };

  // Same formats as the site's Python filters (render/site.py: number, usd).
  function number(value, digits) {
    if (value === null || isNaN(value)) return "";
    var whole = Number.isInteger(value);
    if (!whole && Math.abs(value) < 0.5 * Math.pow(10, -digits)) {
      digits = 1 - Math.floor(Math.log10(Math.abs(value)));  // never 0.0 for a value: two significant digits
    }
    return value.toLocaleString("en-US", {
      minimumFractionDigits: whole ? 0 : digits, maximumFractionDigits: whole ? 0 : digits
    });
  }
  function usd(value) {
    if (value === null || isNaN(value)) return "";
    var digits = value >= 100 ? 0 : 2;
    return "$" + value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  function value(text) {
    return text === "" || text === undefined || text === null ? null : parseFloat(text);
  }
  function readHash() {
    return new URLSearchParams(location.hash.replace(/^#/, ""));
  }
  function writeHash(params) {
    var text = params.toString();
    // replaceState keeps the history clean and works on file:// as well as on a server.
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }
  // Competition ranks ("1224") over values, smallest first; null gets no rank.
  function ranks(values) {
    var order = values.map(function (v, i) { return [v, i]; }).filter(function (p) { return p[0] !== null; });
    order.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var result = values.map(function () { return null; });
    var previous = null, previousRank = 0;
    order.forEach(function (pair, position) {
      if (pair[0] !== previous) { previous = pair[0]; previousRank = position + 1; }
      result[pair[1]] = previousRank;
    });
    return result;
  }

  // ---- Leaderboards -------------------------------------------------------------------
  function siteRoot() {
    return document.querySelector("link[rel=stylesheet]").getAttribute("href").replace(/static\/site\.css$/, "");
  }
  // A board's data file, registered by a <script> (works from file://, where fetch() does not).
  function loadBoard(key, src, done) {
    var boards = window.leaderboardBoards || {};
    if (boards[key]) { done(boards[key]); return; }
    var script = document.createElement("script");
    script.src = src;
    script.onload = function () { done((window.leaderboardBoards || {})[key] || null); };
    script.onerror = function () { done(null); };
    document.body.appendChild(script);
  }
  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }
  function link(text, path) {
    var a = element("a", text);
    a.href = siteRoot() + encodeURI(path);
    return a;
  }
  // A cost, or "n/a" with its reason behind a disclosure (keyboard and touch reach it; a title does not).
  function costNode(cost, reason) {
    if (cost !== null) return document.createTextNode(usd(cost));
    if (!reason) return element("span", "n/a", "muted");
    var details = element("details", null, "na");
    details.appendChild(element("summary", "n/a"));
    details.appendChild(element("p", reason));
    return details;
  }
  function modelsText(models, perMinute) {
    return number(models, 0) + " model" + (models === 1 ? "" : "s") + ", " + perMinute.toPrecision(4) + " models/min";
  }
  // A system of processors alone (results.cpu_only) counts CPUs, not accelerator chips, and its
  // chip-hours are processor-hours; the page names the accelerators of such results (a board's
  // data file gives each row's accelerator id). As macros.html draws them.
  function countText(chips, cpu) {
    return number(chips, 3) + (cpu ? " CPU" + (chips === 1 ? "" : "s") : "");
  }
  function countWords(chips, cpu) {
    return number(chips, 3) + (cpu ? " CPU" : " chip") + (chips === 1 ? "" : "s");
  }
  function hoursCell(hours, cpu) {
    var td = element("td", number(hours, 1), "n");
    if (cpu) {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(element("small", "processor-hours", "cpu-unit"));
    }
    return td;
  }
  // One leaderboard row as board.html draws it, from the board's data file; `cpuParts`: the ids of
  // the accelerators whose results on the board count processors.
  function boardRow(r, cpuParts) {
    var cpu = cpuParts.indexOf(r.accelerator_id) >= 0;
    var tr = document.createElement("tr");
    tr.id = r.entry_id.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    tr.setAttribute("data-entry", r.entry_id);
    tr.setAttribute("data-rank", r.rank === null ? "" : String(r.rank));
    tr.setAttribute("data-ranked", r.ranked === false ? "false" : "true");
    tr.setAttribute("data-minutes", String(r.minutes));
    tr.setAttribute("data-chip_hours", String(r.chip_hours));
    if (r.models_per_minute !== null && r.models_per_minute !== undefined) tr.setAttribute("data-models_per_minute", String(r.models_per_minute));
    TIERS.forEach(function (tier) {
      tr.setAttribute("data-cost-" + tier, r.costs[tier] === null ? "" : String(r.costs[tier]));
      tr.setAttribute("data-marks-" + tier, (r.marks || {})[tier] || "");
      tr.setAttribute("data-basis-" + tier, (r.bases || {})[tier] || "");
      tr.setAttribute("data-latest-basis-" + tier, (r.latest_bases || {})[tier] || "");
      var latest = (r.latest_costs || {})[tier];
      tr.setAttribute("data-latest-" + tier, latest === null || latest === undefined ? "" : String(latest));
      tr.setAttribute("data-latest-marks-" + tier, (r.latest_marks || {})[tier] || "");
      if (r.cost_notes && r.cost_notes[tier]) tr.setAttribute("data-na-" + tier, r.cost_notes[tier]);
    });
    tr.setAttribute("data-availability", r.availability);
    tr.setAttribute("data-accelerator", r.accelerator_id);
    tr.setAttribute("data-submitter", r.submitter);
    tr.setAttribute("data-search", r.search);
    tr.appendChild(element("td", r.rank === null ? "—" : String(r.rank), "n rank"));
    var submitter = element("td");
    submitter.appendChild(link(r.submitter, r.submitter_path));
    tr.appendChild(submitter);
    var system = element("td");
    system.appendChild(link(r.system, r.path));
    if (r.model_text || r.division === "open") {
      system.appendChild(element("br"));
      system.appendChild(element("small", r.model_text ? "Model: " + r.model_text : "Model not stated", "model"));
    }
    if (r.models) { system.appendChild(element("br")); system.appendChild(element("small", modelsText(r.models, r.models_per_minute), "models")); }
    if (r.verified_note) { system.appendChild(element("br")); system.appendChild(element("small", r.verified_note, "unverified")); }
    if (r.republished_note) { system.appendChild(element("br")); var rep = element("small", "", "republished"); rep.appendChild(link(r.republished_note, r.republished_path)); system.appendChild(rep); }
    if (r.estimated) { system.appendChild(element("br")); system.appendChild(element("small", "Estimated, not measured", "estimated")); }
    tr.appendChild(system);
    var accelerator = element("td");
    accelerator.appendChild(link(r.accelerator, r.accelerator_path));
    tr.appendChild(accelerator);
    tr.appendChild(element("td", countText(r.chips, cpu), "n"));
    tr.appendChild(element("td", number(r.minutes, 3), "n"));
    tr.appendChild(hoursCell(r.chip_hours, cpu));
    tr.appendChild(element("td", "", "n cost"));
    var quality = element("td", null, "quality");
    if (r.quality_text === null) quality.appendChild(element("span", "—", "muted"));
    else {
      quality.appendChild(document.createTextNode(r.quality_text));
      if (r.target_text !== null) {
        quality.appendChild(document.createTextNode(" "));
        quality.appendChild(element("span", "(target " + r.target_text + ")", "muted"));
      }
    }
    tr.appendChild(quality);
    // Published runs have no availability (families.py `divisions`): the column is there only when its header is.
    if (document.querySelector("th.availability-head")) tr.appendChild(element("td", r.availability));
    var source = element("td");
    if (r.source_url) {
      var a = element("a", "source");
      a.href = r.source_url;
      a.rel = "external noopener noreferrer";
      source.appendChild(a);
    } else if (r.source_citation) source.appendChild(element("span", r.source_citation, "citation"));
    else source.appendChild(element("span", "—", "muted"));
    tr.appendChild(source);
    return tr;
  }
  // A board split over pages: put every row of the board into this page's tables.
  function setupPagedBoard(form) {
    var src = form.dataset.rows;
    var cpuParts = (form.dataset.cpuAccelerators || "").split(" ").filter(Boolean);
    loadBoard(form.dataset.board, src, function (board) {
      if (board) {
        document.querySelectorAll("section.division").forEach(function (section) {
          var body = section.querySelector("table.board").tBodies[0];
          body.textContent = "";
          board.rows.forEach(function (r) {
            if (r.division === section.dataset.division) body.appendChild(boardRow(r, cpuParts));
          });
        });
        document.querySelectorAll("nav.pager").forEach(function (nav) { nav.hidden = true; });
        document.querySelectorAll("table.board caption").forEach(function (caption) {
          caption.textContent = caption.textContent.replace(/; (rows \d+ to \d+|none) on page \d+\./, ": every page.");
        });
      }
      setupBoard(form);
      // The row a link points at may only now exist.
      if (location.hash && location.hash.indexOf("=") < 0) {
        var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (target) target.scrollIntoView();
      }
    });
  }
  function setupBoard(form) {
    var tables = Array.prototype.slice.call(document.querySelectorAll("table.board"));
    var defaultSort = tables.length ? tables[0].dataset.defaultSort : "minutes";
    var originals = tables.map(function (table) { return Array.prototype.slice.call(table.tBodies[0].rows); });
    form.hidden = false;
    function field(name) { return form.elements.namedItem(name); }

    function state() {
      var params = readHash();
      var s = {
        sort: params.get("sort") || defaultSort,
        tier: params.get("tier") || "on-demand",
        prices: params.get("prices") === "latest" ? "latest" : "result",
        q: params.get("q") || ""
      };
      if (!METRIC_LABEL[s.sort]) s.sort = defaultSort;
      if (TIERS.indexOf(s.tier) < 0) s.tier = "on-demand";
      FILTERS.forEach(function (name) { s[name] = params.get(name) || ""; });
      return s;
    }
    function save(s) {
      var params = new URLSearchParams();
      if (s.sort !== defaultSort) params.set("sort", s.sort);
      if (s.tier !== "on-demand") params.set("tier", s.tier);
      if (s.prices === "latest") params.set("prices", s.prices);
      FILTERS.forEach(function (name) { if (s[name]) params.set(name, s[name]); });
      if (s.q) params.set("q", s.q);
      writeHash(params);
    }
    function fromForm() {
      var s = { sort: field("sort").value, tier: field("tier").value, q: field("q").value.trim() };
      s.prices = field("prices") && field("prices").value === "latest" ? "latest" : "result";
      FILTERS.forEach(function (name) { s[name] = field(name).value; });
      return s;
    }
    function toForm(s) {
      ["sort", "tier", "prices", "q"].concat(FILTERS).forEach(function (name) {
        var input = field(name);
        if (!input) return;
        if (input.tagName === "SELECT" && !Array.prototype.some.call(input.options, function (o) { return o.value === s[name]; })) {
          // A sort the board does not offer (a weak-scaling board has no cost sort) is its own ranking.
          s[name] = name === "sort" ? defaultSort : "";
        }
        input.value = s[name];
      });
    }
    function metricOf(row, s) {
      if (s.sort === "cost") return costOf(row, s);
      var found = value(row.getAttribute("data-" + s.sort));
      return HIGHER_IS_BETTER[s.sort] && found !== null ? -found : found;
    }
    // The cost shown: at the prices of each result's date, or at the catalog's latest prices.
    function costOf(row, s) {
      return value(row.getAttribute((s.prices === "latest" ? "data-latest-" : "data-cost-") + s.tier));
    }
    function costBasis(s) {
      return s.tier + (s.prices === "latest" ? ", latest prices" : "");
    }
    function costHead(s) {
      return "Cost (" + costBasis(s) + ")";
    }
    // What the Rank column ranks by: the sort chosen, except minutes on a board not ranked by them
    // (published runs of different models, weak scaling's many models): their minutes measure
    // different work, so such a board keeps its own rank and the caption says both.
    function rankedBy(s) {
      return s.sort === "minutes" && defaultSort !== "minutes" ? defaultSort : s.sort;
    }
    function metricLabel(sort, s) {
      return sort === "cost" ? "cost (" + costBasis(s) + ")" : METRIC_LABEL[sort];
    }
    function apply(s) {
      var shown = 0, total = 0;
      var words = s.q.toLowerCase().split(/\s+/).filter(Boolean);
      tables.forEach(function (table, t) {
        var rows = originals[t];
        var metrics = rows.map(function (row) { return metricOf(row, s); });
        var rankS = Object.assign({}, s, { sort: rankedBy(s) });
        // A self-reported result beside verified ones is sorted in but never ranked (results.ranked).
        var rowRanks = ranks(rows.map(function (row) { return row.getAttribute("data-ranked") === "false" ? null : metricOf(row, rankS); }));
        var order = rows.map(function (row, i) { return i; });
        order.sort(function (a, b) {
          var x = metrics[a], y = metrics[b];
          if (x === null && y === null) return a - b;
          if (x === null) return 1;
          if (y === null) return -1;
          return x - y || a - b;
        });
        var body = table.tBodies[0];
        order.forEach(function (i) {
          var row = rows[i];
          body.appendChild(row);
          row.querySelector("td.rank").textContent = rowRanks[i] === null ? "—" : String(rowRanks[i]);
          var cost = costOf(row, s);
          var cell = row.querySelector("td.cost");
          cell.textContent = "";
          cell.appendChild(costNode(cost, row.getAttribute("data-na-" + s.tier)));
          // What the cost rests on: the price per chip-hour (per chip for purchase) and its provider.
          var basis = row.getAttribute((s.prices === "latest" ? "data-latest-basis-" : "data-basis-") + s.tier);
          if (cost !== null && basis) {
            cell.appendChild(element("br"));
            cell.appendChild(element("small", basis, "price-basis"));
          }
          // A cost from a price dated after the result, or an estimated one, says so beside it.
          var marks = row.getAttribute((s.prices === "latest" ? "data-latest-marks-" : "data-marks-") + s.tier);
          if (cost !== null && marks) marks.split("; ").forEach(function (mark) {
            cell.appendChild(element("br"));
            cell.appendChild(element("small", mark, "price-mark"));
          });
          var visible = FILTERS.every(function (name) {
            if (!s[name] || name === "division") return true;
            return row.getAttribute("data-" + name) === s[name];
          }) && words.every(function (word) { return row.getAttribute("data-search").indexOf(word) >= 0; });
          row.hidden = !visible;
          total += 1;
          var section = table.closest("section.division");
          var divisionShown = !s.division || section.dataset.division === s.division;
          if (visible && divisionShown) shown += 1;
        });
        // The cost header names the tier and prices shown, inside its sort button (kept, not overwritten).
        var costHeader = table.querySelector("th.cost-head");
        (costHeader.querySelector("button.sort") || costHeader).textContent = costHead(s);
        // The caption says what the rows are ranked by (the sort chosen, the cost's tier and prices),
        // and what they are sorted by when that differs.
        var caption = table.querySelector("caption");
        if (caption) {
          var by = metricLabel(rankS.sort, s) + (rankS.sort === s.sort ? "" : ", sorted by " + metricLabel(s.sort, s));
          var text = caption.textContent.replace(/ranked by [^;.:]+/, "ranked by " + by);
          // How many take no rank in this ranking (a cost ranking leaves out the results without a
          // price): counted when the table holds every result the caption counts.
          var size = /: ([\d,]+) results?\b/.exec(text);
          if (size && Number(size[1].replace(/,/g, "")) === rows.length) {
            var unranked = rowRanks.filter(function (rank) { return rank === null; }).length;
            var without = unranked ? " (" + unranked.toLocaleString("en-US") + " without a rank, each saying why)" : "";
            text = text.replace(/ \([\d,]+ without a rank, each saying why\)|(?=, ranked by )/, without);
          }
          caption.textContent = text;
        }
        table.querySelector("th.rank-head").textContent = rankS.sort === defaultSort ? "Rank" : "Rank by " + METRIC_LABEL[rankS.sort];
        table.querySelectorAll("th[data-sort]").forEach(function (th) {
          if (th.dataset.sort === s.sort) th.setAttribute("aria-sort", "ascending"); else th.removeAttribute("aria-sort");
        });
      });
      document.querySelectorAll("section.division").forEach(function (section) {
        section.hidden = !!s.division && section.dataset.division !== s.division;
      });
      var output = document.getElementById("shown");
      if (output) output.textContent = "Showing " + shown + " of " + total + " results";
    }
    function update() {
      var s = fromForm();
      save(s);
      apply(s);
    }
    // Sortable headers: real buttons, so the keyboard reaches them.
    tables.forEach(function (table) {
      table.querySelectorAll("th[data-sort]").forEach(function (th) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "sort";
        button.textContent = th.textContent;
        button.title = "Sort by " + METRIC_LABEL[th.dataset.sort];
        th.textContent = "";
        th.appendChild(button);
        button.addEventListener("click", function () {
          field("sort").value = th.dataset.sort;
          update();
        });
      });
    });
    form.addEventListener("change", update);
    form.addEventListener("input", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function () { setTimeout(update, 0); });
    window.addEventListener("hashchange", function () { var s = state(); toForm(s); apply(s); });
    var initial = state();
    toForm(initial);
    apply(initial);
  }

  // ---- Charts -------------------------------------------------------------------------
  // On a phone the legend beside a chart and long axis labels would leave the plot a strip a few
  // pixels wide: below NARROW pixels the legend goes under the plot, one column, and category
  // labels are cut to a third of the width (the tooltip and the table give them in full). At
  // every width the title's and subtitle's lines are wrapped to the chart's.
  var NARROW = 640;
  function fitLayout(spec, width) {
    if (!width) return;
    // The title and subtitle come in lines drawn for the 640-pixel image: wrapped again to the
    // reader's width, so that no line is cut short (a subtitle says what the chart leaves out).
    if (spec.title) {
      spec.title.text = wrapLines(spec.title.text, Math.floor((width - 10) / 8));
      spec.title.subtitle = wrapLines(spec.title.subtitle, Math.floor((width - 10) / (width < NARROW ? 5.6 : 6.2)));
    }
    if (width >= NARROW) return;
    // Model names beside points were placed for the wide image: on a phone they would cover
    // each other, so they are left off (a point's tooltip names its model).
    if (spec.layer) spec.layer = spec.layer.filter(function (layer) { return !(layer.data && layer.data.name === "labels"); });
    var config = spec.config = spec.config || {};
    var views = [spec].concat(spec.layer || []);
    // The legend starts under the plot, right of the y axis: names on that axis (a third of the
    // width, see below) leave the legend's labels that much less room.
    var named = views.some(function (view) { return view.encoding && view.encoding.y && view.encoding.y.type === "nominal"; });
    var below = { orient: "bottom", direction: "vertical", columns: 1, labelLimit: Math.max(width - (named ? Math.round(width / 3) + 110 : 140), 80) };
    config.legend = Object.assign({}, config.legend, below);
    // A legend set on a channel (three columns of long names, beside or below) overrides the
    // config's: it is set to one column under the plot too, or its last columns fall off the screen.
    views.forEach(function (view) {
      Object.keys(view.encoding || {}).forEach(function (channel) {
        var legend = view.encoding[channel] && view.encoding[channel].legend;
        if (legend) Object.assign(legend, below);
      });
    });
    config.axisY = Object.assign({}, config.axisY, { labelLimit: Math.round(width / 3) });
    // Names on the y axis (a chip-hours chart's) are cut in the middle to what a third of the
    // width holds, as the image cuts them: systems differ in their ends ("4x A100", "8x A100").
    // Two names still alike once cut are numbered, as the image numbers names alike (a
    // point's tooltip names its submitter and system in full).
    views.forEach(function (view) {
      var y = view.encoding && view.encoding.y, data = view.data && spec.datasets && spec.datasets[view.data.name];
      if (!y || y.type !== "nominal" || !data) return;
      var most = Math.max(Math.floor(width / 3 / 6.5), 12), seen = {};
      data.forEach(function (row) {
        if (typeof row[y.field] !== "string") return;
        var cut = cutMiddle(row[y.field], most);
        seen[cut] = (seen[cut] || 0) + 1;
        row[y.field] = seen[cut] === 1 ? cut : cutMiddle(row[y.field], most - 4) + " (" + seen[cut] + ")";
      });
    });
    config.title = Object.assign({}, config.title, { subtitleFontSize: 10, limit: width - 10 });
  }
  // `text` in at most `most` characters, its start and end kept and "…" between (charts.cut_middle).
  function cutMiddle(text, most) {
    if (text.length <= most) return text;
    var head = Math.floor((most - 1) / 2);
    return text.slice(0, head) + "\u2026" + text.slice(text.length - (most - 1 - head));
  }
  // Lines (a text or a list of lines) at most `most` characters long, broken between words;
  // unchanged when every line fits.
  function wrapLines(lines, most) {
    if (!lines) return lines;
    lines = [].concat(lines);
    if (lines.every(function (line) { return line.length <= most; })) return lines;
    var out = [], line = "";
    lines.join(" ").split(/\s+/).forEach(function (word) {
      if (line && line.length + 1 + word.length > most) { out.push(line); line = word; }
      else line = line ? line + " " + word : word;
    });
    if (line) out.push(line);
    return out;
  }
  function embedCharts() {
    var views = [];
    window.leaderboardCharts = views;
    document.querySelectorAll("figure.chart").forEach(function (figure) {
      if (typeof window.vegaEmbed !== "function") return;
      var spec = JSON.parse(document.getElementById(figure.dataset.spec).textContent);
      var target = figure.querySelector(".chart-live");
      fitLayout(spec, target.clientWidth);
      window.vegaEmbed(target, spec, { actions: false, renderer: "svg" }).then(function (result) {
        figure.classList.add("live");
        views.push(result.view);
      }).catch(function (error) {
        // The static SVG stays in place.
        figure.classList.remove("live");
        if (window.console) console.error(error);
      });
    });
  }

  // ---- Compare ------------------------------------------------------------------------
  function setupCompare(root) {
    root.hidden = false;
    var files = JSON.parse(document.getElementById("board-files").textContent);
    // The accelerators whose results count processors, not chips (results.cpu_only).
    var cpuParts = JSON.parse(document.getElementById("cpu-accelerators").textContent);
    function cpu(row) { return cpuParts.indexOf(row.accelerator_id) >= 0; }
    var select = document.getElementById("compare-board");
    var filter = document.getElementById("compare-filter");
    var list = document.getElementById("compare-list");
    var status = document.getElementById("compare-status");
    var table = document.getElementById("compare-table");
    var calloutBox = document.getElementById("compare-callouts");
    var callouts = calloutBox.querySelector("ul");
    var root = siteRoot();
    var picked = [];

    function load(key, done) {
      // Only files the page lists: the URL fragment never names a script.
      if (!Object.prototype.hasOwnProperty.call(files, key)) { done(null); return; }
      loadBoard(key, root + files[key], done);
    }
    function save() {
      var params = new URLSearchParams();
      if (select.value) params.set("board", select.value);
      if (picked.length) params.set("entries", picked.join(","));
      writeHash(params);
    }
    function cell(tag, text) {
      var element = document.createElement(tag);
      element.textContent = text;
      return element;
    }
    function render(board) {
      list.textContent = "";
      if (!board) { table.hidden = true; status.textContent = select.value ? "No such benchmark." : ""; return; }
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      board.rows.forEach(function (row) {
        var text = [row.submitter, row.system, row.accelerator, row.model || ""].join(" ").toLowerCase();
        var isPicked = picked.indexOf(row.entry_id) >= 0;
        if (!isPicked && !words.every(function (w) { return text.indexOf(w) >= 0; })) return;
        var item = document.createElement("li");
        var label = document.createElement("label");
        var box = document.createElement("input");
        box.type = "checkbox";
        box.value = row.entry_id;
        box.checked = isPicked;
        box.disabled = !isPicked && picked.length >= 4;
        box.addEventListener("change", function () {
          if (box.checked && picked.indexOf(row.entry_id) < 0) picked.push(row.entry_id);
          if (!box.checked) picked = picked.filter(function (id) { return id !== row.entry_id; });
          save();
          render(board);
        });
        label.appendChild(box);
        label.appendChild(document.createTextNode(" " + row.submitter + ": " + row.system + " (" + row.division + ", " +
          countWords(row.chips, cpu(row)) + ", " + row.availability + ")"));
        item.appendChild(label);
        list.appendChild(item);
      });
      var rows = picked.map(function (id) {
        return board.rows.filter(function (r) { return r.entry_id === id; })[0];
      }).filter(Boolean);
      var divisions = rows.map(function (r) { return r.division; }).filter(function (d, i, all) { return all.indexOf(d) === i; });
      status.textContent = rows.length < 2 ? "Pick " + (2 - rows.length) + " more to compare (at most 4)." :
        "Comparing " + rows.length + " results of " + board.title + ".";
      // What makes the chosen results not like for like, above the table.
      var notes = [];
      // A republished result is the runs of an earlier round's: not a new measurement (results.republished_from).
      rows.forEach(function (r) { if (r.republished_note) notes.push(r.submitter + ": " + r.system + ": " + r.republished_note + ", not a new measurement."); });
      if (rows.length >= 2) {
        if (divisions.length > 1) notes.push("They are from different divisions (" + divisions.join(" and ") + "), which are ranked apart: the open division may change the model and rules.");
        rows.forEach(function (r) {
          if (r.division === "open") notes.push(r.submitter + ": " + r.system + " is an open-division result" + (r.model_text ? " training " + r.model_text : " with a model or rules of its own") + (board.reference_model ? ", not the reference " + board.reference_model : "") + ".");
          if (r.availability !== "available") notes.push(r.submitter + ": " + r.system + " is a " + r.availability + " system, not commercially available.");
        });
        // The model each trains: the reference in the closed division, the named one (or none) in the open.
        var models = rows.map(function (r) {
          if (r.division !== "open") return board.reference_model ? board.reference_model + " (the reference)" : "the reference model";
          return r.model_text || "a model it does not name";
        }).filter(function (m, i, all) { return all.indexOf(m) === i; });
        if (models.length > 1) notes.push("They train different models (" + models.join("; ") + "): their times measure different amounts of work.");
        var counts = rows.map(function (r) { return countWords(r.chips, cpu(r)); }).filter(function (c, i, all) { return all.indexOf(c) === i; });
        if (counts.length > 1) notes.push("They ran at different scales (" + counts.join(", ") + "): a time at one scale says little about another.");
        // A count of processors is not a count of accelerator chips.
        if (rows.some(cpu) && !rows.every(cpu)) rows.filter(cpu).forEach(function (r) {
          notes.push(r.submitter + ": " + r.system + " ran on processors alone: its count (" + countWords(r.chips, true) + ") is of processors (CPUs), not accelerator chips, and its chip-hours are processor-hours.");
        });
      }
      callouts.textContent = "";
      notes.forEach(function (text) { callouts.appendChild(cell("li", text)); });
      calloutBox.hidden = !notes.length;
      table.hidden = rows.length < 2;
      if (table.hidden) return;
      var head = table.tHead, body = table.tBodies[0];
      head.textContent = "";
      body.textContent = "";
      var headRow = document.createElement("tr");
      // The corner names the column of row headers: an empty header fails WCAG (axe: empty-table-header).
      var corner = cell("th", "Field");
      corner.scope = "col";
      headRow.appendChild(corner);
      rows.forEach(function (row) {
        var th = document.createElement("th");
        th.scope = "col";
        var link = cell("a", row.submitter + ": " + row.system);
        link.href = root + row.path;
        th.appendChild(link);
        headRow.appendChild(th);
      });
      head.appendChild(headRow);
      var fields = [
        ["Round", function (r) { return r.round; }],
        ["Division", function (r) { return r.division; }],
        ["Availability", function (r) { return r.availability; }],
        ["Accelerator", function (r) { return r.accelerator; }],
        ["Chips", function (r) { return countText(r.chips, cpu(r)); }],
        ["Minutes", function (r) { return number(r.minutes, 3); }],
        ["Chip-hours", function (r) { return number(r.chip_hours, 1) + (cpu(r) ? " processor-hours" : ""); }]
      ];
      TIERS.forEach(function (tier) {
        fields.push(["Cost (" + tier + ")", function (r) {
          var c = r.costs[tier], mark = (r.marks || {})[tier];
          return c === null ? costNode(null, (r.cost_notes || {})[tier]) : usd(c) + (mark ? " (" + mark + ")" : "");
        }]);
      });
      fields.push(["Quality (target)", function (r) {
        var q = function (v) { return String(Number(v.toPrecision(4))); };
        return r.quality === null ? "—" : q(r.quality) + (r.quality_target === null ? "" : " (target " + q(r.quality_target) + ")");
      }]);
      fields.push(["Rank by " + METRIC_LABEL[board.rank_metric], function (r) {
        return r.rank === null ? "—" : r.rank + " in the " + r.division + " division";
      }]);
      fields.push(["Date", function (r) { return r.date; }]);
      fields.push(["Model", function (r) {
        return r.model_text || (r.division === "open" ? "not stated" : (board.reference_model || "—") + " (the reference)");
      }]);
      fields.push(["MLCommons review", function (r) { return r.verified ? "verified" : "Result not verified by MLCommons Association"; }]);
      fields.forEach(function (field) {
        var tr = document.createElement("tr");
        var th = cell("th", field[0]);
        th.scope = "row";
        tr.appendChild(th);
        rows.forEach(function (row) {
          var value = field[1](row);
          if (typeof value === "string") tr.appendChild(cell("td", value));
          else { var td = cell("td", ""); td.appendChild(value); tr.appendChild(td); }
        });
        body.appendChild(tr);
      });
      markScrollRegions();
    }
    function show(key) {
      load(key, function (board) {
        if (board) {
          picked = picked.filter(function (id) { return board.rows.some(function (r) { return r.entry_id === id; }); });
        }
        render(board);
      });
    }
    select.addEventListener("change", function () { picked = []; save(); show(select.value); });
    filter.addEventListener("input", function () { show(select.value); });
    var params = readHash();
    var key = params.get("board") || "";
    if (Object.prototype.hasOwnProperty.call(files, key)) select.value = key;
    picked = (params.get("entries") || "").split(",").filter(Boolean).slice(0, 4);
    if (select.value) show(select.value); else render(null);
  }

  // ---- Wide tables --------------------------------------------------------------------
  // A table wider than its column scrolls inside its region: say so above it, and in the
  // region's label, whenever it does (on a phone, or after the compare table grows).
  function markScrollRegions() {
    document.querySelectorAll(".table-scroll").forEach(function (region) {
      var scrolls = region.scrollWidth > region.clientWidth + 1;
      var hint = region.previousElementSibling;
      var hasHint = hint && hint.classList.contains("scroll-hint");
      if (!region.dataset.label) region.dataset.label = region.getAttribute("aria-label") || "Table";
      region.dataset.overflow = scrolls ? "scroll" : "fit";
      region.setAttribute("aria-label", region.dataset.label + (scrolls ? " (scrolls sideways)" : ""));
      if (scrolls && !hasHint) {
        hint = element("p", "Scroll the table sideways for more columns", "scroll-hint");
        hint.setAttribute("aria-hidden", "true");
        region.parentNode.insertBefore(hint, region);
      } else if (!scrolls && hasHint) hint.remove();
    });
  }
  window.leaderboardMarkScrollRegions = markScrollRegions;

  var form = document.getElementById("controls");
  if (form && form.dataset.rows) setupPagedBoard(form);
  else if (form) setupBoard(form);
  if (document.querySelector("figure.chart")) embedCharts();
  var compare = document.getElementById("compare");
  if (compare) setupCompare(compare);
  markScrollRegions();
  window.addEventListener("resize", markScrollRegions);
  // The SQL page's script is a module, which browsers refuse to pages opened as files: there
  // the page says so; elsewhere the module (and DuckDB-WASM, when a query runs) loads now.
  var sqlForm = document.getElementById("sql");
  if (sqlForm && location.protocol === "file:") document.getElementById("sql-file").hidden = false;
  else if (sqlForm) {
    var module = document.createElement("script");
    module.type = "module";
    module.src = siteRoot() + "static/sql.js";
    document.body.appendChild(module);
  }
})();
