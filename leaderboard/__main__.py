"""python -m leaderboard: the same as the leaderboard command."""

from leaderboard.cli import run

# Guarded: the worker processes that draw charts are spawned, and import the main module again.
if __name__ == "__main__":
    run()
