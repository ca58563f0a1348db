"""Importers: results and reference data published elsewhere turned into our files.

One module per source; mlperf (with archive, mllog, rcp) reads raw MLPerf Training logs.
"""
