"""The web edge: what every route shares to answer a request, in modules of their own.

``problems`` (a :class:`~bobing.tables.problems.ApiError` as an RFC 9457 response, and the
problem model every router documents), ``lang`` (the request's language), ``rate`` (the one
way a route draws on a rate limit) and ``invite`` (where other phones can open this server).
Nothing here imports the app, a route or the server runner, so the routes, the app and
``bobing serve`` all import the edge and none of them each other.
"""
