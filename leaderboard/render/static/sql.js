// The SQL page: DuckDB-WASM, loaded only here and only when a query first runs, over the
// site's DuckDB file, attached read-only. One statement a query, by DuckDB's own parser. The
// query lives in the URL (#q=...), results are a sortable table (the first rows) and a CSV of
// the whole result.
const form = document.getElementById("sql");
const textarea = document.getElementById("sql-query");
const cancelButton = document.getElementById("sql-cancel");
const runButton = document.getElementById("sql-run");
const statusLine = document.getElementById("sql-status");
const errorBox = document.getElementById("sql-error");
const table = document.getElementById("sql-result");
const csvLink = document.getElementById("sql-csv");
const SHOWN = Number(form.dataset.shown);
const LIMIT = Number(form.dataset.limit);
const SLOW = Number(form.dataset.slow);

let engine = null; // a promise of {database, connection}
let current = null; // the running query: {cancelled}
let result = null; // {columns, rows} of the last query

async function startEngine() {
  const duckdb = await import("./duckdb/duckdb.mjs");
  const here = new URL("./duckdb/", import.meta.url);
  const worker = new Worker(new URL("duckdb-browser-eh.worker.js", here));
  const database = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await database.instantiate(new URL("duckdb-eh.wasm", here).href);
  const connection = await database.connect();
  // The site's own DuckDB file (written in a storage format DuckDB-WASM reads), attached
  // read-only: a query can read every table and change none. Then no file, URL or extension
  // can be reached from SQL, and no setting changed back.
  const response = await fetch(new URL("../data/leaderboard.duckdb", import.meta.url));
  if (!response.ok) throw new Error("could not load data/leaderboard.duckdb (HTTP " + response.status + ")");
  await database.registerFileBuffer("leaderboard.duckdb", new Uint8Array(await response.arrayBuffer()));
  await connection.query("ATTACH 'leaderboard.duckdb' AS leaderboard (READ_ONLY)");
  await connection.query("USE leaderboard");
  await connection.query("SET enable_external_access = false");
  await connection.query("SET lock_configuration = true");
  return { database, connection };
}

function text(value, type) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return value.toString();
  if (/^Date/.test(type) && typeof value === "number") return new Date(value).toISOString().slice(0, 10);
  if (/^Timestamp/.test(type) && typeof value === "number") return new Date(value).toISOString();
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "object") return JSON.stringify(value, (k, v) => (typeof v === "bigint" ? v.toString() : v));
  return String(value);
}

// DuckDB's refusals of what the page does not run, said in the reader's terms (DuckDB's own
// message kept below).
const REFUSALS = [
  [/Cannot prepare multiple statements/, "One statement at a time: this SQL holds several. Run them one by one."],
  [/read-only mode/, "The data is read-only: a query can read every table and change none."],
  [/disabled by configuration/, "The page reads only the site's data: no file, URL or extension can be reached."],
];

function showError(message) {
  // Some errors come as DuckDB's JSON error object: shown as DuckDB's CLI shows them.
  try {
    const parsed = JSON.parse(message);
    if (parsed && parsed.exception_message) message = parsed.exception_type + " Error: " + parsed.exception_message;
  } catch (error) {
    // plain text
  }
  // DuckDB 1.4 appends a parser error's "LINE 1: ... ^" block twice (duckdb/duckdb#19070):
  // a block repeated right after itself is shown once.
  message = message.split("\n\n").filter((block, i, blocks) => i === 0 || block !== blocks[i - 1]).join("\n\n");
  const refusal = REFUSALS.find(([pattern]) => pattern.test(message));
  errorBox.textContent = refusal ? refusal[1] + "\n" + message : message;
  errorBox.hidden = false;
}

function render() {
  const head = table.tHead;
  const body = table.tBodies[0];
  head.textContent = "";
  body.textContent = "";
  const row = document.createElement("tr");
  result.columns.forEach((name, index) => {
    const th = document.createElement("th");
    th.scope = "col";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = name;
    button.addEventListener("click", () => sortBy(index));
    th.appendChild(button);
    if (result.sorted && result.sorted.index === index) th.setAttribute("aria-sort", result.sorted.descending ? "descending" : "ascending");
    row.appendChild(th);
  });
  head.appendChild(row);
  const fragment = document.createDocumentFragment();
  for (const values of result.rows.slice(0, SHOWN)) {
    const tr = document.createElement("tr");
    for (const value of values) {
      const td = document.createElement("td");
      if (value === null) {
        td.textContent = "NULL";
        td.className = "muted";
      } else td.textContent = value;
      tr.appendChild(td);
    }
    fragment.appendChild(tr);
  }
  body.appendChild(fragment);
  table.hidden = false;
}

