from emu.tools.cli import entry

raise SystemExit(entry())
