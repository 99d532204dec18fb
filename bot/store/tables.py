"""The database tables (SQLModel). Only bot.store imports this module."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel


class PaperTable(SQLModel, table=True):
    __tablename__ = "paper"

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str | None = Field(default=None, max_length=40, unique=True)
    version: int | None = None
    doi: str | None = Field(default=None, max_length=300, index=True)
    title_hash: str | None = Field(default=None, max_length=40, index=True)
    abstract_hash: str | None = Field(default=None, max_length=40, index=True)
    title: str = Field(sa_column=Column(Text, nullable=False))
    title_derived: bool = False
    abstract: str = Field(sa_column=Column(Text, nullable=False))
    authors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    more_authors: int = 0
    categories: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    announce_type: str = Field(default="unknown", max_length=20)
    announced: date | None = Field(default=None, index=True)
    link: str | None = Field(default=None, sa_column=Column(Text))
    journal_ref: str | None = Field(default=None, sa_column=Column(Text))
    comments: str | None = Field(default=None, sa_column=Column(Text))
    source: str = Field(sa_column=Column(Text, nullable=False))
    first_seen: datetime
    updated_at: datetime | None = None


class ListingFileTable(SQLModel, table=True):
    __tablename__ = "listing_file"

    id: int | None = Field(default=None, primary_key=True)
    content_hash: str = Field(max_length=64, unique=True)
    path: str = Field(sa_column=Column(Text, nullable=False))
    size: int = 0
    format: str | None = Field(default=None, max_length=30)
    status: str = Field(max_length=20, index=True)  # ingested | failed
    entries: int = 0
    new: int = 0
    duplicates: int = 0
    error: str | None = Field(default=None, sa_column=Column(Text))
    seen_at: datetime
