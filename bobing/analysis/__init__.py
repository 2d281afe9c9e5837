"""Analysis on top of the engine: exact odds (``odds``), and simulation/planning modules.

Importing this package imports nothing heavy; each module states its own dependencies
(``odds`` is standard library only, so the web app and the CLI can use it cheaply).
"""
