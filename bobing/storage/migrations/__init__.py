"""Alembic migrations of the server's schema, run by :meth:`bobing.storage.db.Database.migrate`."""
