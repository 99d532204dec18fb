"""Papers on distinct topics, written from each topic's phrases (seeded, so every run reads the
same), for tests of ranking and "more like this"; and an arXiv RSS listing that carries them."""

from __future__ import annotations

import random
from datetime import date
from html import escape

from bot.core.paper import AnnounceType, Paper

TOPICS = {
    "kv": [
        "key value cache", "kv cache compression", "long context inference", "attention heads",
        "token eviction", "memory footprint", "quantized cache", "llm serving", "decoding latency",
        "prefix reuse",
    ],
    "graph": [
        "graph neural networks", "message passing", "node classification", "molecular graphs",
        "oversmoothing", "graph transformers", "link prediction", "heterophilous graphs",
        "spectral filters", "graph pooling",
    ],
    "vision": [
        "image segmentation", "object detection", "convolutional backbones", "vision transformers",
        "semantic masks", "bounding boxes", "pixel labels", "remote sensing images",
        "video frames", "depth estimation",
    ],
    "proteins": [
        "protein folding", "amino acid sequences", "structure prediction", "binding affinity",
        "enzyme design", "molecular dynamics", "residue contacts", "protein language models",
        "docking poses", "antibody design",
    ],
}  # fmt: skip


def topic_papers(topic: str, count: int, *, first_id: int, day: date, seed: int = 0) -> list[Paper]:
    """`count` papers on `topic`, arXiv ids numbered from `first_id`."""
    phrases = TOPICS[topic]
    rng = random.Random(f"{topic}-{seed}-{first_id}")
    made = []
    for n in range(count):
        a, b, c, d, e = rng.sample(phrases, 5)
        made.append(
            Paper(
                title=f"{a.capitalize()} and {b} for {c}",
                abstract=(
                    f"We propose a method for {a} that improves {b}. It relies on {c} and {d}. "
                    f"Experiments on {e} show that our approach outperforms strong baselines."
                ),
                source="corpus",
                arxiv_id=f"2607.{first_id + n:05d}",
                version=1,
                authors=(f"Author {topic} {n}",),
                categories=("cs.LG",),
                announced=day,
                announce_type=AnnounceType.NEW,
            )
        )
    return made


def topic_of(paper: Paper) -> str:
    """Which topic a corpus paper is on (its author is named after it)."""
    return paper.authors[0].split()[1]


def mixed_day(day: date, per_topic: int, *, first_id: int, seed: int = 0) -> list[Paper]:
    """A day of papers on every topic, shuffled."""
    papers = [
        paper
        for number, topic in enumerate(TOPICS)
        for paper in topic_papers(
            topic, per_topic, first_id=first_id + number * per_topic, day=day, seed=seed
        )
    ]
    random.Random(seed).shuffle(papers)
    return papers


def rss(papers: list[Paper], day: date) -> str:
    """The papers as arXiv's RSS listing of one day."""
    items = "".join(
        f"""<item><title>{escape(p.title)}</title><link>https://arxiv.org/abs/{p.arxiv_id}</link>
<description>arXiv:{p.arxiv_id}v1 Announce Type: new
Abstract: {escape(p.abstract)}</description>
<guid isPermaLink="false">oai:arXiv.org:{p.arxiv_id}v1</guid>
<category>cs.LG</category><arxiv:announce_type>new</arxiv:announce_type>
<dc:creator>{escape(", ".join(p.authors))}</dc:creator></item>"""
        for p in papers
    )
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom"
 xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
<channel><title>cs.LG updates on arXiv.org</title><link>http://rss.arxiv.org/rss/cs.LG</link>
<description>cs.LG updates</description>
<pubDate>{day:%a, %d %b %Y} 00:00:00 -0500</pubDate>{items}</channel></rss>"""
