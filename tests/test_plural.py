"""Every count the command line and the importers' reports print reads as English (problems.plural)."""

import pytest

from leaderboard.problems import plural


@pytest.mark.parametrize(
    ("count", "word", "many", "text"),
    [
        (0, "problem", None, "0 problems"),
        (1, "problem", None, "1 problem"),
        (2, "problem", None, "2 problems"),
        (1892, "row", None, "1,892 rows"),
        (1, "training entry", "training entries", "1 training entry"),
        (6, "training entry", "training entries", "6 training entries"),
        (1, "result directory", "result directories", "1 result directory"),
    ],
)
def test_plural(count, word, many, text):
    assert plural(count, word, many) == text


def test_the_importers_reports_say_one_row_not_one_rows():
    from pathlib import Path

    from leaderboard.importers import epoch, prices

    report = epoch.report_lines(epoch.EpochImport(rows=1), Path("out"))
    assert report[0].startswith("1 row read; 0 runs: 0 files written")
    price_report = prices.report_lines(prices.PriceImport(rows=1), Path("out.yaml"), True)
    assert price_report[0] == "1 row read; 0 prices written to out.yaml"
