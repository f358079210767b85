"""The ``agents-club`` command line: one module per subcommand."""
