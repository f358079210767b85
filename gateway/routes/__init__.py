"""The HTTP routes, one module per resource (tables, admission, auth, games, watch, meta): each
route checks its inputs, calls one service function and answers."""
