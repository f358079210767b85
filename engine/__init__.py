"""Pure game rules: the generic contract (:mod:`engine.core`) and one package per game."""
