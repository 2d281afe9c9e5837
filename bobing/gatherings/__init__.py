"""An organiser's 博饼 (a gathering): many tables, seats from a roster, results (no web framework).

"Event" means a log entry everywhere above this layer; an organiser's event is a *gathering*.
The model (roster, seating, prizes, budget) is :mod:`bobing.organizer`; this layer runs it on
the table service and the gatherings store.
"""
