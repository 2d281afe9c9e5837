"""The server process's own tuning, shared by the server and the load clients: the event
loop and the open-file limit (neither is a web or a bench matter, so both import it here)."""
