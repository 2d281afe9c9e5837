"""Load clients for ``bobing bench server`` (a client of the server, never part of it)."""
