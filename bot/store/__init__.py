"""All database access lives in this package: tables, queries and migrations.

Query functions take the session explicitly plus keyword arguments and return domain values
(`Paper`, `ListingFile`), never ORM rows.
"""

from bot.store.database import Database, DatabaseUrlError, SchemaAhead, SchemaBehind, StoreError

__all__ = ["Database", "DatabaseUrlError", "SchemaAhead", "SchemaBehind", "StoreError"]
