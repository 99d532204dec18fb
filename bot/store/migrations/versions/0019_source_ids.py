"""a paper's ids and names in the sources beyond arXiv: the bioRxiv/medRxiv DOI and server,
PubMed's PMID and PMCID, the journal's name, MeSH terms; and when a stored preprint's journal
version was found

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        paper.add_column(
            sa.Column("preprint_doi", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True)
        )
        paper.add_column(
            sa.Column("server", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True)
        )
        paper.add_column(
            sa.Column("pmid", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True)
        )
        paper.add_column(
            sa.Column("pmcid", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True)
        )
        paper.add_column(sa.Column("journal", sa.Text(), nullable=True))
        paper.add_column(sa.Column("mesh", sa.JSON(), nullable=False, server_default="[]"))
        paper.add_column(
            sa.Column("journal_found_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        paper.create_index(paper.f("ix_paper_preprint_doi"), ["preprint_doi"], unique=False)
        paper.create_index(paper.f("ix_paper_pmid"), ["pmid"], unique=False)
        paper.create_index(paper.f("ix_paper_journal_found_at"), ["journal_found_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("paper") as paper:
        for index in ("ix_paper_journal_found_at", "ix_paper_pmid", "ix_paper_preprint_doi"):
            paper.drop_index(paper.f(index))
        for column in (
            "journal_found_at", "mesh", "journal", "pmcid", "pmid", "server", "preprint_doi",
        ):  # fmt: skip
            paper.drop_column(column)
