"""The table service: a table's log, its fold, the commands that change it (no web framework).

The throw's path: ``web/routes/ws.py`` → :mod:`bobing.tables.service` →
:mod:`bobing.tables.commands` → :mod:`bobing.engine`.
"""
