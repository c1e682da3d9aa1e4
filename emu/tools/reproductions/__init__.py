"""One module per paper for `nowemu reproduce` (see emu/reproduce.py for what a module provides)."""
