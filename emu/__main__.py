from emu.tools.cli import main

raise SystemExit(main())
