// Copy the worker and WebAssembly module the page uses (the "eh" build: WebAssembly
// exceptions, in every current browser) beside the bundle, with the licences.
import { copyFileSync, mkdirSync } from "node:fs";

const dist = "node_modules/@duckdb/duckdb-wasm/dist/";
const out = "build/duckdb/";
mkdirSync(out, { recursive: true });
for (const name of ["duckdb-eh.wasm", "duckdb-browser-eh.worker.js"]) copyFileSync(dist + name, out + name);
// DuckDB-WASM ships no licence file; its package.json says MIT.
copyFileSync("node_modules/apache-arrow/LICENSE.txt", out + "LICENSE-apache-arrow.txt");
