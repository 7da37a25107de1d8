"""Every ``course`` command with its options, as its ``--help`` prints them:
the website's Reference page lists them (``course site``)."""

from __future__ import annotations

import argparse
import os


def command_reference(parser: argparse.ArgumentParser) -> str:
    """Every command with its options as its ``--help`` prints them (Markdown,
    for the website's Reference)."""
    parts = ["## Every command and option", "Generated from the `course` parser."]
    width = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "78"  # argparse wraps help to the terminal's width
    try:
        helps = _helps(parser)
    finally:
        if width is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = width
    for name, text in helps:
        parts.append(f"### `course {name}`\n\n```text\n{text}```")
    return "\n\n".join(parts) + "\n"


def _helps(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    found = []
    for action in parser._actions:  # argparse lists sub-commands nowhere public
        choices = action.choices if isinstance(action.choices, dict) else {}
        for name, sub in choices.items():
            if isinstance(sub, argparse.ArgumentParser):
                sub.prog = f"course {name}"
                found.append((name, sub.format_help()))
    return found
