"""python -m leaderboard: the same as the leaderboard command."""

from leaderboard.cli import run

run()
