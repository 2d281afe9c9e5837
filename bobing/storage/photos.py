"""Photos kept as evidence (a ``keep_photos`` table's, docs/vision.md): ``bobing_photos``.

A photo is kept when the dice are read from it, pending; the throw that names it links it to
its ``dice`` event's seq. At most ``pending`` photos of a table wait unconfirmed (keeping one
more drops the oldest), and a table's photos together stay under ``table_bytes``. They go with
the table (``event_store._delete_tables`` and the foreign key's ``ON DELETE CASCADE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update

from bobing.storage.db import Database
from bobing.storage.models import PhotoRow


@dataclass(frozen=True, slots=True)
class KeptPhoto:
    """One kept photo: its bytes and what they are."""

    media_type: str
    data: bytes


class PhotoStore:
    """Reads and writes the photos tables keep."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def keep(
        self,
        code: str,
        photo_id: str,
        photo: KeptPhoto,
        *,
        at: datetime,
        pending: int,
        table_bytes: int,
    ) -> bool:
        """Keep ``photo`` pending under ``photo_id``; False (nothing kept) when the table's
        photos would pass ``table_bytes`` (0: no cap). Past ``pending`` unconfirmed photos,
        the oldest are dropped."""
        async with self.db.engine.begin() as conn:
            used = (
                await conn.execute(
                    select(func.coalesce(func.sum(PhotoRow.size), 0)).where(
                        PhotoRow.table_code == code
                    )
                )
            ).scalar_one()
            if table_bytes and int(used) + len(photo.data) > table_bytes:
                return False
            await conn.execute(
                insert(PhotoRow).values(
                    table_code=code,
                    id=photo_id,
                    seq=None,
                    media_type=photo.media_type,
                    size=len(photo.data),
                    data=photo.data,
                    created_at=at,
                )
            )
            stale = (
                (
                    await conn.execute(
                        select(PhotoRow.id)
                        .where(PhotoRow.table_code == code, PhotoRow.seq.is_(None))
                        .order_by(PhotoRow.created_at.desc(), PhotoRow.id.desc())
                        .offset(max(1, pending))
                    )
                )
                .scalars()
                .all()
            )
            if stale:
                await conn.execute(
                    delete(PhotoRow).where(PhotoRow.table_code == code, PhotoRow.id.in_(stale))
                )
        return True

    async def is_pending(self, code: str, photo_id: str) -> bool:
        """Whether ``photo_id`` is a photo of the table that no throw has named yet."""
        async with self.db.connect() as conn:
            found = (
                await conn.execute(
                    select(PhotoRow.id).where(
                        PhotoRow.table_code == code,
                        PhotoRow.id == photo_id,
                        PhotoRow.seq.is_(None),
                    )
                )
            ).first()
        return found is not None

    async def link(self, code: str, photo_id: str, seq: int) -> bool:
        """Confirm a pending photo as the evidence of the throw whose ``dice`` event is ``seq``."""
        async with self.db.engine.begin() as conn:
            result = await conn.execute(
                update(PhotoRow)
                .where(
                    PhotoRow.table_code == code,
                    PhotoRow.id == photo_id,
                    PhotoRow.seq.is_(None),
                )
                .values(seq=seq)
            )
        return bool(result.rowcount)

    async def photo(self, code: str, seq: int) -> KeptPhoto | None:
        """The photo confirmed for the throw whose ``dice`` event is ``seq``, if one is kept."""
        async with self.db.connect() as conn:
            row = (
                await conn.execute(
                    select(PhotoRow.media_type, PhotoRow.data)
                    .where(PhotoRow.table_code == code, PhotoRow.seq == seq)
                    .limit(1)
                )
            ).first()
        return None if row is None else KeptPhoto(row.media_type, bytes(row.data))

    async def count(self, code: str | None = None) -> int:
        """How many photos are kept (of one table, or of every table)."""
        query = select(func.count()).select_from(PhotoRow)
        if code is not None:
            query = query.where(PhotoRow.table_code == code)
        async with self.db.connect() as conn:
            return int((await conn.execute(query)).scalar_one())
