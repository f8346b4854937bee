"""Instruction texts of the original files: as stored in a dataset, and as compared with ours.

``normalise_instruction`` is what an imported episode stores (typographic punctuation to
ASCII, ``_`` to a space: the original writes LIBERO's items as ``alphabet_soup``, outside the
instruction charset; white space collapsed). ``match_key`` is what the resolution ladder
compares: that, in lower case, trailing punctuation dropped, so "go to the blue ball",
"Go to the blue ball." and "GO TO THE BLUE BALL !" are one key, while words and inner
punctuation must agree.
"""

from __future__ import annotations

TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2026": "...",
        "\u00a0": " ",
        "_": " ",
    }
)
TRAILING = " .,;:!?\"'"  # dropped from the end of a text before it is compared


def normalise_instruction(text: str) -> str:
    """Typographic quotes and dashes to ASCII, ``_`` to a space, runs of white space to one space, trimmed."""
    return " ".join(text.translate(TYPOGRAPHY).split())


def match_key(text: str) -> str:
    """The form in which two instruction texts are compared (see module docstring)."""
    return normalise_instruction(text).lower().rstrip(TRAILING)