function sortBy(index) {
  const descending = result.sorted && result.sorted.index === index && !result.sorted.descending;
  const numeric = result.rows.every((r) => r[index] === null || !isNaN(Number(r[index])));
  result.rows.sort((x, y) => {
    const a = x[index], b = y[index];
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    const order = numeric ? Number(a) - Number(b) : a < b ? -1 : 1;
    return descending ? -order : order;
  });
  result.sorted = { index, descending };
  render();
}

function csvCell(value) {
  if (value === null) return "";
  // A spreadsheet runs a cell that starts with one of these as a formula: the site's downloads
  // prefix such text with ' (numbers are left alone).
  let cell = /^[=+\-@\t\r]/.test(value) && isNaN(Number(value)) ? "'" + value : value;
  return /[",\n\r]/.test(cell) ? '"' + cell.replace(/"/g, '""') + '"' : cell;
}

function offerCsv() {
  const lines = [result.columns.map(csvCell).join(",")].concat(result.rows.map((r) => r.map(csvCell).join(",")));
  if (csvLink.href) URL.revokeObjectURL(csvLink.href);
  csvLink.href = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
  csvLink.hidden = false;
}

async function run() {
  const sql = textarea.value;
  history.replaceState(null, "", "#q=" + encodeURIComponent(sql));
  errorBox.hidden = true;
  if (!sql.trim()) {
    showError("Type a query first, or pick one of the examples below.");
    return;
  }
  if (current) current.cancelled = true;
  const query = { cancelled: false };
  current = query;
  runButton.disabled = true;
  cancelButton.disabled = false;
  const started = performance.now();
  const tick = () => {
    const seconds = Math.floor((performance.now() - started) / 1000);
    statusLine.textContent = (engine ? "Running… " : "Starting DuckDB… ") + seconds + " s" +
      (seconds >= SLOW ? ". It has run past " + SLOW + " s: Cancel stops it." : "");
  };
  tick();
  const timer = setInterval(tick, 500);
  let statement = null;
  try {
    engine = engine || startEngine();
    const { connection } = await engine;
    // A prepared statement is one statement: DuckDB's parser refuses several, and says so.
    try {
      statement = await connection.prepare(sql);
    } catch (error) {
      if (/No statement to prepare/.test(String(error && error.message))) {
        throw new Error("Type a query first, or pick one of the examples below: this SQL holds only comments.");
      }
      throw error;
    }
    const reader = await statement.send();
    let columns = null, types = null, count = 0, stopped = false;
    const rows = [];
    for await (const batch of reader) {
      if (query.cancelled) break;
      if (!columns) {
        columns = batch.schema.fields.map((f) => f.name);
        types = batch.schema.fields.map((f) => String(f.type));
      }
      for (let i = 0; i < batch.numRows; i++) {
        if (count >= LIMIT) { stopped = true; break; }
        const item = batch.get(i);
        rows.push(columns.map((name, c) => text(item[name], types[c])));
        count++;
      }
      if (stopped) break;
    }
    if (query.cancelled) return;
    if (!columns) columns = (reader.schema ? reader.schema.fields.map((f) => f.name) : []);
    result = { columns, rows, sorted: null };
    render();
    offerCsv();
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    statusLine.textContent = stopped
      ? "Stopped at " + LIMIT.toLocaleString("en-US") + " rows: the result is larger. Add a LIMIT, or download the database. The first " +
        Math.min(SHOWN, count).toLocaleString("en-US") + " are shown."
      : count.toLocaleString("en-US") + " row" + (count === 1 ? "" : "s") + " in " + seconds + " s" +
        (count > SHOWN ? "; the first " + SHOWN.toLocaleString("en-US") + " are shown, the CSV holds them all." : ".");
  } catch (error) {
    if (query.cancelled) return;
    table.hidden = true;
    csvLink.hidden = true;
    statusLine.textContent = "";
    showError(error && error.message ? error.message : String(error));
  } finally {
    clearInterval(timer);
    if (statement) statement.close().catch(() => {}); // a cancelled DuckDB has nothing to close
    if (current === query) {
      current = null;
      runButton.disabled = false;
      cancelButton.disabled = true;
    }
  }
}

async function cancel() {
  if (!current) return;
  current.cancelled = true;
  current = null;
  const stopping = engine;
  engine = null; // the next query starts DuckDB afresh
  runButton.disabled = false;
  cancelButton.disabled = true;
  statusLine.textContent = "Cancelled. The next query starts DuckDB again.";
  try {
    const { database } = await stopping;
    await database.terminate();
  } catch (error) {
    // It failed to start: nothing to stop.
  }
}

function fromHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const sql = params.get("q");
  if (sql === null) return false;
  textarea.value = sql;
  return true;
}

if (form.dataset.available === "yes") {
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  });
  cancelButton.addEventListener("click", cancel);
  window.addEventListener("hashchange", () => {
    if (fromHash() && !current) run();
  });
  for (const link of document.querySelectorAll("a.sql-example")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const sql = new URLSearchParams(link.getAttribute("href").slice(1)).get("q");
      textarea.value = sql;
      run();
    });
  }
  if (fromHash()) run();
}
