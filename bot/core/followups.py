"""What a new record of a paper a chat liked or saved brings that is worth a follow-up.

Pure: the service compares the stored record with the new one and, for a chat that 👍'd or
saved the paper, sends what this returns (once per paper and version, through the ledger).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.paper import Paper

# Comments that say the paper found a venue: "Accepted at ICLR 2027", "to appear in JHEP",
# "Published in Nature", "camera-ready version for ...".
_VENUE = re.compile(
    r"\b(?:accepted|to appear|published|camera[- ]ready|in press)\b[^.;]*", re.IGNORECASE
)


@dataclass(frozen=True)
class Followup:
    """The news of one paper: its new version, venue note, journal reference and DOI (each
    only when new), and the journal a preprint was published in."""

    version: int | None
    venue: str | None
    journal_ref: str | None
    doi: str | None
    journal: str | None


def venue_of(comments: str | None) -> str | None:
    """The part of a paper's comments that names its acceptance or publication, or None."""
    found = _VENUE.search(comments or "")
    return found.group(0).strip(" ,") if found else None


def followup(before: Paper, after: Paper) -> Followup | None:
    """What `after` adds to `before` that a reader who liked the paper wants to hear, or None.

    A new version alone is news only with a venue, journal reference or DOI: a typo fix is not
    worth a message."""
    venue = venue_of(after.comments)
    venue = venue if venue and venue != venue_of(before.comments) else None
    journal_ref = after.journal_ref if after.journal_ref != before.journal_ref else None
    doi = after.doi if after.doi and after.doi != before.doi else None
    journal = after.journal if after.journal and not before.journal else None
    if not (venue or journal_ref or doi or journal):
        return None
    newer = (after.version or 0) > (before.version or 0)
    return Followup(after.version if newer else None, venue, journal_ref, doi, journal)
