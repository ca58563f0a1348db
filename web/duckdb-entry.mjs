// The SQL page's DuckDB-WASM: its browser API with Apache Arrow bundled in, so the page
// imports one module from the site (nothing from outside it).
export * from "@duckdb/duckdb-wasm";
