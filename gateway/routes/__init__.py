"""The HTTP routes, one module per resource (tables, admission, auth, games, watch, meta): each
route checks its inputs, calls one service function and answers; ``lean`` holds the route class
that solves their parameters cheaply."""
