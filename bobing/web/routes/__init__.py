"""HTTP and WebSocket routes of the table server."""
