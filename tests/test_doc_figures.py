"""The figures the docs print beside a command are what that command prints today: each check
below finds the command in its page, reruns it, and compares the figures the page gives after
it with the ones the run gives. A changed default (the stall outcome, a player's play, a seed)
then fails here instead of leaving a page behind.

The cheap commands (seconds each) run in every test run; the longer ones (a minute or more)
run with ``DOC_FIGURES=all``: ``DOC_FIGURES=all python -m pytest tests/test_doc_figures.py``.
Only seeded commands whose output is a function of the seed are checked: speeds are not.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALL = os.environ.get("DOC_FIGURES") == "all"
WINDOW = 600  # how far after the command its figures may stand on the page (by default)


@dataclass(frozen=True)
class Check:
    page: str  # relative to the repository root
    command: str  # as the page writes it, between backticks
    figures: str  # a pattern whose groups are the page's figures, in the text after the command
    measured: Callable[[str], tuple]  # the same figures, from the command's output
    cheap: bool = True
    window: int = WINDOW
    read_page: Callable[[str], tuple] | None = None  # figures from the pattern's one group
    root: Path = ROOT  # where the page lies

    def run(self) -> str:
        words = shlex.split(self.command)
        if words[0] == "skipbo":
            argv = [sys.executable, "-m", "skipbo_env.apps.cli", *words[1:]]
        elif words[0] == "python":
            argv = [sys.executable, *words[1:]]
        else:
            raise ValueError(f"no way to run {self.command}")
        out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=1800,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 0, f"{self.command} failed: {out.stderr[-2000:]}"
        return out.stdout

    def stated(self) -> tuple:
        text = (self.root / self.page).read_text()
        at = text.find(f"`{self.command}`")
        assert at >= 0, f"{self.page} no longer shows `{self.command}`"
        found = re.search(self.figures, text[at:at + len(self.command) + self.window], re.S)
        assert found, f"{self.page}: no figures matching {self.figures!r} after the command"
        return self.read_page(found.group(1)) if self.read_page else found.groups()


def blocks(stdout: str) -> dict:
    """A tournament's or an evaluation's printed results: for each block (keyed by its
    opponent, or None for a tournament) the draws and each player's win rate."""
    out: dict = {}
    against = None
    for line in stdout.splitlines():
        if line.startswith("against "):
            against = line.split()[1]
        elif m := re.search(r"draws (\d+\.\d%)", line):
            out[against] = {"draws": m.group(1)}
        elif (m := re.match(r"(\S+)\s+\d+\s+(\d+\.\d%)\s", line)) and against in out:
            out[against][m.group(1)] = m.group(2)
    return out


def tournament(*players: str) -> Callable[[str], tuple]:
    """Each player's win rate, then the draws."""
    def measured(stdout: str) -> tuple:
        result = blocks(stdout)[None]
        return (*(result[p] for p in players), result["draws"])
    return measured


def evaluation(checkpoint: str, *opponents: str, draws: bool = False) -> Callable[[str], tuple]:
    """The checkpoint's win rate against each opponent (and the draws after each)."""
    def measured(stdout: str) -> tuple:
        result = blocks(stdout)
        return tuple(f for o in opponents for f in (result[o][checkpoint],
                                                    *((result[o]["draws"],) if draws else ())))
    return measured


def printed_block(stdout: str) -> tuple:
    """The whole output, line by line (the page shows it as a code block)."""
    return ("\n".join(line.rstrip() for line in stdout.strip().splitlines()),)


def table_column(column: int, rows: int | None = None) -> Callable[[str], tuple]:
    """A markdown table's column (0 = the first), its header and rule left out."""
    def read(text: str) -> tuple:
        cells = [line.strip().strip("|").split("|") for line in text.splitlines()
                 if line.strip().startswith("|")][2:]
        return tuple(row[column].strip() for row in cells[:rows])
    return read


CODE_BLOCK = r"\A.*?```\n(.*?)\n```"
RLLIB = "checkpoints/rllib_standard_2p.zip"
SB3 = "checkpoints/standard_2p.zip"
CHECKS = [
    Check("docs/agents.md",
          "skipbo tournament --players greedy,random --games 2000 --stock-size 20",
          r"greedy (\S+%),\s+random (\S+%),\s+draws\s+(\S+%)", tournament("greedy", "random")),
    Check("docs/agents.md",
          "skipbo tournament --players greedy,random --games 2000 --stock-size 20 "
          "--stall-outcome draw",
          r"greedy (\S+%),\s+random (\S+%),\s+draws\s+(\S+%)", tournament("greedy", "random")),
    Check("docs/distributed.md",
          f"skipbo evaluate {RLLIB} --opponents random,naive,greedy --games 200",
          r"\| random \| (\S+%) \| (\S+%) \|\n\| naive \| (\S+%) \| (\S+%) \|\n"
          r"\| greedy \| (\S+%) \| (\S+%) \|",
          evaluation(RLLIB, "random", "naive", "greedy", draws=True), cheap=False),
    Check("docs/distributed.md",
          f"skipbo evaluate {SB3} --opponents random,naive,greedy --games 200",
          r"(\S+%) / (\S+%) / (\S+%)", evaluation(SB3, "random", "naive", "greedy"),
          cheap=False),
    Check("docs/agents.md", "python benchmarks/partner_play.py --games 2000",
          r"(\S+% \(\S+\)) of 2000 games,\s+(\S+%) when it starts and (\S+%) when it plays",
          lambda out: tuple(table_column(i)(out)[0] for i in (3, 4, 5))),
    Check("docs/agents.md", "python benchmarks/masters_coins.py --games 2000 --sweep",
          r"\n\n(\s*\|.*?)\n\n", table_column(3), cheap=False, window=1500,
          read_page=table_column(3)),
    Check("docs/rules.md", "python benchmarks/stall_outcome.py --games 1000", CODE_BLOCK,
          printed_block, cheap=False, window=2000),
]


@pytest.mark.parametrize("check", [c if c.cheap or ALL else pytest.param(
    c, marks=pytest.mark.skip(reason="a minute or more: DOC_FIGURES=all runs it"))
    for c in CHECKS], ids=lambda c: f"{c.page}: {c.command}")
def test_a_documented_figure_is_what_its_command_prints_today(check):
    stated = check.stated()
    assert check.measured(check.run()) == stated, f"{check.page}: `{check.command}`"


def test_the_check_fails_when_a_page_gives_another_figure(tmp_path):
    # The comparison can fail: the same command beside figures it does not print is caught.
    command = "skipbo tournament --players naive,random --games 20 --stock-size 3"
    (tmp_path / "page.md").write_text(f"Run `{command}`: naive 99.9%, random 0.0%, "
                                      "draws 0.1%.\n")
    check = Check("page.md", command, r"naive (\S+%), random (\S+%), draws (\S+%)",
                  tournament("naive", "random"), root=tmp_path)
    stated, measured = check.stated(), check.measured(check.run())
    assert stated == ("99.9%", "0.0%", "0.1%") and len(measured) == 3 and measured != stated
    (tmp_path / "page.md").write_text(f"Run `{command} --seed 1`: naive 99.9%.\n")
    with pytest.raises(AssertionError, match="no longer shows"):
        check.stated()
