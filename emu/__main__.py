from emu.cli import main

raise SystemExit(main())
