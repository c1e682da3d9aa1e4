"""One module per paper for `nowemu reproduce` (see emu/tools/reproduce.py for what a module provides)."""
