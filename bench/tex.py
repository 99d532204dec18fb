"""How much TeX is left in normalised text, on real arXiv titles and abstracts.

    python bench/tex.py [DATA_DIR] [--reference OLD_TEXT_PY] [--examples N]

DATA_DIR holds the real listings (`../shared/data`, JSONL files, searched recursively). Every title
and abstract goes through `clean_text`; the report counts the texts that still hold each leftover
(`\\href`, a literal `%s`, `\\(`, TeX quotes `` or '', quotes half TeX and half not, a `$` pair
around math without letters, any `\\command`, any backslash (`i.i.d.\\ data`), a macro's name
left inside math (`$fracγ2$`)), and the time per 1,000 texts. `--reference` runs the same with
`clean_text` from another copy of bot/core/text.py (the code before a change, say
`git show HEAD:bot/core/text.py > /tmp/text_before.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.core import text  # noqa: E402

Clean = Callable[[str], str]


class Finder(Protocol):
    def search(self, text: str, /) -> re.Match[str] | None: ...


class SymbolOnlyMath:
    """Finds `$3×$`: a pair of dollars (paired left to right) with no letter between them."""

    pairs = re.compile(r"\$[^$]+\$")

    def search(self, text: str) -> re.Match[str] | None:
        return next((m for m in self.pairs.finditer(text) if not LETTER.search(m[0])), None)


class MacroNameInMath:
    """Finds `$operatornameMEC(k,q)$`: a macro's name glued to what follows, inside math."""

    math = re.compile(r"\$[^$]{1,120}\$")
    name = re.compile(
        r"(?<![A-Za-z])(?:[dt]?frac|boldsymbol|pmb|math[a-z]+|operatorname|text[a-z]*|binom"
        r"|sqrt|left|right|big|displaystyle|verb)(?=[^a-z\s.,;:)]|$)"
    )

    def search(self, text: str) -> re.Match[str] | None:
        return next((n for m in self.math.finditer(text) for n in self.name.finditer(m[0])), None)


LETTER = re.compile(r"[^\W\d_]")
LEFTOVERS: dict[str, Finder] = {
    "href": re.compile(r"\\href"),
    "percent_s": re.compile(r"%s"),
    "math_paren": re.compile(r"\\\("),
    "tex_quotes": re.compile(r"``|''"),
    "mixed_quotes": re.compile(r"(?:''|\")[^\"“”'\n]{1,200}”|“[^\"“”\n]{1,200}(?:''|\")"),
    "symbol_only_math": SymbolOnlyMath(),
    "command": re.compile(r"\\[a-zA-Z]+"),
    "backslash": re.compile(r"\\"),
    "macro_name_in_math": MacroNameInMath(),
}


def read_texts(folder: Path) -> Iterator[str]:
    for day in sorted(folder.rglob("*.jsonl")):
        with day.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    paper = json.loads(line)
                    yield str(paper["title"])
                    yield str(paper["abstract"])


def measure(clean: Clean, texts: list[str], examples: int) -> dict[str, object]:
    started = time.perf_counter()
    cleaned = [clean(t) for t in texts]
    seconds = time.perf_counter() - started
    counts: dict[str, int] = {}
    found: dict[str, list[str]] = {}
    for name, pattern in LEFTOVERS.items():
        hits = [(c, m) for c in cleaned if (m := pattern.search(c))]
        counts[name] = len(hits)
        found[name] = [c[max(0, m.start() - 40) : m.end() + 40] for c, m in hits[:examples]]
    report: dict[str, object] = {
        "texts": len(texts),
        "texts_with": counts,
        "seconds_per_1000_texts": round(seconds / len(texts) * 1000, 3),
    }
    if examples:
        report["examples"] = found
    return report


def load_clean_text(path: Path) -> Clean:
    spec = importlib.util.spec_from_file_location("reference_text", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.clean_text  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=ROOT.parent / "shared/data")
    parser.add_argument("--reference", type=Path, help="another text.py to compare with")
    parser.add_argument("--examples", type=int, default=0, help="show N excerpts per leftover")
    arguments = parser.parse_args()
    texts = list(read_texts(arguments.data))
    report: dict[str, object] = {"current": measure(text.clean_text, texts, arguments.examples)}
    if arguments.reference:
        reference = load_clean_text(arguments.reference)
        report["reference"] = measure(reference, texts, arguments.examples)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
