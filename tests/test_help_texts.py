"""Every command's `--help` renders every word of its help texts (issue: figures that read right):
a help text is printed as written, so a bracketed word ("[sweep] table") or a markup-like one
is never swallowed."""

from __future__ import annotations

import re

import click
import pytest
import typer
from typer.testing import CliRunner

from simcell.cli import app

COMMAND = typer.main.get_command(app)
NAMES = sorted(COMMAND.commands)


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def _flat(text: str) -> str:
    # the help as one line: box drawing and the wrapping of long lines removed
    return " ".join(_words(re.sub(r"[│╭╮╰╯─]", " ", text)))


@pytest.mark.parametrize("name", NAMES)
def test_every_word_of_a_commands_help_is_printed(name):
    result = CliRunner().invoke(app, [name, "--help"], terminal_width=400, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    shown = _flat(result.output)
    command: click.Command = COMMAND.commands[name]
    texts = [command.help or ""] + [p.help for p in command.params if getattr(p, "help", None)]
    for text in texts:
        for word in _words(text):
            assert word in shown, f"simcell {name} --help does not print {word!r} of: {text}"
